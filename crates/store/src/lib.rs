//! Persistence of gpumarket on PostgreSQL or SQLite, through sea-orm.
//!
//! [`Db`] is the one handle; repositories are `impl Db` blocks grouped by what they store,
//! and hand out plain records, never sea-orm models.

mod capacity;
mod entities;
mod feed;
pub mod identity;
pub mod market;
pub mod money;
pub mod operations;
mod outbox;
mod status;
pub mod tools;
pub mod trust;
use std::time::Duration;

use migration::{Migrator, MigratorTrait};
use sea_orm::sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DatabaseTransaction, DbBackend,
    DbErr, SqlErr, SqliteTransactionMode, TransactionOptions, TransactionTrait,
};

pub use capacity::ListingHolding;
pub use identity::accounts::{
    ApiKeyRecord, EmailTokenRecord, NewApiKey, NewRefreshToken, RefreshTokenRecord, UserRecord,
};
pub use identity::agents::{AgentHeartbeatRecord, ListingAgentRecord};
pub use identity::audit::{Audit, AuditRecord, MEMBER_INVITED as AUDIT_MEMBER_INVITED};
pub use identity::invitations::{Accepted, InvitationRecord, NewInvitation};
pub use identity::orgs::{MemberRecord, OrgRecord, PublicOrgRecord};
pub use identity::people::{ERASED_NAME, Erasure, PERSON_TABLES, PersonRows, erased_email};
pub use identity::ssh_keys::{SshKeyAdded, SshKeyRecord};
pub use market::bids::{BidRaiseRecord, NewBidRaise, RaiseError, RaisePaid};
pub use market::bookings::{BookingError, CancelClaim, Sweep};
pub use market::container_logs::ContainerLogsRecord;
pub use market::gateway::{GatewayRequestRecord, StreamLease};
pub use market::history::{BucketInputs, HistoryRecord};
pub use market::interruptible::DisplacedBooking;
pub use market::maintenance_windows::{
    Interrupted, InterruptionFigures, InterruptionRecord, WindowDeleted, WindowError,
};
pub use market::offers::{OfferCandidate, OfferQuery, PlanError, PlanRecord};
pub use market::search::memory::{MemoryOptions, MemoryState};
pub use market::search::query::{
    After, FreePage, ListingHit, ListingQuery, SharedListing, SortKey,
};
pub use money::billing::{BillingRecord, SubscriptionState};
pub use money::budgets::BudgetRecord;
pub use money::guarantees::{CreditRecord, GuaranteeRecord, no_guarantee};
pub use money::ledger::{LedgerRecord, NewLedgerEntry};
pub use money::payments::PayoutAccountRecord;
pub use money::refunds::RefundPart;
pub use operations::backup::{LedgerSum, ScratchDatabase};
pub use operations::webhooks::{
    AttemptOutcome, ClaimBudget, DeliveryClaim, DeliveryRecord, WebhookAttemptRecord,
    WebhookEndpointRecord, WebhookEventRecord, WebhookOwner,
};
pub use status::{Stored, badge_state, booking_status, listing_status, raise_status, run_status};
pub use trust::catalog_cells::{CatalogCellQuery, CatalogCellRecord};
pub use trust::community_runs::{
    CommunityCellRecord, CommunityRunQuery, CommunityRunRecord, Submitted,
};
pub use trust::liveness::{
    Observed, ProbeClaim, RELIABILITY_DAYS, UptimeStatementRecord, window_of,
};
pub use trust::org_reports::OrgReportRecord;
pub use trust::preflights::PreflightRecord;
pub use trust::projection::{Badge, CheckRecord, ProjectedCell, check_kind};
pub use trust::runs::{MeasuredClaim, RunRecord};
pub use trust::shares::{ShareKey, ShareRecord, visibility};
pub use trust::telemetry::{TelemetryPut, TelemetryRecord};
pub use trust::transparency::{CheckpointRecord, LogEntryRecord, LogFloor, NewLeaf};
pub use trust::verification::{
    CellFigures, CellRecord, EventRecord, NewReport, OverDailyQuota, PublicReportQuery,
    RUN_FINISHED, ReportRecord, SigningKeyRecord,
};

/// A listing as stored: every module reads it, so it is the crate's own (like [`Db`]).
pub type ListingRecord = entities::listings::Model;
/// A booking as stored (read by bookings, payments, guarantees, maintenance windows, …).
pub type BookingRecord = entities::bookings::Model;
/// A maintenance window as stored.
pub type WindowRecord = entities::maintenance_windows::Model;

/// What went wrong in the store. No HTTP here: the API decides what a client sees.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A unique value is taken; names the value (`email`, `member`, ...).
    #[error("{0} already exists")]
    Conflict(&'static str),
    /// The account acting was erased meanwhile (its erasure committed while the request
    /// waited for its lock).
    #[error("the account no longer exists")]
    AccountErased,
    /// The log was restored behind a checkpoint it had published: nothing is appended (or
    /// signed) while it is smaller, until the rollback is accepted.
    #[error(
        "signing is held: the log was restored with {size} leaves, behind the {floor} of the \
         checkpoint it had published; nothing is signed until the rollback is accepted \
         (gpumarket restore --accept-rollback)"
    )]
    SigningHeld { size: u64, floor: u64 },
    /// A row holds something this version cannot read (e.g. an unknown role).
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Database(#[from] DbErr),
}

impl StoreError {
    /// Whether the database could not be reached (down, restarting, its connections ended, the
    /// pool exhausted): nothing this error ends was decided by it, and the request may be
    /// tried again (a commit whose answer was lost may have landed: an idempotency key tells).
    pub fn is_unavailable(&self) -> bool {
        match self {
            Self::Database(DbErr::ConnectionAcquire(_)) => true,
            Self::Database(DbErr::Conn(e) | DbErr::Exec(e) | DbErr::Query(e)) => {
                unreachable_database(e)
            }
            _ => false,
        }
    }
}

fn unreachable_database(e: &sea_orm::RuntimeErr) -> bool {
    use sea_orm::sqlx::Error;
    let sea_orm::RuntimeErr::SqlxError(e) = e else {
        return false;
    };
    match e.as_ref() {
        Error::Io(_) | Error::PoolTimedOut | Error::PoolClosed | Error::WorkerCrashed => true,
        // PostgreSQL's connection exceptions (08…) and operator intervention (57P01 admin
        // shutdown, 57P02 crash shutdown, 57P03 cannot connect now).
        Error::Database(db) => db
            .code()
            .is_some_and(|code| code.starts_with("08") || code.starts_with("57P")),
        _ => false,
    }
}

/// The advisory lock migrations on PostgreSQL are applied under.
const MIGRATION_LOCK: i64 = 0x6770_6d69_6772;

/// Which database engine is behind a [`Db`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Postgres,
    Sqlite,
}

/// The connection pool, and the repositories as methods on it.
#[derive(Debug, Clone)]
pub struct Db {
    conn: DatabaseConnection,
    /// Search from memory, shared by every clone.
    search: std::sync::Arc<market::search::memory::SearchShared>,
    /// This process's writes to what search reads, shared by every clone.
    writes: std::sync::Arc<feed::LocalWrites>,
}

impl Db {
    /// Connects to `url` (`postgres://…` or `sqlite://…`). A SQLite file is created when it
    /// does not exist yet, and runs in WAL mode so readers never wait for the writer.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let mut options = ConnectOptions::new(url.to_owned());
        options
            .max_connections(if url.starts_with("sqlite") { 8 } else { 16 })
            .min_connections(1)
            .connect_timeout(Duration::from_secs(5))
            .acquire_timeout(Duration::from_secs(10))
            .sqlx_logging(false)
            .map_sqlx_sqlite_opts(|opts: SqliteConnectOptions| {
                opts.create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(SqliteSynchronous::Normal)
                    .busy_timeout(Duration::from_secs(10))
                    .foreign_keys(true)
                    // Read pages through a shared memory map rather than a read() per page
                    // into each connection's private cache.
                    .pragma("mmap_size", "1073741824")
            });
        let conn = Database::connect(options).await?;
        Ok(Self {
            conn,
            search: std::sync::Arc::default(),
            writes: std::sync::Arc::default(),
        })
    }

    /// Applies every pending migration. Safe to call on every start.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        if self.backend() == Backend::Sqlite {
            Migrator::up(&self.conn, None).await?;
            return Ok(());
        }
        // Replicas starting together on PostgreSQL migrate one at a time: the others wait
        // on this lock, held by a transaction of its own, and then find nothing to apply.
        let lock = self.conn.begin().await?;
        lock.execute_unprepared(&format!("SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"))
            .await?;
        let migrated = Migrator::up(&self.conn, None).await;
        lock.commit().await?;
        Ok(migrated?)
    }

    /// Names of the migrations applied so far, oldest first.
    pub async fn applied_migrations(&self) -> Result<Vec<String>, StoreError> {
        Ok(Migrator::get_applied_migrations(&self.conn)
            .await?
            .iter()
            .map(|m| m.name().to_owned())
            .collect())
    }

    /// Names of this binary's migrations the database has not applied, oldest first. Unlike
    /// migrating, a database ahead of the binary (a newer release's migrations, after a
    /// rollback) is no error: what it has beyond is not asked about.
    pub async fn unapplied_migrations(&self) -> Result<Vec<String>, StoreError> {
        let backend = self.conn.get_database_backend();
        let exists = match self.backend() {
            Backend::Postgres => {
                "SELECT COUNT(*) FROM information_schema.tables \
                 WHERE table_schema = current_schema() AND table_name = 'seaql_migrations'"
            }
            Backend::Sqlite => {
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'seaql_migrations'"
            }
        };
        let row = self
            .conn
            .query_one_raw(sea_orm::Statement::from_string(backend, exists))
            .await?;
        let applied: std::collections::HashSet<String> =
            match row.map(|r| r.try_get_by_index::<i64>(0)).transpose()? {
                Some(n) if n > 0 => self
                    .conn
                    .query_all_raw(sea_orm::Statement::from_string(
                        backend,
                        "SELECT version FROM seaql_migrations",
                    ))
                    .await?
                    .iter()
                    .map(|r| r.try_get_by_index::<String>(0))
                    .collect::<Result<_, _>>()?,
                _ => Default::default(),
            };
        Ok(Migrator::migrations()
            .iter()
            .map(|m| m.name().to_owned())
            .filter(|name| !applied.contains(name))
            .collect())
    }

    /// Rolls back every migration (tests and disaster recovery only).
    pub async fn migrate_down_all(&self) -> Result<(), StoreError> {
        Migrator::down(&self.conn, None).await?;
        Ok(())
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.conn.ping().await?;
        Ok(())
    }

    /// Refreshes the query planner's statistics (after a bulk load).
    pub async fn analyze(&self) -> Result<(), StoreError> {
        self.conn.execute_unprepared("ANALYZE").await?;
        Ok(())
    }

    pub fn backend(&self) -> Backend {
        match self.conn.get_database_backend() {
            DbBackend::Sqlite => Backend::Sqlite,
            _ => Backend::Postgres,
        }
    }

    pub async fn close(self) -> Result<(), StoreError> {
        self.conn.close().await?;
        Ok(())
    }

    pub(crate) fn conn(&self) -> &DatabaseConnection {
        &self.conn
    }

    /// Starts a transaction that will write. On SQLite it takes the write lock at once
    /// (`BEGIN IMMEDIATE`), waiting up to the busy timeout for it. A deferred transaction
    /// that reads first and writes later fails at once with "database is locked" when
    /// another connection committed since its read began (WAL's snapshot rule): no wait can
    /// help it, so a worker's write lost to the reconciler's sweep would fail a run.
    /// PostgreSQL ignores the mode.
    pub(crate) async fn write(&self) -> Result<DatabaseTransaction, DbErr> {
        self.conn
            .begin_with_options(TransactionOptions {
                sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
                ..TransactionOptions::default()
            })
            .await
    }
}

/// Maps a unique-constraint violation to [`StoreError::Conflict`] naming `what`.
pub(crate) fn conflict_as(what: &'static str) -> impl FnOnce(DbErr) -> StoreError {
    move |err| match err.sql_err() {
        Some(SqlErr::UniqueConstraintViolation(_)) => StoreError::Conflict(what),
        _ => StoreError::Database(err),
    }
}
