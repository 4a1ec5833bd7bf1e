//! Searches for machines with GPUs free over an interval. Candidates are taken a batch at a
//! time along the query's order and kept when what holds their GPUs over the interval
//! (bookings holding capacity, maintenance windows) leaves enough free. The candidates and
//! what holds them come from memory when this replica answers search from memory
//! ([`crate::search_memory`] keeps both), from the database otherwise; either way through
//! the one loop here, so both give the same pages.

use chrono::{DateTime, Utc};
use domain::booking::peak_usage;
use uuid::Uuid;

use crate::capacity::holding;
use crate::search::{After, ListingHit, ListingQuery};
use crate::{Db, StoreError};

/// The most batches of candidates a page looks through: past them (many machines in a row
/// full), the page holds what was found, and its cursor says where to go on.
const BATCHES: usize = 10;

/// An interval's use of a machine's GPUs: `(starts_at, ends_at, gpus)`.
pub(crate) type Span = (DateTime<Utc>, DateTime<Utc>, i32);

/// A page of machines with the GPUs asked for free, and where the next page starts (`None`:
/// there is none).
#[derive(Debug, Clone)]
pub struct FreePage {
    pub items: Vec<ListingHit>,
    pub next: Option<After>,
}

/// One page being filled, a batch of candidates at a time.
pub(crate) struct Filling {
    /// The next batch's query: the caller's, from the last candidate looked at on.
    query: ListingQuery,
    limit: u64,
    needed: i32,
    window: (DateTime<Utc>, DateTime<Utc>),
    items: Vec<ListingHit>,
    batches: usize,
}

impl Filling {
    pub(crate) fn new(query: &ListingQuery, needed: i32) -> Self {
        let mut batch = query.clone();
        batch.limit = (query.limit * 2).max(20);
        Self {
            window: query.window.unwrap_or_default(),
            query: batch,
            limit: query.limit,
            needed,
            items: Vec::new(),
            batches: 0,
        }
    }

    /// The query for the next batch of candidates.
    pub(crate) fn query(&self) -> &ListingQuery {
        &self.query
    }

    /// The window over which the GPUs must be free.
    pub(crate) fn window(&self) -> (DateTime<Utc>, DateTime<Utc>) {
        self.window
    }

    /// Looks through one batch (`held`: what holds a listing's GPUs over the window); the
    /// page when it is done.
    pub(crate) fn take(
        &mut self,
        candidates: Vec<ListingHit>,
        held: impl Fn(Uuid) -> Vec<Span>,
    ) -> Option<FreePage> {
        let (from, until) = self.window;
        let exhausted = (candidates.len() as u64) < self.query.limit;
        for hit in candidates {
            let after = After {
                value: hit.sort_value(self.query.sort).unwrap_or_default(),
                id: hit.listing.id,
            };
            self.query.after = Some(after);
            if peak_usage(&held(hit.listing.id), from, until) + self.needed <= hit.listing.gpu_count
            {
                self.items.push(hit);
                if self.items.len() as u64 == self.limit {
                    return Some(self.page(Some(after)));
                }
            }
        }
        self.batches += 1;
        if exhausted {
            Some(self.page(None))
        } else if self.batches == BATCHES {
            let next = self.query.after;
            Some(self.page(next))
        } else {
            None
        }
    }

    fn page(&mut self, next: Option<After>) -> FreePage {
        FreePage {
            items: std::mem::take(&mut self.items),
            next,
        }
    }
}

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
            let held = |id: Uuid| -> Vec<Span> {
                holdings
                    .iter()
                    .filter(|h| h.0 == id)
                    .map(|&(_, s, e, g)| (s, e, g))
                    .collect()
            };
            if let Some(page) = filling.take(candidates, held) {
                return Ok(page);
            }
        }
    }
}
