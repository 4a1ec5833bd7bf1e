//! The index of one replica: each searchable listing's facts, its cells and what holds its
//! GPUs, and the filters and orders a query is answered by.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use domain::BookingStatus;
use domain::booking::{Holding, holds_gpus};
use uuid::Uuid;

use super::{order::At, order::Key, order::Order, order::Orders, order::change, order::descending};
use crate::ListingRecord;
use crate::entities::listing_cells;
use crate::market::search::query::{After, ListingHit, ListingQuery, SharedListing, SortKey};

/// The filters an ordered set's entry answers without reading the listing.
impl At {
    /// Whether a listing may pass `p`: `false` only when one of these filters fails.
    pub(super) fn may_pass(&self, p: &Prepared<'_>, model: Option<u32>) -> bool {
        let q = p.q;
        model.is_none_or(|m| m == self.model)
            && p.region.is_none_or(|r| r as u32 == self.region)
            && q.min_vram_gb.is_none_or(|v| self.vram_gb >= v)
            && q.min_gpu_count.is_none_or(|n| self.gpu_count >= n)
            && (!q.verified_only || self.verified)
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
pub(super) struct Cell {
    pub(super) at: (i64, i64),
    pub(super) price: i64,
    pub(super) tok_s: f64,
    pub(super) per_mtok: f64,
    pub(super) j_per_token: Option<f64>,
    /// The cell's GPU model where it is not the listing's (it is written as the listing's).
    pub(super) model: Option<Box<str>>,
}

impl Cell {
    fn of(cell: listing_cells::Model, listing_model: &str) -> Self {
        Self {
            at: (cell.context_tokens, cell.concurrency),
            price: cell.price_amount,
            tok_s: cell.total_tok_s,
            per_mtok: cell.price_per_mtok,
            j_per_token: cell.energy_j_per_token,
            model: (cell.gpu_model != listing_model).then(|| cell.gpu_model.into_boxed_str()),
        }
    }

    pub(super) fn keys(&self) -> [Option<f64>; 4] {
        [
            Some(self.price as f64),
            Some(self.tok_s),
            Some(self.per_mtok),
            self.j_per_token,
        ]
    }
}

/// Something that may hold a listing's GPUs: a booking (in its status, with its hold's
/// expiry: whether it holds is decided at search time), or a maintenance window (every GPU).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Hold {
    pub(super) holding: Holding,
    /// A booking's status and hold's expiry; `None` for a window.
    pub(super) booking: Option<(BookingStatus, Option<DateTime<Utc>>)>,
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
pub(super) struct Facts {
    pub(super) active: bool,
    pub(super) verified: bool,
    pub(super) hardware_confirmed: bool,
    pub(super) vram_gb: i32,
    pub(super) gpu_count: i32,
    pub(super) price: i64,
    pub(super) model: u64,
    pub(super) catalog: Option<u64>,
    pub(super) currency: u64,
    pub(super) region: u64,
    pub(super) engine: Option<u64>,
    pub(super) reliability: Option<f64>,
    pub(super) tok_s: Option<f64>,
    pub(super) per_mtok: Option<f64>,
    pub(super) available_from: Option<DateTime<Utc>>,
    pub(super) available_until: Option<DateTime<Utc>>,
    pub(super) cells: Box<[Cell]>,
    pub(super) holds: Box<[Hold]>,
}

impl Facts {
    fn of(l: &ListingRecord, cells: Vec<listing_cells::Model>, holds: Vec<Hold>) -> Self {
        Self {
            active: l.status == domain::ListingStatus::Active,
            verified: l.latest_report_id.is_some(),
            hardware_confirmed: l.hardware_confirmed,
            vram_gb: l.vram_gb,
            gpu_count: l.gpu_count,
            price: l.price_amount,
            model: fingerprint(&l.gpu_model),
            catalog: l.catalog_gpu.as_deref().map(fingerprint),
            currency: fingerprint(&l.currency),
            region: fingerprint(&l.region),
            engine: l.measured_engine.as_deref().map(fingerprint),
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

    fn headline_keys(&self) -> Option<[Option<f64>; 4]> {
        self.active
            .then_some([Some(self.price as f64), self.tok_s, self.per_mtok, None])
    }

    fn cell(&self, at: (i64, i64)) -> Option<&Cell> {
        self.cells.iter().find(|c| c.at == at)
    }
}

/// A query with its texts' fingerprints, taken once.
pub(super) struct Prepared<'q> {
    pub(super) q: &'q ListingQuery,
    pub(super) model: Option<u64>,
    pub(super) gpu: Option<(u64, Vec<u64>)>,
    pub(super) currency: Option<u64>,
    pub(super) region: Option<u64>,
    pub(super) engine: Option<u64>,
}

impl<'q> Prepared<'q> {
    pub(super) fn new(q: &'q ListingQuery) -> Self {
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
            engine: q.engine.as_deref().map(fingerprint),
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
    fn figures(&self, f: &Facts) -> Option<Figures> {
        let q = self.q;
        let (price, tok_s, per_mtok, j_per_token) = match q.cell {
            None => {
                if !f.active {
                    return None;
                }
                (f.price, f.tok_s, f.per_mtok, None)
            }
            Some(at) => {
                let c = f.cell(at)?;
                (c.price, Some(c.tok_s), Some(c.per_mtok), c.j_per_token)
            }
        };
        let at_least = |value: Option<f64>, min: Option<f64>| match min {
            None => true,
            Some(min) => value.is_some_and(|v| v >= min),
        };
        let pass = q.max_price.is_none_or(|max| price <= max)
            && at_least(tok_s, q.min_total_tok_s)
            && q.max_j_per_token
                .is_none_or(|max| j_per_token.is_some_and(|j| j <= max))
            && q.min_vram_gb.is_none_or(|v| f.vram_gb >= v)
            && self.currency.is_none_or(|c| f.currency == c)
            && self.region.is_none_or(|r| f.region == r)
            && self.engine.is_none_or(|e| f.engine == Some(e))
            && (!q.verified_only || f.verified)
            && (!q.hardware_confirmed || f.hardware_confirmed)
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
        (pass && model_may_match).then_some((tok_s, per_mtok, j_per_token))
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
            && q.engine
                .as_deref()
                .is_none_or(|e| l.measured_engine.as_deref() == Some(e))
            && q.gpu.as_ref().is_none_or(|(id, names)| {
                l.catalog_gpu.as_deref() == Some(id.as_str()) || names.contains(&l.gpu_model)
            })
    }
}

/// The listings search can find, by slot.
#[derive(Debug, Default)]
pub(super) struct Index {
    pub(super) slots: HashMap<Uuid, u32>,
    pub(super) facts: Vec<Option<Facts>>,
    pub(super) records: Vec<Option<Arc<SharedListing>>>,
    pub(super) free: Vec<u32>,
    /// Per search shape (a decode cell, or `None` for the headline figures) and GPU model (`None`: of
    /// every model), its orders: a search naming a model walks that model's listings only.
    pub(super) orders: HashMap<(Shape, Option<u32>), Orders>,
    /// Every kept listing with a reliability, by it.
    pub(super) reliable: Order,
}

impl Index {
    pub(super) fn len(&self) -> usize {
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

    pub(super) fn remove(&mut self, id: Uuid) {
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

    pub(super) fn put(
        &mut self,
        listing: ListingRecord,
        cells: Vec<listing_cells::Model>,
        holds: Vec<Hold>,
    ) {
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
    pub(super) fn search(&self, q: &ListingQuery, floor_probe: usize) -> Vec<ListingHit> {
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
            .filter_map(|(slot, (tok_s, per_mtok, j_per_token))| {
                let record = self.records.get(slot as usize)?.as_ref()?;
                Some(ListingHit {
                    listing: Arc::clone(record),
                    total_tok_s: tok_s,
                    price_per_mtok: per_mtok,
                    energy_j_per_token: j_per_token,
                })
            })
            .collect()
    }

    /// What holds listing `id`'s GPUs over `window` at `now`.
    pub(super) fn held(
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
        let figures = p.figures(facts)?;
        let record = self.records.get(slot)?.as_deref()?;
        p.confirm(facts, record).then_some((at.slot, figures))
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
            SortKey::JPerToken => q.max_j_per_token.is_some_and(|max| key > max),
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
            SortKey::TokS => hit.1.0,
            SortKey::PricePerMtok => hit.1.1,
            SortKey::JPerToken => hit.1.2,
            SortKey::Reliability => facts.reliability,
        }
    }
}

/// Where a listing goes in a shape's orders: the shape (a decode cell, or `None` for the
/// headline figures), its keys in them, the model it is found by there.
type Placed = (Shape, [Option<f64>; 4], u64);

/// A search shape: a decode cell `(context, concurrency)`, or `None` for the headline figures.
type Shape = Option<(i64, i64)>;

/// The figures a listing is found and ordered by: total tok/s, price per Mtok, energy per
/// token (at the query's cell, or the headline's).
type Figures = (Option<f64>, Option<f64>, Option<f64>);

/// A listing a search found: its slot and the figures it was found by.
type Found = (u32, Figures);

/// A booking as memory reads it: its id, listing, interval, GPUs, status and hold's expiry.
pub(super) type BookedRow = (
    Uuid,
    Uuid,
    DateTime<Utc>,
    DateTime<Utc>,
    i32,
    String,
    Option<DateTime<Utc>>,
    String,
    Option<i64>,
);

/// A listing as the index is given it: its record, cells and what holds its GPUs.
pub(super) type Entry = (ListingRecord, Vec<listing_cells::Model>, Vec<Hold>);
