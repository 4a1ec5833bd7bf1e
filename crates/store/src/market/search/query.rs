//! What a search asks and answers, below the ways of answering it (the planner in
//! `mod.rs`, memory in `memory/`, free machines in `free.rs`): the query,
//! its order and cursor, a hit, and a page of free machines being filled.

use std::any::Any;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use chrono::{DateTime, Utc};
use domain::booking::{Holding, peak_usage};
use uuid::Uuid;

use crate::ListingRecord;

/// What search orders by. Ties are broken by id in the same direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// Price per GPU-hour, cheapest first.
    Price,
    /// Verified total tok/s, fastest first.
    TokS,
    /// Price per million output tokens, cheapest first.
    PricePerMtok,
    /// The 30-day uptime, most reliable first (listings never observed are left out).
    Reliability,
    /// Energy per token at the query's cell, least first (a cell is required; cells without
    /// the figure are left out).
    JPerToken,
}

/// Where the previous page ended: its last row's sort value and id.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct After {
    pub value: f64,
    pub id: Uuid,
}

/// A search. Every filter is optional; `cell` picks the decode cell that measured figures
/// (filter, `tok_s` and `price_per_mtok` sorts) refer to, the listing's best cell otherwise.
#[derive(Debug, Clone)]
pub struct ListingQuery {
    pub gpu_model: Option<String>,
    /// A catalog GPU: listings that name it (`catalog_gpu`) or whose `gpu_model` is one of
    /// these names.
    pub gpu: Option<(String, Vec<String>)>,
    pub min_vram_gb: Option<i32>,
    pub max_price: Option<i64>,
    pub currency: Option<String>,
    pub region: Option<String>,
    pub verified_only: bool,
    /// Only listings whose machine's agent last reported the claimed hardware.
    pub hardware_confirmed: bool,
    pub min_gpu_count: Option<i32>,
    /// `(context_tokens, concurrency)`.
    pub cell: Option<(i64, i64)>,
    pub min_total_tok_s: Option<f64>,
    /// At most this energy per token at the query's cell (which it requires), J.
    pub max_j_per_token: Option<f64>,
    /// The 30-day uptime at least this (0 to 1); listings never observed are left out.
    pub min_reliability: Option<f64>,
    /// The listing's availability window must cover `[from, until)`.
    pub window: Option<(DateTime<Utc>, DateTime<Utc>)>,
    /// The engine its verified report measured (`measured_engine`): unverified listings are
    /// left out.
    pub engine: Option<String>,
    pub sort: SortKey,
    pub after: Option<After>,
    pub limit: u64,
}

/// A listing record as search hands it out: shared with the in-memory search (not copied
/// for each hit), with a slot for what a layer above derives from it once — the API writes
/// its JSON there, so a listing found by many searches is written once per stored version.
/// A shared record never changes (a change to the listing is a new record), so neither does
/// what was derived from it.
pub struct SharedListing {
    record: ListingRecord,
    derived: OnceLock<Box<dyn Any + Send + Sync>>,
}

impl SharedListing {
    pub fn new(record: ListingRecord) -> Self {
        Self {
            record,
            derived: OnceLock::new(),
        }
    }

    /// What `derive` makes of the record, made on the first call and kept with it. `None`
    /// when the slot holds a value of another type: one layer derives one kind of value.
    pub fn derived<T: Any + Send + Sync>(
        &self,
        derive: impl FnOnce(&ListingRecord) -> T,
    ) -> Option<&T> {
        self.derived
            .get_or_init(|| Box::new(derive(&self.record)))
            .downcast_ref()
    }
}

impl Deref for SharedListing {
    type Target = ListingRecord;

    fn deref(&self) -> &ListingRecord {
        &self.record
    }
}

impl std::fmt::Debug for SharedListing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.record.fmt(f)
    }
}

/// A search hit: the listing and the figures it was found and ordered by.
#[derive(Debug, Clone)]
pub struct ListingHit {
    pub listing: Arc<SharedListing>,
    /// Total tok/s at the query's cell (or the best cell).
    pub total_tok_s: Option<f64>,
    pub price_per_mtok: Option<f64>,
    /// Energy per token at the query's cell, J (`None` for the headline figures).
    pub energy_j_per_token: Option<f64>,
}

impl ListingHit {
    /// The value the hit was ordered by, for the next page's cursor.
    pub fn sort_value(&self, sort: SortKey) -> Option<f64> {
        match sort {
            SortKey::Price => Some(self.listing.price_amount as f64),
            SortKey::TokS => self.total_tok_s,
            SortKey::PricePerMtok => self.price_per_mtok,
            SortKey::Reliability => self.listing.reliability,
            SortKey::JPerToken => self.energy_j_per_token,
        }
    }
}

/// The most batches of candidates a page looks through: past them (many machines in a row
/// full), the page holds what was found, and its cursor says where to go on.
const BATCHES: usize = 10;

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
        held: impl Fn(Uuid) -> Vec<Holding>,
    ) -> Option<FreePage> {
        let (from, until) = self.window;
        let exhausted = (candidates.len() as u64) < self.query.limit;
        for hit in candidates {
            let after = After {
                value: hit.sort_value(self.query.sort).unwrap_or_default(),
                id: hit.listing.id,
            };
            self.query.after = Some(after);
            // GPUs held interruptibly are free for the on-demand booking search is for.
            let mut held = held(hit.listing.id);
            held.retain(|h| !h.displaceable());
            if peak_usage(&held, from, until) + self.needed <= hit.listing.gpu_count {
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
