//! Whether a listing's hardware is confirmed by its machine's agent (issue 56):
//! `listings.hardware_confirmed`, true while the agent's last report matches the claim, so that
//! search filters by it (`hardware_confirmed=true`) and every listing answer says it. It is
//! the machine's word, not an attestation. Set by the next report of each agent (nothing to
//! backfill: comparing needs the catalog, which a migration does not import).
//!
//! Search's change feed (migration 000028) stamps a listing when a column search answers with
//! changes: its update trigger is made again watching this column too, and `engine_name`
//! (migration 000035), which a listing's answer shows and which an edit may change alone.
//! The list and the triggers are copied from migration 000028, as migrations import nothing.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::DbBackend;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The listing columns whose change a search answer can show (000028's, and two more).
const WATCHED: [&str; 36] = [
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
    "engine_name",
    "hardware_confirmed",
];

fn postgres(watched: &[&str]) -> Vec<String> {
    let old: Vec<String> = watched.iter().map(|c| format!("OLD.{c}")).collect();
    let new: Vec<String> = watched.iter().map(|c| format!("NEW.{c}")).collect();
    vec![
        "DROP TRIGGER listings_search_update ON listings".into(),
        format!(
            "CREATE TRIGGER listings_search_update BEFORE UPDATE ON listings
             FOR EACH ROW WHEN (ROW({}) IS DISTINCT FROM ROW({}))
             EXECUTE FUNCTION listings_search_seq()",
            old.join(", "),
            new.join(", ")
        ),
    ]
}

/// As 000028's: the trigger ticks the clock and stamps the listing itself.
fn sqlite(watched: &[&str]) -> Vec<String> {
    let changed: Vec<String> = watched
        .iter()
        .map(|c| format!("OLD.{c} IS NOT NEW.{c}"))
        .collect();
    vec![
        "DROP TRIGGER IF EXISTS listings_search_update".into(),
        format!(
            "CREATE TRIGGER IF NOT EXISTS listings_search_update AFTER UPDATE ON listings WHEN {}
             BEGIN
               UPDATE search_clock SET seq = seq + 1 WHERE id = 1;
               UPDATE listings SET search_seq = (SELECT seq FROM search_clock WHERE id = 1)
                 WHERE id = NEW.id;
             END",
            changed.join(" OR ")
        ),
    ]
}

fn triggers(backend: DbBackend, watched: &[&str]) -> Vec<String> {
    match backend {
        DbBackend::Sqlite => sqlite(watched),
        _ => postgres(watched),
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let backend = manager.get_database_backend();
        let column = match backend {
            DbBackend::Sqlite => {
                "ALTER TABLE listings ADD COLUMN hardware_confirmed boolean NOT NULL DEFAULT 0"
            }
            _ => {
                "ALTER TABLE listings ADD COLUMN hardware_confirmed boolean NOT NULL DEFAULT false"
            }
        };
        db.execute_unprepared(column).await?;
        for sql in triggers(backend, &WATCHED) {
            db.execute_unprepared(&sql).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let backend = manager.get_database_backend();
        // 000028's list: the two columns this one added last.
        for sql in triggers(backend, &WATCHED[..WATCHED.len() - 2]) {
            db.execute_unprepared(&sql).await?;
        }
        db.execute_unprepared("ALTER TABLE listings DROP COLUMN hardware_confirmed")
            .await?;
        Ok(())
    }
}
