//! The search projection's change feed, for replicas that answer search from memory.
//!
//! `listings.search_seq` (indexed) numbers the listing's latest change to what search reads,
//! so a replica catches up with `WHERE search_seq >= known`. Triggers stamp it on every
//! insert of a listing, every update of a column search filters, orders or answers with (not
//! the schedulers' own columns: `probe_due_at`, `next_spot_check_at`,
//! `spot_check_forwarded_at`, `delisted_at`, `updated_at`), and every insert, update and
//! delete of its `listing_cells`. Triggers rather than calls in each write: no write path,
//! present or future, can forget one.
//!
//! - PostgreSQL: the number is the writing transaction's id, and each change sends `NOTIFY
//!   gpumarket_search` (delivered at commit), so replicas hear of it at once; a missed
//!   notification is caught by their periodic look. A reader takes its snapshot's `xmin`
//!   first (every transaction below it has ended), reads the rows from its last mark on,
//!   and keeps that `xmin` as its next mark: a change committed out of its id's order is
//!   read again, never missed, and no writer waits for another.
//! - SQLite, whose writers take turns anyway: `search_clock`, one row counting changes. A
//!   reader's mark is the count it read, plus one.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::DbBackend;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The listing columns whose change a search answer can show.
const WATCHED: [&str; 34] = [
    "org_id",
    "title",
    "gpu_model",
    "gpu_count",
    "vram_gb",
    "cpu_model",
    "ram_gb",
    "region",
    "price_amount",
    "currency",
    "engine_base_url",
    "engine_model",
    "engine_api_key",
    "status",
    "latest_report_id",
    "verified_at",
    "headline_total_tok_s",
    "headline_per_request_tok_s",
    "headline_price_per_mtok",
    "verification_state",
    "verification_expires_at",
    "available_from",
    "available_until",
    "last_verification_cost",
    "access_ssh_host",
    "access_ssh_port",
    "access_ssh_user",
    "access_https_url",
    "catalog_gpu",
    "catalog_model",
    "guarantee_min_bp",
    "reliability",
    "liveness_state",
    "liveness_since",
];

fn postgres() -> Vec<String> {
    let old: Vec<String> = WATCHED.iter().map(|c| format!("OLD.{c}")).collect();
    let new: Vec<String> = WATCHED.iter().map(|c| format!("NEW.{c}")).collect();
    vec![
        "ALTER TABLE listings ADD COLUMN search_seq bigint NOT NULL DEFAULT 0".into(),
        "CREATE INDEX idx_listings_search_seq ON listings (search_seq)".into(),
        "CREATE FUNCTION listings_search_seq() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           NEW.search_seq := pg_current_xact_id()::text::bigint;
           PERFORM pg_notify('gpumarket_search', '');
           RETURN NEW;
         END $$"
            .into(),
        "CREATE TRIGGER listings_search_insert BEFORE INSERT ON listings
         FOR EACH ROW EXECUTE FUNCTION listings_search_seq()"
            .into(),
        format!(
            "CREATE TRIGGER listings_search_update BEFORE UPDATE ON listings
             FOR EACH ROW WHEN (ROW({}) IS DISTINCT FROM ROW({}))
             EXECUTE FUNCTION listings_search_seq()",
            old.join(", "),
            new.join(", ")
        ),
        "CREATE FUNCTION listing_cells_search_seq() RETURNS trigger LANGUAGE plpgsql AS $$
         DECLARE listing uuid;
         BEGIN
           IF TG_OP = 'DELETE' THEN listing := OLD.listing_id; ELSE listing := NEW.listing_id; END IF;
           UPDATE listings SET search_seq = pg_current_xact_id()::text::bigint
             WHERE id = listing AND search_seq <> pg_current_xact_id()::text::bigint;
           PERFORM pg_notify('gpumarket_search', '');
           RETURN NULL;
         END $$"
            .into(),
        "CREATE TRIGGER listing_cells_search AFTER INSERT OR UPDATE OR DELETE ON listing_cells
         FOR EACH ROW EXECUTE FUNCTION listing_cells_search_seq()"
            .into(),
    ]
}

/// SQLite has no functions: each trigger ticks the clock and stamps the listing itself. An
/// update made by a trigger does not fire triggers again (`recursive_triggers` is off), and
/// `search_seq` is not watched either.
fn sqlite() -> Vec<String> {
    let stamp = |listing: &str| {
        format!(
            "BEGIN
               UPDATE search_clock SET seq = seq + 1 WHERE id = 1;
               UPDATE listings SET search_seq = (SELECT seq FROM search_clock WHERE id = 1)
                 WHERE id = {listing};
             END"
        )
    };
    let changed: Vec<String> = WATCHED
        .iter()
        .map(|c| format!("OLD.{c} IS NOT NEW.{c}"))
        .collect();
    vec![
        "CREATE TABLE search_clock (id integer PRIMARY KEY, seq bigint NOT NULL)".into(),
        "INSERT INTO search_clock (id, seq) VALUES (1, 0)".into(),
        "ALTER TABLE listings ADD COLUMN search_seq bigint NOT NULL DEFAULT 0".into(),
        "CREATE INDEX idx_listings_search_seq ON listings (search_seq)".into(),
        format!(
            "CREATE TRIGGER listings_search_insert AFTER INSERT ON listings {}",
            stamp("NEW.id")
        ),
        format!(
            "CREATE TRIGGER listings_search_update AFTER UPDATE ON listings WHEN {} {}",
            changed.join(" OR "),
            stamp("NEW.id")
        ),
        format!(
            "CREATE TRIGGER listing_cells_search_insert AFTER INSERT ON listing_cells {}",
            stamp("NEW.listing_id")
        ),
        format!(
            "CREATE TRIGGER listing_cells_search_update AFTER UPDATE ON listing_cells {}",
            stamp("NEW.listing_id")
        ),
        format!(
            "CREATE TRIGGER listing_cells_search_delete AFTER DELETE ON listing_cells {}",
            stamp("OLD.listing_id")
        ),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let statements = match manager.get_database_backend() {
            DbBackend::Sqlite => sqlite(),
            _ => postgres(),
        };
        for sql in statements {
            db.execute_unprepared(&sql).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let statements: &[&str] = match manager.get_database_backend() {
            DbBackend::Sqlite => &[
                "DROP TRIGGER listings_search_insert",
                "DROP TRIGGER listings_search_update",
                "DROP TRIGGER listing_cells_search_insert",
                "DROP TRIGGER listing_cells_search_update",
                "DROP TRIGGER listing_cells_search_delete",
                "DROP INDEX idx_listings_search_seq",
                "ALTER TABLE listings DROP COLUMN search_seq",
                "DROP TABLE search_clock",
            ],
            _ => &[
                "DROP TRIGGER listing_cells_search ON listing_cells",
                "DROP TRIGGER listings_search_update ON listings",
                "DROP TRIGGER listings_search_insert ON listings",
                "DROP FUNCTION listing_cells_search_seq()",
                "DROP FUNCTION listings_search_seq()",
                "DROP INDEX idx_listings_search_seq",
                "ALTER TABLE listings DROP COLUMN search_seq",
            ],
        };
        for sql in statements {
            db.execute_unprepared(sql).await?;
        }
        Ok(())
    }
}
