//! A fresh database per test, on either backend, so tests run in parallel.
//!
//! PostgreSQL: a template database is migrated once (under an advisory lock, rebuilt when the
//! set of migrations changes) and each test gets `CREATE DATABASE … TEMPLATE` of it, dropped
//! when the test ends. SQLite: a file in a temporary directory, migrated.
//!
//! The server is found at `TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/test`); when it is not there the test fails with a
//! message that says how to start it — never a silent skip.

use std::sync::Arc;
use std::time::Duration;

use migration::{Migrator, MigratorTrait};
use sea_orm::sqlx::{AssertSqlSafe, Connection, PgConnection, Row};

use crate::operations::backup::replace_database;
use crate::{Backend, Db, StoreError};

mod search;
pub use search::{
    SEARCH_CELLS, SEARCH_MODELS, SEARCH_REGIONS, search_change, search_day, search_hold,
    search_hold_change, search_marketplace,
};

const DEFAULT_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/test";
const TEMPLATE: &str = "gpumarket_test_template";
/// Serialises template (re)builds and clones across every test process.
const LOCK_KEY: i64 = 0x6770_756d_6b74;

/// The URL of the PostgreSQL server tests use.
pub fn postgres_admin_url() -> String {
    std::env::var("TEST_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_POSTGRES_URL.to_owned())
}

/// A database that exists for one test. Dropping it removes the database.
#[derive(Debug)]
pub struct TestDatabase {
    url: String,
    cleanup: Cleanup,
}

#[derive(Debug)]
enum Cleanup {
    Sqlite(#[allow(dead_code)] Arc<tempfile::TempDir>),
    Postgres { admin_url: String, name: String },
}

impl TestDatabase {
    /// A fresh, fully migrated database on `backend`.
    pub async fn new(backend: Backend) -> Result<Self, StoreError> {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir()
                    .map_err(|e| StoreError::Corrupt(format!("temporary directory: {e}")))?;
                let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
                let db = Db::connect(&url).await?;
                db.migrate().await?;
                db.close().await?;
                Ok(Self {
                    url,
                    cleanup: Cleanup::Sqlite(Arc::new(dir)),
                })
            }
            Backend::Postgres => {
                let admin_url = postgres_admin_url();
                let name = format!("gpumarket_test_{}", uuid::Uuid::new_v4().simple());
                clone_template(&admin_url, &name).await?;
                Ok(Self {
                    url: replace_database(&admin_url, &name),
                    cleanup: Cleanup::Postgres { admin_url, name },
                })
            }
        }
    }

    /// An empty database with no migrations applied (for migration tests).
    pub async fn empty(backend: Backend) -> Result<Self, StoreError> {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir()
                    .map_err(|e| StoreError::Corrupt(format!("temporary directory: {e}")))?;
                let url = format!("sqlite://{}?mode=rwc", dir.path().join("test.db").display());
                Ok(Self {
                    url,
                    cleanup: Cleanup::Sqlite(Arc::new(dir)),
                })
            }
            Backend::Postgres => {
                let admin_url = postgres_admin_url();
                let name = format!("gpumarket_test_{}", uuid::Uuid::new_v4().simple());
                let mut admin = admin_connection(&admin_url).await?;
                execute(&mut admin, format!("CREATE DATABASE {name}")).await?;
                Ok(Self {
                    url: replace_database(&admin_url, &name),
                    cleanup: Cleanup::Postgres { admin_url, name },
                })
            }
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let Cleanup::Postgres { admin_url, name } = &self.cleanup else {
            return;
        };
        let (admin_url, name) = (admin_url.clone(), name.clone());
        // Drop runs inside the test's runtime, which cannot be blocked on; a thread with its
        // own small runtime does the DROP and is joined so the database is gone afterwards.
        let dropped = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(async {
                if let Ok(mut admin) = admin_connection(&admin_url).await {
                    let sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                    let _ = execute(&mut admin, sql).await;
                }
            });
        });
        let _ = dropped.join();
    }
}

fn sqlx_err(err: sea_orm::sqlx::Error) -> StoreError {
    StoreError::Database(sea_orm::DbErr::Custom(err.to_string()))
}

/// Runs one statement whose identifiers this module made itself (database names from UUIDs
/// and constants), which is why building it with `format!` is safe here.
async fn execute(admin: &mut PgConnection, sql: String) -> Result<(), StoreError> {
    sea_orm::sqlx::query(AssertSqlSafe(sql))
        .execute(admin)
        .await
        .map_err(sqlx_err)?;
    Ok(())
}

async fn admin_connection(admin_url: &str) -> Result<PgConnection, StoreError> {
    let connect = PgConnection::connect(admin_url);
    match tokio::time::timeout(Duration::from_secs(10), connect).await {
        Ok(Ok(conn)) => Ok(conn),
        Ok(Err(err)) => Err(StoreError::Database(sea_orm::DbErr::Custom(format!(
            "PostgreSQL is not reachable at {admin_url} ({err}). Tests need it: start it with \
             `docker compose up -d postgres redis` (or your local PostgreSQL), or point \
             TEST_POSTGRES_URL at one"
        )))),
        Err(_) => Err(StoreError::Database(sea_orm::DbErr::Custom(format!(
            "PostgreSQL at {admin_url} did not answer within 10 s. Start it with \
             `docker compose up -d postgres redis`, or point TEST_POSTGRES_URL at one"
        )))),
    }
}

/// The migrations a template must hold to be current: their names, and the digests of their
/// texts (`migrations/landed.sha256`), so a migration edited before it lands (never after)
/// rebuilds the template too.
fn fingerprint() -> String {
    let digests: Vec<&str> = include_str!("../../../../migrations/landed.sha256")
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    let names = Migrator::migrations()
        .iter()
        .map(|m| m.name().to_owned())
        .collect::<Vec<_>>()
        .join(",");
    format!("{names};{}", digests.join(","))
}

async fn clone_template(admin_url: &str, name: &str) -> Result<(), StoreError> {
    let mut admin = admin_connection(admin_url).await?;
    sea_orm::sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(LOCK_KEY)
        .execute(&mut admin)
        .await
        .map_err(sqlx_err)?;
    let result = clone_template_locked(&mut admin, admin_url, name).await;
    let _ = sea_orm::sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(LOCK_KEY)
        .execute(&mut admin)
        .await;
    result
}

async fn clone_template_locked(
    admin: &mut PgConnection,
    admin_url: &str,
    name: &str,
) -> Result<(), StoreError> {
    let current: Option<String> = sea_orm::sqlx::query(
        "SELECT shobj_description(oid, 'pg_database') AS fingerprint \
         FROM pg_database WHERE datname = $1",
    )
    .bind(TEMPLATE)
    .fetch_optional(&mut *admin)
    .await
    .map_err(sqlx_err)?
    .and_then(|row| row.try_get("fingerprint").ok());
    let wanted = fingerprint();
    if current.as_deref() != Some(wanted.as_str()) {
        for sql in [
            format!("DROP DATABASE IF EXISTS {TEMPLATE} WITH (FORCE)"),
            format!("CREATE DATABASE {TEMPLATE}"),
        ] {
            execute(admin, sql).await?;
        }
        let db = Db::connect(&replace_database(admin_url, TEMPLATE)).await?;
        db.migrate().await?;
        db.close().await?;
        // Only a fully migrated template gets its fingerprint, so a crash above is rebuilt.
        let comment = format!(
            "COMMENT ON DATABASE {TEMPLATE} IS '{}'",
            wanted.replace('\'', "''")
        );
        execute(admin, comment).await?;
    }
    execute(admin, format!("CREATE DATABASE {name} TEMPLATE {TEMPLATE}")).await
}

impl Db {
    /// Moves a booking's hold expiry (tests of the sweeper cannot wait for the clock).
    pub async fn set_hold_expiry(
        &self,
        booking: uuid::Uuid,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), StoreError> {
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, sea_query::Expr};
        crate::entities::bookings::Entity::update_many()
            .col_expr(
                crate::entities::bookings::Column::HoldExpiresAt,
                Expr::value(at),
            )
            .filter(crate::entities::bookings::Column::Id.eq(booking))
            .exec(self.conn())
            .await?;
        Ok(())
    }

    /// Stores `window` as it is, as windows announced before windows interrupted bookings
    /// were (one that cancelled `cancelled_bookings`), without deciding anything.
    pub async fn insert_window_as_stored(
        &self,
        window: crate::WindowRecord,
    ) -> Result<(), StoreError> {
        use sea_orm::{ActiveModelTrait, EntityTrait};
        crate::entities::maintenance_windows::Entity::insert(
            crate::entities::maintenance_windows::ActiveModel::from(window).reset_all(),
        )
        .exec_without_returning(self.conn())
        .await?;
        Ok(())
    }

    /// Writes `n` events of `kind` to the webhook outbox, heard by `renter`'s and `org`'s
    /// endpoints (a backlog, without the changes that would tell of them).
    pub async fn emit_events(
        &self,
        kind: domain::webhook::EventKind,
        (renter, org): (Option<uuid::Uuid>, Option<uuid::Uuid>),
        n: usize,
    ) -> Result<(), StoreError> {
        use sea_orm::TransactionTrait;
        let txn = self.conn().begin().await?;
        for _ in 0..n {
            let (audience, at) = ((renter, org, None), chrono::Utc::now());
            crate::outbox::insert_event(&txn, kind, audience, "{}".to_owned(), at).await?;
        }
        txn.commit().await?;
        Ok(())
    }

    /// The webhook outbox's events of `kind` (what a crash left behind).
    pub async fn webhook_events_of_kind(
        &self,
        kind: &str,
    ) -> Result<Vec<crate::WebhookEventRecord>, StoreError> {
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        Ok(crate::entities::webhook_events::Entity::find()
            .filter(crate::entities::webhook_events::Column::Kind.eq(kind))
            .all(self.conn())
            .await?)
    }
}

/// Gives a listing a compliant verification report of `cells` (their report id set here), as
/// the worker would store it, with a badge for 30 days; returns the report's id. The envelope
/// is empty: for tests that need the cells, not a signature.
pub async fn verified_report(
    db: &Db,
    listing: uuid::Uuid,
    cells: Vec<crate::CellRecord>,
) -> Result<uuid::Uuid, StoreError> {
    verified_report_signed(db, listing, cells, "{}".into()).await
}

/// [`verified_report`] with the signed `envelope` (JSON) it stores.
pub async fn verified_report_signed(
    db: &Db,
    listing: uuid::Uuid,
    cells: Vec<crate::CellRecord>,
    envelope: String,
) -> Result<uuid::Uuid, StoreError> {
    let listing = db
        .listing_by_id(listing)
        .await?
        .ok_or(StoreError::Corrupt("no such listing".into()))?;
    let best = cells
        .iter()
        .filter_map(|c| c.total_tok_s)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    let id = uuid::Uuid::now_v7();
    let now = chrono::Utc::now();
    db.insert_report(crate::NewReport {
        id,
        run_id: uuid::Uuid::now_v7(),
        listing_id: listing.id,
        org_id: listing.org_id,
        compliant: true,
        key_id: "test".into(),
        envelope,
        summary: "{}".into(),
        created_at: now,
        cells: cells
            .into_iter()
            .map(|c| crate::CellRecord { report_id: id, ..c })
            .collect(),
        headline: (best, None),
        engine: Some("vllm".into()),
        measured: crate::MeasuredClaim::of(&listing),
        kind: "verification".into(),
        badge: Some(crate::Badge {
            expires_at: now + chrono::Duration::days(30),
            next_spot_check_at: now + chrono::Duration::days(7),
        }),
        cost: None,
        log_leaf: id.as_bytes().to_vec(),
        log_private: false,
        visibility: "public".to_owned(),
    })
    .await?;
    Ok(id)
}

/// A valid decode cell measuring `total_tok_s` at (`context`, `concurrency`), its other
/// figures absent.
pub fn decode_cell(context: i64, concurrency: i64, total_tok_s: f64) -> crate::CellRecord {
    crate::CellRecord {
        report_id: uuid::Uuid::nil(),
        phase: domain::CellPhase::Decode,
        context_tokens: context,
        concurrency,
        status: domain::CellStatus::Valid,
        total_tok_s: Some(total_tok_s),
        per_request_tok_s: Some(total_tok_s / concurrency as f64),
        ttft_ms: None,
        tbt_ms: None,
        prompt_tok_s: None,
        ttft_ms_p99: None,
        ttft_samples: None,
        itl_ms_p99: None,
        tokens_per_chunk: None,
        energy_j_per_token: None,
    }
}

#[cfg(test)]
mod tests {
    use super::replace_database;

    #[test]
    fn database_name_is_replaced_keeping_the_query() {
        assert_eq!(
            replace_database("postgres://postgres@127.0.0.1:5432/test", "x"),
            "postgres://postgres@127.0.0.1:5432/x"
        );
        assert_eq!(
            replace_database("postgres://u:p@h/test?sslmode=disable", "x"),
            "postgres://u:p@h/x?sslmode=disable"
        );
        assert_eq!(
            replace_database("postgres://h:5432", "x"),
            "postgres://h:5432/x"
        );
    }
}
