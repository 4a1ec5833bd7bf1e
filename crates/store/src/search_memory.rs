//! Search from memory: an API replica keeps the search projection (active listings, the
//! valid decode cells of their latest reports, reliability, badges, availability windows,
//! and what holds their GPUs: bookings and maintenance windows) in ordered sets, one per
//! order search walks, and answers [`Db::search_listings`] and [`Db::search_free`] from
//! them without asking the database. The answers are the database's: the same filters, the
//! same orders, ties broken by id the same way, the same keyset cursors (so a cursor from
//! one replica is valid on another).
//!
//! It is kept current from the database's change feed (migrations 000028 and 000030): each
//! listing, booking and maintenance window carries the number of its latest change
//! (`search_seq`; a deleted window stamps its listing), and a replica reads again the
//! listings changed, or whose bookings or windows changed, since its last mark. It does so:
//! - at once when a notification arrives (PostgreSQL's `LISTEN gpumarket_search`);
//! - every [`MemoryOptions::poll`] anyway, which catches a missed notification and, on
//!   SQLite, changes made by another process;
//! - before answering, when this process has written to the projection since its last catch-up
//!   (`Db::search_touched`): a replica reads its own writes.
//!
//! Until it is loaded, or when the marketplace outgrows [`MemoryOptions::max_listings`],
//! search asks the database, as it did before.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use sea_orm::sqlx::postgres::PgListener;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect, Statement,
};
use uuid::Uuid;

use crate::ListingRecord;
use crate::entities::{bookings, listing_cells, listings, maintenance_windows};
use crate::search_query::{
    After, Filling, FreePage, ListingHit, ListingQuery, SharedListing, SortKey,
};
use crate::status::listing_status;
use crate::{Backend, Db, StoreError};
use domain::BookingStatus;
use domain::booking::{Holding, holds_gpus};

/// The channel PostgreSQL notifies on (migration 000028's triggers).
const CHANNEL: &str = "gpumarket_search";
/// Ids fetched per query when catching up.
const BATCH: usize = 1_000;
/// How long after they end bookings and maintenance windows are kept: an availability
/// search over an interval that began longer ago than this asks the database. (What ended
/// before a listing was loaded, less this, is not kept; every listing was loaded before now.)
const HELD_AFTER_END: chrono::TimeDelta = chrono::TimeDelta::days(1);

/// How a replica keeps search in memory.
#[derive(Debug, Clone, Copy)]
pub struct MemoryOptions {
    /// The most listings (active, or holding cells) kept; beyond it search asks the database.
    pub max_listings: usize,
    /// How often the change feed is read without a notification.
    pub poll: Duration,
    /// How far along the order asked for a page is looked for before a tok/s floor is
    /// served from the tok/s order instead, then sorted ([`MemoryOptions::FLOOR_PROBE`]).
    pub floor_probe: usize,
}

impl MemoryOptions {
    /// As far as the database looks (`search::FLOOR_PROBE`).
    pub const FLOOR_PROBE: usize = 500;
}

/// What search in memory looks like now (for `/readyz` and the logs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryState {
    /// Not asked for: search asks the database.
    Off,
    /// Loading: search asks the database meanwhile.
    Loading,
    /// Answering from memory, holding this many listings.
    Serving { listings: usize },
    /// The marketplace holds more listings than the cap: nothing is held, and search asks
    /// the database until it fits again.
    OverCap,
}

/// The shared part of every clone of a [`Db`]: whether search is served from memory (how many
/// writes this process made to what search reads is `crate::feed`'s).
#[derive(Debug, Default)]
pub(crate) struct SearchShared {
    memory: OnceLock<Arc<Memory>>,
}

#[derive(Debug)]
struct Memory {
    options: MemoryOptions,
    index: RwLock<Index>,
    /// One catch-up at a time.
    catching_up: tokio::sync::Mutex<()>,
    /// The change feed's mark: every change numbered below it has been read.
    known: AtomicI64,
    /// `local_writes` as it was when the last catch-up began.
    seen_writes: AtomicU64,
    loaded: AtomicBool,
    over_cap: AtomicBool,
}

/// A sort value with a total order; `-0.0` is stored as `0.0`, as SQL compares them.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Key(f64);

impl Key {
    fn new(value: f64) -> Self {
        Self(value + 0.0)
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Whether `sort` lists the highest first.
fn descending(sort: SortKey) -> bool {
    matches!(sort, SortKey::TokS | SortKey::Reliability)
}

/// Where an order's listing is: its slot in [`Index::facts`], with what the filters most
/// searches name read without leaving the order's memory: its GPU model's and region's
/// fingerprints, its VRAM and GPUs, and whether it is verified.
#[derive(Debug, Clone, Copy)]
struct At {
    slot: u32,
    model: u32,
    region: u32,
    vram_gb: i32,
    gpu_count: i32,
    verified: bool,
}

impl At {
    /// Whether a listing may pass `p`: `false` only when one of these filters fails.
    fn may_pass(&self, p: &Prepared<'_>, model: Option<u32>) -> bool {
        let q = p.q;
        model.is_none_or(|m| m == self.model)
            && p.region.is_none_or(|r| r as u32 == self.region)
            && q.min_vram_gb.is_none_or(|v| self.vram_gb >= v)
            && q.min_gpu_count.is_none_or(|n| self.gpu_count >= n)
            && (!q.verified_only || self.verified)
    }
}

/// An order a search walks: `(sort value, listing id)`, ties by id.
type Order = BTreeMap<(Key, Uuid), At>;

fn change(order: &mut Order, key: Option<f64>, id: Uuid, at: Option<At>) {
    if let Some(key) = key {
        match at {
            Some(at) => order.insert((Key::new(key), id), at),
            None => order.remove(&(Key::new(key), id)),
        };
    }
}

/// The listings of one search shape in its orders by price, tok/s and price per Mtok. (The
/// reliability order is the listing's own, shared by every shape: [`Index::reliable`].)
#[derive(Debug, Default)]
struct Orders([Order; 3]);

impl Orders {
    fn change(&mut self, id: Uuid, keys: [Option<f64>; 3], at: Option<At>) {
        for (order, key) in self.0.iter_mut().zip(keys) {
            change(order, key, id, at);
        }
    }

    fn get(&self, sort: SortKey) -> Option<&Order> {
        match sort {
            SortKey::Price => Some(&self.0[0]),
            SortKey::TokS => Some(&self.0[1]),
            SortKey::PricePerMtok => Some(&self.0[2]),
            SortKey::Reliability => None,
        }
    }
}

/// A text's fingerprint: equal texts have equal ones, so a filter compares fingerprints and
/// reads the text itself only when they are equal.
fn fingerprint(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// A decode cell of the projection, as search reads it.
#[derive(Debug)]
struct Cell {
    at: (i64, i64),
    price: i64,
    tok_s: f64,
    per_mtok: f64,
    /// The cell's GPU model where it is not the listing's (it is written as the listing's).
    model: Option<Box<str>>,
}

impl Cell {
    fn of(cell: listing_cells::Model, listing_model: &str) -> Self {
        Self {
            at: (cell.context_tokens, cell.concurrency),
            price: cell.price_amount,
            tok_s: cell.total_tok_s,
            per_mtok: cell.price_per_mtok,
            model: (cell.gpu_model != listing_model).then(|| cell.gpu_model.into_boxed_str()),
        }
    }

    fn keys(&self) -> [Option<f64>; 3] {
        [
            Some(self.price as f64),
            Some(self.tok_s),
            Some(self.per_mtok),
        ]
    }
}

/// Something that may hold a listing's GPUs: a booking (in its status, with its hold's
/// expiry: whether it holds is decided at search time), or a maintenance window (every GPU).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Hold {
    holding: Holding,
    /// A booking's status and hold's expiry; `None` for a window.
    booking: Option<(BookingStatus, Option<DateTime<Utc>>)>,
}

impl Hold {
    /// Whether it holds GPUs over `[from, until)` at `now`: by the rule
    /// [`crate::capacity::holding`] follows in SQL (`domain::booking::holds_gpus`).
    fn holds(&self, (from, until): (DateTime<Utc>, DateTime<Utc>), now: DateTime<Utc>) -> bool {
        let h = &self.holding;
        h.starts_at < until
            && h.ends_at > from
            && self
                .booking
                .is_none_or(|(status, expires)| holds_gpus(status, expires, now))
    }
}

/// What search filters a listing on, small and side by side with every other listing's, so
/// that walking an order reads little memory; the record itself is read only for a hit (and
/// to confirm a text whose fingerprint matched).
#[derive(Debug)]
struct Facts {
    active: bool,
    verified: bool,
    vram_gb: i32,
    gpu_count: i32,
    price: i64,
    model: u64,
    catalog: Option<u64>,
    currency: u64,
    region: u64,
    reliability: Option<f64>,
    tok_s: Option<f64>,
    per_mtok: Option<f64>,
    available_from: Option<DateTime<Utc>>,
    available_until: Option<DateTime<Utc>>,
    cells: Box<[Cell]>,
    holds: Box<[Hold]>,
}

impl Facts {
    fn of(l: &ListingRecord, cells: Vec<listing_cells::Model>, holds: Vec<Hold>) -> Self {
        Self {
            active: l.status == domain::ListingStatus::Active,
            verified: l.latest_report_id.is_some(),
            vram_gb: l.vram_gb,
            gpu_count: l.gpu_count,
            price: l.price_amount,
            model: fingerprint(&l.gpu_model),
            catalog: l.catalog_gpu.as_deref().map(fingerprint),
            currency: fingerprint(&l.currency),
            region: fingerprint(&l.region),
            reliability: l.reliability,
            tok_s: l.headline_total_tok_s,
            per_mtok: l.headline_price_per_mtok,
            available_from: l.available_from,
            available_until: l.available_until,
            cells: cells
                .into_iter()
                .map(|c| Cell::of(c, &l.gpu_model))
                .collect(),
            holds: holds.into_boxed_slice(),
        }
    }

    /// Kept while search can find it: active, or holding cells (the cell search reads the
    /// cells, which exist for active listings only, without the listing's status).
    fn kept(&self) -> bool {
        self.active || !self.cells.is_empty()
    }

    fn headline_keys(&self) -> Option<[Option<f64>; 3]> {
        self.active
            .then_some([Some(self.price as f64), self.tok_s, self.per_mtok])
    }

    fn cell(&self, at: (i64, i64)) -> Option<&Cell> {
        self.cells.iter().find(|c| c.at == at)
    }
}

/// A query with its texts' fingerprints, taken once.
struct Prepared<'q> {
    q: &'q ListingQuery,
    model: Option<u64>,
    gpu: Option<(u64, Vec<u64>)>,
    currency: Option<u64>,
    region: Option<u64>,
}

impl<'q> Prepared<'q> {
    fn new(q: &'q ListingQuery) -> Self {
        Self {
            q,
            model: q.gpu_model.as_deref().map(fingerprint),
            gpu: q.gpu.as_ref().map(|(id, names)| {
                (
                    fingerprint(id),
                    names.iter().map(|n| fingerprint(n)).collect(),
                )
            }),
            currency: q.currency.as_deref().map(fingerprint),
            region: q.region.as_deref().map(fingerprint),
        }
    }

    /// The model named, as an order sorted by `sort` carries it (`None`: not checked on the
    /// order). The reliability order carries the listing's model, which a cell's may differ
    /// from: it is not checked there for a cell.
    fn order_model(&self, sort: SortKey) -> Option<u32> {
        self.model
            .filter(|_| sort != SortKey::Reliability || self.q.cell.is_none())
            .map(|m| m as u32)
    }

    /// The figures `f` is found and ordered by, when it passes every filter on its facts
    /// alone; texts whose fingerprints matched are confirmed on the record by [`Self::confirm`].
    fn figures(&self, f: &Facts) -> Option<(Option<f64>, Option<f64>)> {
        let q = self.q;
        let (price, tok_s, per_mtok) = match q.cell {
            None => {
                if !f.active {
                    return None;
                }
                (f.price, f.tok_s, f.per_mtok)
            }
            Some(at) => {
                let c = f.cell(at)?;
                (c.price, Some(c.tok_s), Some(c.per_mtok))
            }
        };
        let at_least = |value: Option<f64>, min: Option<f64>| match min {
            None => true,
            Some(min) => value.is_some_and(|v| v >= min),
        };
        let pass = q.max_price.is_none_or(|max| price <= max)
            && at_least(tok_s, q.min_total_tok_s)
            && q.min_vram_gb.is_none_or(|v| f.vram_gb >= v)
            && self.currency.is_none_or(|c| f.currency == c)
            && self.region.is_none_or(|r| f.region == r)
            && (!q.verified_only || f.verified)
            && q.min_gpu_count.is_none_or(|n| f.gpu_count >= n)
            && at_least(f.reliability, q.min_reliability)
            && q.window.is_none_or(|(from, until)| {
                f.available_from.is_none_or(|at| at <= from)
                    && f.available_until.is_none_or(|at| at >= until)
            })
            && self.gpu.as_ref().is_none_or(|(catalog, names)| {
                f.catalog == Some(*catalog) || names.contains(&f.model)
            });
        // The model a search names is the cell's (written as the listing's) or the listing's.
        let model_may_match = match (self.model, q.cell.and_then(|at| f.cell(at))) {
            (None, _) => true,
            (Some(_), Some(Cell { model: Some(_), .. })) => true,
            (Some(model), _) => f.model == model,
        };
        (pass && model_may_match).then_some((tok_s, per_mtok))
    }

    /// The texts compared exactly, on a listing whose facts passed.
    fn confirm(&self, f: &Facts, l: &ListingRecord) -> bool {
        let q = self.q;
        let model = match q.cell.and_then(|at| f.cell(at)) {
            Some(Cell { model: Some(m), .. }) => m,
            _ => l.gpu_model.as_str(),
        };
        q.gpu_model.as_deref().is_none_or(|m| m == model)
            && q.currency.as_ref().is_none_or(|c| &l.currency == c)
            && q.region.as_ref().is_none_or(|r| &l.region == r)
            && q.gpu.as_ref().is_none_or(|(id, names)| {
                l.catalog_gpu.as_deref() == Some(id.as_str()) || names.contains(&l.gpu_model)
            })
    }
}

/// The listings search can find, by slot.
#[derive(Debug, Default)]
struct Index {
    slots: HashMap<Uuid, u32>,
    facts: Vec<Option<Facts>>,
    records: Vec<Option<Arc<SharedListing>>>,
    free: Vec<u32>,
    /// Per search shape (a decode cell, or `None` for the headline figures) and GPU model (`None`: of
    /// every model), its orders: a search naming a model walks that model's listings only.
    orders: HashMap<(Shape, Option<u32>), Orders>,
    /// Every kept listing with a reliability, by it.
    reliable: Order,
}

impl Index {
    fn len(&self) -> usize {
        self.slots.len()
    }

    fn change(&mut self, id: Uuid, facts: &Facts, slot: Option<u32>) {
        let at = |model: u64| {
            slot.map(|slot| At {
                slot,
                model: model as u32,
                region: facts.region as u32,
                vram_gb: facts.vram_gb,
                gpu_count: facts.gpu_count,
                verified: facts.verified,
            })
        };
        let mut shapes: Vec<Placed> = facts
            .cells
            .iter()
            .map(|c| {
                let model = c.model.as_deref().map_or(facts.model, fingerprint);
                (Some(c.at), c.keys(), model)
            })
            .collect();
        if let Some(keys) = facts.headline_keys() {
            shapes.push((None, keys, facts.model));
        }
        for (shape, keys, model) in shapes {
            for partition in [None, Some(model as u32)] {
                let key = (shape, partition);
                let orders = self.orders.entry(key).or_default();
                orders.change(id, keys, at(model));
                // A model or cell nobody lists any more leaves nothing behind.
                if orders.0.iter().all(BTreeMap::is_empty) {
                    self.orders.remove(&key);
                }
            }
        }
        change(&mut self.reliable, facts.reliability, id, at(facts.model));
    }

    fn remove(&mut self, id: Uuid) {
        let Some(slot) = self.slots.remove(&id) else {
            return;
        };
        let at = slot as usize;
        if let Some(facts) = self.facts[at].take() {
            self.change(id, &facts, None);
        }
        self.records[at] = None;
        self.free.push(slot);
    }

    fn put(&mut self, listing: ListingRecord, cells: Vec<listing_cells::Model>, holds: Vec<Hold>) {
        let id = listing.id;
        self.remove(id);
        let facts = Facts::of(&listing, cells, holds);
        if !facts.kept() {
            return;
        }
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.facts.push(None);
                self.records.push(None);
                u32::try_from(self.facts.len() - 1).unwrap_or(u32::MAX)
            }
        };
        self.change(id, &facts, Some(slot));
        self.facts[slot as usize] = Some(facts);
        self.records[slot as usize] = Some(Arc::new(SharedListing::new(listing)));
        self.slots.insert(id, slot);
    }

    /// One page, walking the order asked for from the cursor and keeping what passes. A
    /// tok/s floor that few listings along that order pass is served as the database serves
    /// it: from the tok/s order down to the floor, then sorted, once `floor_probe` listings
    /// along the order did not fill the page.
    fn search(&self, q: &ListingQuery, floor_probe: usize) -> Vec<ListingHit> {
        let prepared = Prepared::new(q);
        let partition = prepared.model.map(|m| m as u32);
        let Some(orders) = self.orders.get(&(q.cell, partition)) else {
            return Vec::new();
        };
        let order = orders.get(q.sort).unwrap_or(&self.reliable);
        let by_floor = q.min_total_tok_s.is_some() && q.sort != SortKey::TokS;
        let budget = if by_floor { floor_probe } else { usize::MAX };
        let found = match self.walk(&prepared, order, q.after, budget) {
            Some(found) => found,
            None => {
                let tok_s = orders.get(SortKey::TokS).unwrap_or(&self.reliable);
                self.floor(&prepared, tok_s)
            }
        };
        found
            .into_iter()
            .filter_map(|(slot, tok_s, per_mtok)| {
                let record = self.records.get(slot as usize)?.as_ref()?;
                Some(ListingHit {
                    listing: Arc::clone(record),
                    total_tok_s: tok_s,
                    price_per_mtok: per_mtok,
                })
            })
            .collect()
    }

    /// What holds listing `id`'s GPUs over `window` at `now`.
    fn held(
        &self,
        id: Uuid,
        window: (DateTime<Utc>, DateTime<Utc>),
        now: DateTime<Utc>,
    ) -> Vec<Holding> {
        let facts = self
            .slots
            .get(&id)
            .and_then(|&slot| self.facts.get(slot as usize)?.as_ref());
        facts.map_or_else(Vec::new, |f| {
            f.holds
                .iter()
                .filter(|h| h.holds(window, now))
                .map(|h| h.holding)
                .collect()
        })
    }

    /// The facts and record of a listing that passes `p` at `at`, with its figures.
    fn passing(&self, p: &Prepared<'_>, at: At, model: Option<u32>) -> Option<Found> {
        if !at.may_pass(p, model) {
            return None;
        }
        let slot = at.slot as usize;
        let facts = self.facts.get(slot)?.as_ref()?;
        let (tok_s, per_mtok) = p.figures(facts)?;
        let record = self.records.get(slot)?.as_deref()?;
        p.confirm(facts, record)
            .then_some((at.slot, tok_s, per_mtok))
    }

    /// A page from `order` (the query's), from the cursor on; `None` when more than `budget`
    /// listings were looked at before the page filled.
    fn walk(
        &self,
        p: &Prepared<'_>,
        order: &Order,
        after: Option<After>,
        budget: usize,
    ) -> Option<Vec<Found>> {
        let q = p.q;
        type Walk<'a> = Box<dyn Iterator<Item = (&'a (Key, Uuid), &'a At)> + 'a>;
        let walk: Walk<'_> = match (after, descending(q.sort)) {
            (None, false) => Box::new(order.iter()),
            (None, true) => Box::new(order.iter().rev()),
            (Some(a), false) => Box::new(
                order.range((Bound::Excluded((Key::new(a.value), a.id)), Bound::Unbounded)),
            ),
            (Some(a), true) => Box::new(order.range(..(Key::new(a.value), a.id)).rev()),
        };
        // Where the order leaves the filter on its own key behind, nothing further passes.
        let past = |key: f64| match q.sort {
            SortKey::Price => q.max_price.is_some_and(|max| key > max as f64),
            SortKey::TokS => q.min_total_tok_s.is_some_and(|min| key < min),
            SortKey::PricePerMtok | SortKey::Reliability => false,
        };
        let model = p.order_model(q.sort);
        let limit = usize::try_from(q.limit).unwrap_or(usize::MAX);
        let mut found = Vec::new();
        for (looked, ((key, _), &at)) in walk.enumerate() {
            if found.len() >= limit || past(key.0) {
                break;
            }
            if looked >= budget {
                return None;
            }
            found.extend(self.passing(p, at, model));
        }
        Some(found)
    }

    /// A page by walking the tok/s order down to the query's floor, keeping what passes and
    /// lies beyond the cursor, sorted in the query's order.
    fn floor(&self, p: &Prepared<'_>, tok_s: &Order) -> Vec<Found> {
        let q = p.q;
        let min = q.min_total_tok_s.unwrap_or(f64::NEG_INFINITY);
        let model = p.order_model(SortKey::TokS);
        let mut found: Vec<(Key, Uuid, Found)> = Vec::new();
        for ((key, id), &at) in tok_s.iter().rev() {
            if key.0 < min {
                break;
            }
            let Some(hit) = self.passing(p, at, model) else {
                continue;
            };
            let Some(value) = self.sort_value(q, at.slot, &hit) else {
                continue;
            };
            let beyond = q.after.is_none_or(|a| {
                let (at_key, after) = ((Key::new(value), *id), (Key::new(a.value), a.id));
                if descending(q.sort) {
                    at_key < after
                } else {
                    at_key > after
                }
            });
            if beyond {
                found.push((Key::new(value), *id, hit));
            }
        }
        // Only the page is put in order: the first `limit` are chosen first (keys are unique,
        // ids breaking ties), then sorted.
        let limit = usize::try_from(q.limit).unwrap_or(usize::MAX);
        let reverse = descending(q.sort);
        let order = |a: &(Key, Uuid, Found), b: &(Key, Uuid, Found)| {
            let ordered = (a.0, a.1).cmp(&(b.0, b.1));
            if reverse { ordered.reverse() } else { ordered }
        };
        if limit == 0 {
            return Vec::new();
        }
        if found.len() > limit {
            found.select_nth_unstable_by(limit - 1, order);
            found.truncate(limit);
        }
        found.sort_unstable_by(order);
        found.into_iter().map(|(_, _, hit)| hit).collect()
    }

    /// The value a passing listing is ordered by in `q`'s order.
    fn sort_value(&self, q: &ListingQuery, slot: u32, hit: &Found) -> Option<f64> {
        let facts = self.facts.get(slot as usize)?.as_ref()?;
        match q.sort {
            SortKey::Price => Some(match q.cell.and_then(|at| facts.cell(at)) {
                Some(cell) => cell.price as f64,
                None => facts.price as f64,
            }),
            SortKey::TokS => hit.1,
            SortKey::PricePerMtok => hit.2,
            SortKey::Reliability => facts.reliability,
        }
    }
}

/// Where a listing goes in a shape's orders: the shape (a decode cell, or `None` for the
/// headline figures), its keys in them, the model it is found by there.
type Placed = (Shape, [Option<f64>; 3], u64);

/// A search shape: a decode cell `(context, concurrency)`, or `None` for the headline figures.
type Shape = Option<(i64, i64)>;

/// A listing a search found: its slot and the figures it was found by.
type Found = (u32, Option<f64>, Option<f64>);

/// A booking as memory reads it: its id, listing, interval, GPUs, status and hold's expiry.
type BookedRow = (
    Uuid,
    Uuid,
    DateTime<Utc>,
    DateTime<Utc>,
    i32,
    String,
    Option<DateTime<Utc>>,
);

/// A listing as the index is given it: its record, cells and what holds its GPUs.
type Entry = (ListingRecord, Vec<listing_cells::Model>, Vec<Hold>);

impl Memory {
    fn state(&self) -> MemoryState {
        if self.over_cap.load(Ordering::Acquire) {
            MemoryState::OverCap
        } else if self.loaded.load(Ordering::Acquire) {
            let listings = self.index.read().map_or(0, |i| i.len());
            MemoryState::Serving { listings }
        } else {
            MemoryState::Loading
        }
    }

    /// Reads every change since the last mark into the index. `for_own_writes`: only when
    /// this process's writes are still unread once it is this caller's turn (searches that
    /// queued behind one catch-up do not each do another).
    async fn catch_up(&self, db: &Db, for_own_writes: bool) -> Result<(), StoreError> {
        let _one = self.catching_up.lock().await;
        if for_own_writes && !self.behind_own_writes(db) {
            return Ok(());
        }
        if self.over_cap.load(Ordering::Acquire) {
            // Back under the cap (listings delisted), everything is loaded again.
            if db.count_searchable().await? > self.options.max_listings as u64 {
                return Ok(());
            }
            self.known.store(0, Ordering::Release);
            self.set_over_cap(false);
        }
        let writes = db.writes.count();
        let mark = db.search_mark().await?;
        let known = self.known.load(Ordering::Acquire);
        let changed = db.changed_since(known).await?;
        for batch in changed.chunks(BATCH) {
            if self.over_cap.load(Ordering::Acquire) {
                break;
            }
            let entries = db.entries_of(batch).await?;
            let mut index = self.index.write().unwrap_or_else(|e| e.into_inner());
            for id in batch {
                index.remove(*id);
            }
            for (listing, cells, held) in entries {
                index.put(listing, cells, held);
            }
            if index.len() > self.options.max_listings {
                // Over the cap nothing is kept: the memory is given back.
                *index = Index::default();
                self.set_over_cap(true);
            }
        }
        self.known.store(mark, Ordering::Release);
        self.seen_writes.store(writes, Ordering::Release);
        Ok(())
    }

    fn set_over_cap(&self, over: bool) {
        if over != self.over_cap.swap(over, Ordering::AcqRel) {
            let max = self.options.max_listings;
            if over {
                tracing::warn!(
                    max,
                    "search no longer fits in memory (search_memory_max_listings): it asks the database"
                );
            } else {
                tracing::info!(max, "search fits in memory again: loading it");
            }
        }
    }

    /// Whether this process wrote to what search reads since the last catch-up began.
    fn behind_own_writes(&self, db: &Db) -> bool {
        db.writes.count() != self.seen_writes.load(Ordering::Acquire)
    }
}

impl Db {
    /// The change feed's mark now: every change numbered below it has ended.
    async fn search_mark(&self) -> Result<i64, StoreError> {
        let sql = match self.backend() {
            Backend::Postgres => "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint",
            Backend::Sqlite => "SELECT seq + 1 FROM search_clock WHERE id = 1",
        };
        let row = self
            .conn()
            .query_one_raw(Statement::from_string(
                self.conn().get_database_backend(),
                sql,
            ))
            .await?
            .ok_or_else(|| StoreError::Corrupt("the search change feed has no clock".into()))?;
        Ok(row.try_get_by_index::<i64>(0)?)
    }

    /// How many listings search from memory would hold (active ones, or holding cells).
    async fn count_searchable(&self) -> Result<u64, StoreError> {
        use sea_orm::sea_query::Query;
        Ok(listings::Entity::find()
            .filter(
                sea_orm::Condition::any()
                    .add(listings::Column::Status.eq(listing_status::ACTIVE))
                    .add(
                        listings::Column::Id.in_subquery(
                            Query::select()
                                .column(listing_cells::Column::ListingId)
                                .from(listing_cells::Entity)
                                .to_owned(),
                        ),
                    ),
            )
            .count(self.conn())
            .await?)
    }

    /// The listings changed since `known` (the change feed's mark), or whose bookings or
    /// maintenance windows did. From the start (`known` 0) every listing is read: its bookings' and windows' listings
    /// are not looked up.
    async fn changed_since(&self, known: i64) -> Result<Vec<Uuid>, StoreError> {
        let mut sql = format!("SELECT id FROM listings WHERE search_seq >= {known}");
        if known > 0 {
            sql.push_str(&format!(
                " UNION SELECT listing_id FROM bookings WHERE search_seq >= {known}
                  UNION SELECT listing_id FROM maintenance_windows WHERE search_seq >= {known}"
            ));
        }
        let rows = self
            .conn()
            .query_all_raw(Statement::from_string(
                self.conn().get_database_backend(),
                sql,
            ))
            .await?;
        Ok(rows
            .iter()
            .map(|row| row.try_get_by_index::<Uuid>(0))
            .collect::<Result<_, _>>()?)
    }

    /// The listings `ids` with their cells and what holds their GPUs, as the index keeps
    /// them.
    async fn entries_of(&self, ids: &[Uuid]) -> Result<Vec<Entry>, StoreError> {
        let found = listings::Entity::find()
            .filter(listings::Column::Id.is_in(ids.iter().copied()))
            .all(self.conn())
            .await?;
        let mut cells: HashMap<Uuid, Vec<listing_cells::Model>> = HashMap::new();
        for cell in listing_cells::Entity::find()
            .filter(listing_cells::Column::ListingId.is_in(ids.iter().copied()))
            .all(self.conn())
            .await?
        {
            cells.entry(cell.listing_id).or_default().push(cell);
        }
        let gpus: HashMap<Uuid, i32> = found.iter().map(|l| (l.id, l.gpu_count)).collect();
        let mut held = self.held_by(&gpus).await?;
        Ok(found
            .into_iter()
            .map(|listing| {
                let cells = cells.remove(&listing.id).unwrap_or_default();
                let held = held.remove(&listing.id).unwrap_or_default();
                (listing, cells, held)
            })
            .collect())
    }

    /// What holds the GPUs of the listings `gpus` counts, or may: bookings holding capacity
    /// (those awaiting payment with their hold's expiry, decided at search time) and
    /// maintenance windows (every GPU the machine has as it is read), ending less than
    /// [`HELD_AFTER_END`] ago or later.
    async fn held_by(
        &self,
        gpus: &HashMap<Uuid, i32>,
    ) -> Result<HashMap<Uuid, Vec<Hold>>, StoreError> {
        use bookings::Column as B;
        use maintenance_windows::Column as W;
        let since = Utc::now() - HELD_AFTER_END;
        let ids = || gpus.keys().copied();
        let mut held: HashMap<Uuid, Vec<Hold>> = HashMap::new();
        let booked: Vec<BookedRow> = bookings::Entity::find()
            .select_only()
            .columns([B::Id, B::ListingId, B::StartsAt, B::EndsAt, B::GpuCount])
            .column(B::Status)
            .column(B::HoldExpiresAt)
            .filter(B::ListingId.is_in(ids()))
            .filter(B::EndsAt.gt(since))
            .filter(
                B::Status.is_in(
                    BookingStatus::ALL
                        .iter()
                        .filter(|s| s.holds_capacity())
                        .map(|s| s.as_str()),
                ),
            )
            .into_tuple()
            .all(self.conn())
            .await?;
        for (id, listing, starts, ends, gpus, status, expires) in booked {
            let status: BookingStatus = status
                .parse()
                .map_err(|e| StoreError::Corrupt(format!("booking {id}: {e}")))?;
            let hold = Hold {
                holding: Holding::booking(id.into(), (starts, ends), gpus),
                booking: Some((status, expires)),
            };
            held.entry(listing).or_default().push(hold);
        }
        let windows: Vec<(Uuid, Uuid, DateTime<Utc>, DateTime<Utc>)> =
            maintenance_windows::Entity::find()
                .select_only()
                .columns([W::Id, W::ListingId, W::StartsAt, W::EndsAt])
                .filter(W::ListingId.is_in(ids()))
                .filter(W::EndsAt.gt(since))
                .into_tuple()
                .all(self.conn())
                .await?;
        for (id, listing, starts, ends) in windows {
            let gpus = gpus.get(&listing).copied().unwrap_or_default();
            let hold = Hold {
                holding: Holding::window(id, (starts, ends), gpus),
                booking: None,
            };
            held.entry(listing).or_default().push(hold);
        }
        Ok(held)
    }

    /// Starts answering search from memory: loads the projection in the background and keeps
    /// it current until the process ends. `database_url` is where notifications are
    /// listened for (PostgreSQL). Calling it again changes nothing.
    pub fn serve_search_from_memory(&self, database_url: &str, options: MemoryOptions) {
        let memory = Arc::new(Memory {
            options,
            index: RwLock::new(Index::default()),
            catching_up: tokio::sync::Mutex::new(()),
            known: AtomicI64::new(0),
            seen_writes: AtomicU64::new(0),
            loaded: AtomicBool::new(false),
            over_cap: AtomicBool::new(false),
        });
        if self.search.memory.set(Arc::clone(&memory)).is_err() {
            return;
        }
        let db = self.clone();
        let url = database_url.to_owned();
        tokio::spawn(async move { follow(db, memory, url).await });
    }

    /// How search is answered now.
    pub fn search_memory_state(&self) -> MemoryState {
        self.search
            .memory
            .get()
            .map_or(MemoryState::Off, |m| m.state())
    }

    /// The memory search can be answered from, having read this process's own writes, or
    /// `None` when search must ask the database.
    async fn answering_memory(&self) -> Result<Option<&Memory>, StoreError> {
        let Some(memory) = self.search.memory.get() else {
            return Ok(None);
        };
        if !memory.loaded.load(Ordering::Acquire) {
            return Ok(None);
        }
        if memory.behind_own_writes(self) {
            memory.catch_up(self, true).await?;
        }
        if memory.over_cap.load(Ordering::Acquire) {
            return Ok(None);
        }
        Ok(Some(memory))
    }

    /// The page from memory, or `None` when search must ask the database.
    pub(crate) async fn search_in_memory(
        &self,
        query: &ListingQuery,
    ) -> Result<Option<Vec<ListingHit>>, StoreError> {
        let Some(memory) = self.answering_memory().await? else {
            return Ok(None);
        };
        let index = memory.index.read().unwrap_or_else(|e| e.into_inner());
        Ok(Some(index.search(query, memory.options.floor_probe)))
    }

    /// [`Db::search_free`]'s page from memory, or `None` when it must ask the database (the
    /// interval began longer ago than what memory keeps of ended bookings and windows).
    pub(crate) async fn search_free_in_memory(
        &self,
        query: &ListingQuery,
        needed: i32,
        now: DateTime<Utc>,
    ) -> Result<Option<FreePage>, StoreError> {
        let mut filling = Filling::new(query, needed);
        let window = filling.window();
        if window.0 <= Utc::now() - HELD_AFTER_END {
            return Ok(None);
        }
        let Some(memory) = self.answering_memory().await? else {
            return Ok(None);
        };
        let index = memory.index.read().unwrap_or_else(|e| e.into_inner());
        loop {
            let candidates = index.search(filling.query(), memory.options.floor_probe);
            if let Some(page) = filling.take(candidates, |id| index.held(id, window, now)) {
                return Ok(Some(page));
            }
        }
    }
}

/// Loads the index, then follows the change feed until the process ends. A failure is
/// logged and tried again: meanwhile search asks the database (before the first load) or
/// answers from what it holds (after).
async fn follow(db: Db, memory: Arc<Memory>, url: String) {
    let started = Instant::now();
    loop {
        match memory.catch_up(&db, false).await {
            Ok(()) => break,
            Err(e) => {
                tracing::warn!(error = %e, "loading search into memory failed; trying again");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
    memory.loaded.store(true, Ordering::Release);
    let state = memory.state();
    tracing::info!(
        ?state,
        elapsed_ms = started.elapsed().as_millis() as u64,
        "search loaded into memory"
    );
    let mut listener = None;
    loop {
        if db.backend() == Backend::Postgres && listener.is_none() {
            listener = listen(&url).await;
        }
        let heard = match listener.as_mut() {
            Some(listener) => tokio::select! {
                heard = listener.recv() => heard.map(|_| ()).map_err(|e| e.to_string()),
                () = tokio::time::sleep(memory.options.poll) => Ok(()),
            },
            None => {
                tokio::time::sleep(memory.options.poll).await;
                Ok(())
            }
        };
        if let Err(e) = heard {
            tracing::warn!(error = %e, "search's change notifications stopped; listening again");
            listener = None;
        }
        if let Err(e) = memory.catch_up(&db, false).await {
            tracing::warn!(error = %e, "search could not read the change feed; trying again");
        }
    }
}

async fn listen(url: &str) -> Option<PgListener> {
    let connected = async {
        let mut listener = PgListener::connect(url).await?;
        listener.listen(CHANNEL).await?;
        Ok::<_, sea_orm::sqlx::Error>(listener)
    };
    match connected.await {
        Ok(listener) => Some(listener),
        Err(e) => {
            tracing::warn!(error = %e, "listening for search's changes failed; reading them every poll");
            None
        }
    }
}
