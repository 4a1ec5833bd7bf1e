//! Search from memory: an API replica keeps the search projection (active listings, the
//! valid decode cells of their latest reports, reliability, badges, availability windows)
//! in ordered sets, one per order search walks, and answers [`Db::search_listings`] from
//! them without asking the database. The answers are the database's: the same filters, the
//! same orders, ties broken by id the same way, the same keyset cursors (so a cursor from
//! one replica is valid on another).
//!
//! It is kept current from the database's change feed (migration 000028): each listing
//! carries the number of its latest change (`search_seq`), and a replica reads the listings
//! changed since its last mark. It does so:
//! - at once when a notification arrives (PostgreSQL's `LISTEN gpumarket_search`);
//! - every [`MemoryOptions::poll`] anyway, which catches a missed notification and, on
//!   SQLite, changes made by another process;
//! - before answering, when this process has written to the projection since its last catch-up
//!   (`Db::search_touched`): a replica reads its own writes.
//!
//! Until it is loaded, or when the marketplace outgrows [`MemoryOptions::max_listings`],
//! search asks the database, as it did before.

use std::collections::{BTreeSet, HashMap};
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use sea_orm::sqlx::postgres::PgListener;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, Statement};
use uuid::Uuid;

use crate::entities::{listing_cells, listings};
use crate::listings::ListingRecord;
use crate::search::{ListingHit, ListingQuery, SortKey};
use crate::status::listing_status;
use crate::{Backend, Db, StoreError};

/// The channel PostgreSQL notifies on (migration 000028's triggers).
const CHANNEL: &str = "gpumarket_search";
/// Ids fetched per query when catching up.
const BATCH: usize = 1_000;

/// How a replica keeps search in memory.
#[derive(Debug, Clone, Copy)]
pub struct MemoryOptions {
    /// The most listings (active, or holding cells) kept; beyond it search asks the database.
    pub max_listings: usize,
    /// How often the change feed is read without a notification.
    pub poll: Duration,
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
    /// The marketplace holds more listings than the cap: search asks the database.
    OverCap { listings: usize },
}

/// The shared part of every clone of a [`Db`]: whether search is served from memory, and
/// how many writes this process made to what search reads.
#[derive(Debug, Default)]
pub(crate) struct SearchShared {
    memory: OnceLock<Arc<Memory>>,
    local_writes: AtomicU64,
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

/// An ordered set of `(sort value, listing id)`: the order a search walks, ties by id.
type Order = BTreeSet<(Key, Uuid)>;

fn change(order: &mut Order, key: Option<f64>, id: Uuid, insert: bool) {
    if let Some(key) = key {
        if insert {
            order.insert((Key::new(key), id));
        } else {
            order.remove(&(Key::new(key), id));
        }
    }
}

/// The listings of one search shape in its orders by price, tok/s and price per Mtok. (The
/// reliability order is the listing's own, shared by every shape: [`Index::reliable`].)
#[derive(Debug, Default)]
struct Orders([Order; 3]);

impl Orders {
    fn change(&mut self, id: Uuid, keys: [Option<f64>; 3], insert: bool) {
        for (order, key) in self.0.iter_mut().zip(keys) {
            change(order, key, id, insert);
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

#[derive(Debug)]
struct Entry {
    listing: ListingRecord,
    cells: Vec<Cell>,
}

impl Entry {
    fn new(listing: ListingRecord, cells: Vec<listing_cells::Model>) -> Self {
        let cells = cells
            .into_iter()
            .map(|c| Cell::of(c, &listing.gpu_model))
            .collect();
        Self { listing, cells }
    }

    fn active(&self) -> bool {
        self.listing.status == listing_status::ACTIVE
    }

    /// Kept while search can find it: active, or holding cells (the cell search reads the
    /// cells, which exist for active listings only, without the listing's status).
    fn kept(&self) -> bool {
        self.active() || !self.cells.is_empty()
    }

    fn headline_keys(&self) -> Option<[Option<f64>; 3]> {
        let l = &self.listing;
        self.active().then_some([
            Some(l.price_amount as f64),
            l.headline_total_tok_s,
            l.headline_price_per_mtok,
        ])
    }

    fn cell(&self, at: (i64, i64)) -> Option<&Cell> {
        self.cells.iter().find(|c| c.at == at)
    }

    /// The filters on the listing's own columns, as `search::listing_filters` writes them.
    fn passes(&self, q: &ListingQuery) -> bool {
        let l = &self.listing;
        if let Some((id, names)) = &q.gpu
            && l.catalog_gpu.as_deref() != Some(id.as_str())
            && !names.contains(&l.gpu_model)
        {
            return false;
        }
        let at_least = |value: Option<f64>, min: Option<f64>| match min {
            None => true,
            Some(min) => value.is_some_and(|v| v >= min),
        };
        q.min_vram_gb.is_none_or(|v| l.vram_gb >= v)
            && q.currency.as_ref().is_none_or(|c| &l.currency == c)
            && q.region.as_ref().is_none_or(|r| &l.region == r)
            && (!q.verified_only || l.latest_report_id.is_some())
            && q.min_gpu_count.is_none_or(|n| l.gpu_count >= n)
            && at_least(l.reliability, q.min_reliability)
            && q.window.is_none_or(|(from, until)| {
                l.available_from.is_none_or(|f| f <= from)
                    && l.available_until.is_none_or(|u| u >= until)
            })
    }
}

#[derive(Debug, Default)]
struct Index {
    listings: HashMap<Uuid, Entry>,
    headline: Orders,
    cells: HashMap<(i64, i64), Orders>,
    /// Every kept listing with a reliability, by it.
    reliable: Order,
}

impl Index {
    fn change(&mut self, entry: &Entry, insert: bool) {
        let id = entry.listing.id;
        if let Some(keys) = entry.headline_keys() {
            self.headline.change(id, keys, insert);
        }
        for cell in &entry.cells {
            self.cells
                .entry(cell.at)
                .or_default()
                .change(id, cell.keys(), insert);
        }
        change(&mut self.reliable, entry.listing.reliability, id, insert);
    }

    fn remove(&mut self, id: Uuid) {
        if let Some(entry) = self.listings.remove(&id) {
            self.change(&entry, false);
        }
    }

    fn put(&mut self, entry: Entry) {
        self.remove(entry.listing.id);
        if entry.kept() {
            self.change(&entry, true);
            self.listings.insert(entry.listing.id, entry);
        }
    }

    /// One page, walking the order asked for from the cursor and keeping what passes.
    fn search(&self, q: &ListingQuery) -> Vec<ListingHit> {
        let orders = match q.cell {
            None => &self.headline,
            Some(cell) => match self.cells.get(&cell) {
                Some(orders) => orders,
                None => return Vec::new(),
            },
        };
        let order = orders.get(q.sort).unwrap_or(&self.reliable);
        let walk: Box<dyn Iterator<Item = &(Key, Uuid)>> = match (q.after, descending(q.sort)) {
            (None, false) => Box::new(order.iter()),
            (None, true) => Box::new(order.iter().rev()),
            (Some(a), false) => Box::new(
                order.range((Bound::Excluded((Key::new(a.value), a.id)), Bound::Unbounded)),
            ),
            (Some(a), true) => Box::new(order.range(..(Key::new(a.value), a.id)).rev()),
        };
        let limit = usize::try_from(q.limit).unwrap_or(usize::MAX);
        let mut hits = Vec::new();
        for (_, id) in walk {
            if hits.len() >= limit {
                break;
            }
            if let Some(hit) = self.listings.get(id).and_then(|e| hit_of(e, q)) {
                hits.push(hit);
            }
        }
        hits
    }
}

/// The hit `entry` makes for `q`, when it passes every filter.
fn hit_of(entry: &Entry, q: &ListingQuery) -> Option<ListingHit> {
    let l = &entry.listing;
    let (model, price, tok_s, per_mtok) = match q.cell {
        None => {
            if !entry.active() {
                return None;
            }
            (
                l.gpu_model.as_str(),
                l.price_amount,
                l.headline_total_tok_s,
                l.headline_price_per_mtok,
            )
        }
        Some(at) => {
            let c = entry.cell(at)?;
            (
                c.model.as_deref().unwrap_or(&l.gpu_model),
                c.price,
                Some(c.tok_s),
                Some(c.per_mtok),
            )
        }
    };
    let pass = q.gpu_model.as_ref().is_none_or(|m| m == model)
        && q.max_price.is_none_or(|max| price <= max)
        && q.min_total_tok_s
            .is_none_or(|min| tok_s.is_some_and(|t| t >= min))
        && entry.passes(q);
    pass.then(|| ListingHit {
        listing: l.clone(),
        total_tok_s: tok_s,
        price_per_mtok: per_mtok,
    })
}

/// See [`Db::search_touch`].
pub(crate) struct SearchTouch<'a>(&'a SearchShared);

impl Drop for SearchTouch<'_> {
    fn drop(&mut self) {
        self.0.local_writes.fetch_add(1, Ordering::AcqRel);
    }
}

impl Memory {
    fn state(&self) -> MemoryState {
        let listings = self.index.read().map_or(0, |i| i.listings.len());
        if self.over_cap.load(Ordering::Acquire) {
            MemoryState::OverCap { listings }
        } else if self.loaded.load(Ordering::Acquire) {
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
        let writes = db.search.local_writes.load(Ordering::Acquire);
        let mark = db.search_mark().await?;
        let known = self.known.load(Ordering::Acquire);
        let changed: Vec<Uuid> = listings::Entity::find()
            .select_only()
            .column(listings::Column::Id)
            .filter(sea_orm::sea_query::Expr::cust(format!(
                "search_seq >= {known}"
            )))
            .into_tuple()
            .all(db.conn())
            .await?;
        for batch in changed.chunks(BATCH) {
            let entries = db.entries_of(batch).await?;
            let mut index = self.index.write().unwrap_or_else(|e| e.into_inner());
            for id in batch {
                index.remove(*id);
            }
            for entry in entries {
                index.put(entry);
            }
            self.check_cap(index.listings.len());
        }
        self.known.store(mark, Ordering::Release);
        self.seen_writes.store(writes, Ordering::Release);
        Ok(())
    }

    fn check_cap(&self, listings: usize) {
        let over = listings > self.options.max_listings;
        if over != self.over_cap.swap(over, Ordering::AcqRel) {
            if over {
                tracing::warn!(
                    listings,
                    max = self.options.max_listings,
                    "search no longer fits in memory: it asks the database"
                );
            } else {
                tracing::info!(listings, "search is answered from memory again");
            }
        }
    }

    /// Whether this process wrote to what search reads since the last catch-up began.
    fn behind_own_writes(&self, db: &Db) -> bool {
        db.search.local_writes.load(Ordering::Acquire) != self.seen_writes.load(Ordering::Acquire)
    }
}

impl Db {
    /// Notes, when dropped, that this process may have changed what search reads: the next
    /// search from memory catches up first. A write path holds one from its start, so the
    /// note follows its commit (an error's note costs one catch-up, nothing else).
    pub(crate) fn search_touch(&self) -> SearchTouch<'_> {
        SearchTouch(&self.search)
    }

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

    /// The listings `ids` with their cells, as the index keeps them.
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
        Ok(found
            .into_iter()
            .map(|listing| {
                let cells = cells.remove(&listing.id).unwrap_or_default();
                Entry::new(listing, cells)
            })
            .collect())
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

    /// The page from memory, or `None` when search must ask the database.
    pub(crate) async fn search_in_memory(
        &self,
        query: &ListingQuery,
    ) -> Result<Option<Vec<ListingHit>>, StoreError> {
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
        let index = memory.index.read().unwrap_or_else(|e| e.into_inner());
        Ok(Some(index.search(query)))
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
