//! What holds a machine's GPUs joins the search change feed (migration 000028), so that a
//! replica answering search from memory also answers availability searches from memory.
//!
//! `bookings.search_seq` and `maintenance_windows.search_seq` (indexed) number the row's
//! latest change to what decides capacity: its insert, and an update of a booking's listing,
//! interval, GPUs, status or hold expiry. A replica catching up reads the listings of the
//! rows changed since its mark beside the listings changed themselves. A deleted window has
//! no row left to carry the number: its delete stamps its listing's `search_seq` instead.
//! Triggers stamp the changed row itself, not its listing, so a booking's write takes no
//! lock it did not take before.
//!
//! The numbers, the clock and the channel are migration 000028's: on PostgreSQL the writing
//! transaction's id with `NOTIFY gpumarket_search`, on SQLite the `search_clock` count.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::DbBackend;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The booking columns whose change can change the GPUs it holds.
const WATCHED: [&str; 6] = [
    "listing_id",
    "starts_at",
    "ends_at",
    "gpu_count",
    "status",
    "hold_expires_at",
];

const TABLES: [&str; 2] = ["bookings", "maintenance_windows"];

fn postgres() -> Vec<String> {
    let old: Vec<String> = WATCHED.iter().map(|c| format!("OLD.{c}")).collect();
    let new: Vec<String> = WATCHED.iter().map(|c| format!("NEW.{c}")).collect();
    let mut statements = Vec::new();
    for table in TABLES {
        statements.push(format!(
            "ALTER TABLE {table} ADD COLUMN search_seq bigint NOT NULL DEFAULT 0"
        ));
        statements.push(format!(
            "CREATE INDEX idx_{table}_search_seq ON {table} (search_seq)"
        ));
    }
    statements.extend([
        "CREATE FUNCTION capacity_search_seq() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           NEW.search_seq := pg_current_xact_id()::text::bigint;
           PERFORM pg_notify('gpumarket_search', '');
           RETURN NEW;
         END $$"
            .to_owned(),
        "CREATE TRIGGER bookings_search_insert BEFORE INSERT ON bookings
         FOR EACH ROW EXECUTE FUNCTION capacity_search_seq()"
            .to_owned(),
        format!(
            "CREATE TRIGGER bookings_search_update BEFORE UPDATE ON bookings
             FOR EACH ROW WHEN (ROW({}) IS DISTINCT FROM ROW({}))
             EXECUTE FUNCTION capacity_search_seq()",
            old.join(", "),
            new.join(", ")
        ),
        "CREATE TRIGGER maintenance_windows_search_insert BEFORE INSERT ON maintenance_windows
         FOR EACH ROW EXECUTE FUNCTION capacity_search_seq()"
            .to_owned(),
        "CREATE FUNCTION maintenance_window_deleted_search_seq() RETURNS trigger
         LANGUAGE plpgsql AS $$
         BEGIN
           UPDATE listings SET search_seq = pg_current_xact_id()::text::bigint
             WHERE id = OLD.listing_id AND search_seq <> pg_current_xact_id()::text::bigint;
           PERFORM pg_notify('gpumarket_search', '');
           RETURN NULL;
         END $$"
            .to_owned(),
        "CREATE TRIGGER maintenance_windows_search_delete AFTER DELETE ON maintenance_windows
         FOR EACH ROW EXECUTE FUNCTION maintenance_window_deleted_search_seq()"
            .to_owned(),
    ]);
    statements
}

/// As migration 000028's: each trigger ticks the clock and stamps the row (an update made by
/// a trigger does not fire triggers again, and `search_seq` is not watched either).
fn sqlite() -> Vec<String> {
    let tick = "UPDATE search_clock SET seq = seq + 1 WHERE id = 1;";
    let now = "(SELECT seq FROM search_clock WHERE id = 1)";
    let stamp_row = |table: &str| {
        format!("BEGIN {tick} UPDATE {table} SET search_seq = {now} WHERE id = NEW.id; END")
    };
    let changed: Vec<String> = WATCHED
        .iter()
        .map(|c| format!("OLD.{c} IS NOT NEW.{c}"))
        .collect();
    let mut statements = Vec::new();
    for table in TABLES {
        statements.push(format!(
            "ALTER TABLE {table} ADD COLUMN search_seq bigint NOT NULL DEFAULT 0"
        ));
        statements.push(format!(
            "CREATE INDEX idx_{table}_search_seq ON {table} (search_seq)"
        ));
        statements.push(format!(
            "CREATE TRIGGER {table}_search_insert AFTER INSERT ON {table} {}",
            stamp_row(table)
        ));
    }
    statements.extend([
        format!(
            "CREATE TRIGGER bookings_search_update AFTER UPDATE ON bookings WHEN {} {}",
            changed.join(" OR "),
            stamp_row("bookings")
        ),
        format!(
            "CREATE TRIGGER maintenance_windows_search_delete AFTER DELETE ON maintenance_windows
             BEGIN {tick} UPDATE listings SET search_seq = {now} WHERE id = OLD.listing_id; END"
        ),
    ]);
    statements
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
                "DROP TRIGGER maintenance_windows_search_delete",
                "DROP TRIGGER bookings_search_update",
                "DROP TRIGGER maintenance_windows_search_insert",
                "DROP TRIGGER bookings_search_insert",
                "DROP INDEX idx_maintenance_windows_search_seq",
                "DROP INDEX idx_bookings_search_seq",
                "ALTER TABLE maintenance_windows DROP COLUMN search_seq",
                "ALTER TABLE bookings DROP COLUMN search_seq",
            ],
            _ => &[
                "DROP TRIGGER maintenance_windows_search_delete ON maintenance_windows",
                "DROP TRIGGER maintenance_windows_search_insert ON maintenance_windows",
                "DROP TRIGGER bookings_search_update ON bookings",
                "DROP TRIGGER bookings_search_insert ON bookings",
                "DROP FUNCTION maintenance_window_deleted_search_seq()",
                "DROP FUNCTION capacity_search_seq()",
                "DROP INDEX idx_maintenance_windows_search_seq",
                "DROP INDEX idx_bookings_search_seq",
                "ALTER TABLE maintenance_windows DROP COLUMN search_seq",
                "ALTER TABLE bookings DROP COLUMN search_seq",
            ],
        };
        for sql in statements {
            db.execute_unprepared(sql).await?;
        }
        Ok(())
    }
}
