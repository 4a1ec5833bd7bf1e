//! Searches for machines with GPUs free over an interval. Candidates are taken a batch at a
//! time along the query's order and kept when what holds their GPUs over the interval
//! (bookings holding capacity, maintenance windows) leaves enough free. The candidates and
//! what holds them come from memory when this replica answers search from memory
//! ([`crate::market::search::memory`] keeps both), from the database otherwise; either way through
//! the one loop here, so both give the same pages.

use chrono::{DateTime, Utc};
use domain::booking::Holding;
use uuid::Uuid;

use crate::capacity::holding;
use crate::market::search::query::{Filling, FreePage, ListingQuery};
use crate::{Db, StoreError};

impl Db {
    /// Active listings passing `query` that have `needed` GPUs free over all of its window
    /// (required: without one, nothing is held) at `now`: pending bookings hold theirs until
    /// their hold expires.
    pub async fn search_free(
        &self,
        query: &ListingQuery,
        needed: i32,
        now: DateTime<Utc>,
    ) -> Result<FreePage, StoreError> {
        if let Some(page) = self.search_free_in_memory(query, needed, now).await? {
            return Ok(page);
        }
        self.search_free_in_database(query, needed, now).await
    }

    /// The same page from the database, whether or not this process holds search in
    /// memory: what the memory's answers are tested against.
    pub async fn search_free_in_database(
        &self,
        query: &ListingQuery,
        needed: i32,
        now: DateTime<Utc>,
    ) -> Result<FreePage, StoreError> {
        let mut filling = Filling::new(query, needed);
        let (from, until) = filling.window();
        loop {
            let candidates = self.search_listings_in_database(filling.query()).await?;
            let ids: Vec<Uuid> = candidates.iter().map(|h| h.listing.id).collect();
            let holdings = holding(self.conn(), &ids, from, until, now).await?;
            let held = |id: Uuid| -> Vec<Holding> {
                holdings
                    .iter()
                    .filter(|(listing, _)| *listing == id)
                    .map(|(_, h)| *h)
                    .collect()
            };
            if let Some(page) = filling.take(candidates, held) {
                return Ok(page);
            }
        }
    }
}
