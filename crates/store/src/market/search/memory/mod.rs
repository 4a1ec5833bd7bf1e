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

mod index;
mod order;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use domain::BookingStatus;
use domain::booking::{Holding, Tier};
use sea_orm::sqlx::postgres::PgListener;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect, Statement,
};
use uuid::Uuid;

use crate::entities::{bookings, listing_cells, listings, maintenance_windows};
use crate::market::search::query::{Filling, FreePage, ListingHit, ListingQuery};
use crate::status::listing_status;
use crate::{Backend, Db, StoreError};
use index::{BookedRow, Entry, Hold, Index};

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
            .column(B::Tier)
            .column(B::BidPerGpuHour)
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
        for (id, listing, starts, ends, gpus, status, expires, tier, bid) in booked {
            let status: BookingStatus = status
                .parse()
                .map_err(|e| StoreError::Corrupt(format!("booking {id}: {e}")))?;
            let hold = Hold {
                holding: Holding::booking(id.into(), (starts, ends), gpus).at(Tier::of(&tier, bid)),
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
