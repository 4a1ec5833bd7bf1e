//! The leaf rule of the transparency log's backfill (migration 000012), frozen: a report's
//! leaf is its envelope as RFC 8785 JSON, or — when its statement names an engine address —
//! the SHA-256 of that, private. 000012 built its leaves with the live `attest::log_leaf`,
//! which later learnt a rule of its own (private reports, which did not exist before the
//! log). This checks every leaf of a report that is not private against the frozen rule and
//! refuses to go on when one differs: a log whose leaves no longer follow the rule the reports
//! were logged under is a database to look at, not to serve. It changes nothing.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::prelude::Uuid;
use sea_orm_migration::sea_orm::{ConnectionTrait, Statement};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        let rows = db
            .query_all_raw(Statement::from_string(
                manager.get_database_backend(),
                "SELECT e.report_id AS id, e.leaf AS leaf, r.envelope AS envelope \
                 FROM log_entries e JOIN reports r ON r.id = e.report_id",
            ))
            .await?;
        for row in rows {
            let id: Uuid = row.try_get("", "id")?;
            let stored: Vec<u8> = row.try_get("", "leaf")?;
            let envelope: String = row.try_get("", "envelope")?;
            let envelope: serde_json::Value = serde_json::from_str(&envelope)
                .map_err(|e| DbErr::Migration(format!("report {id}: envelope is not JSON: {e}")))?;
            let Some(leaf) = frozen_leaf(&envelope) else {
                continue;
            };
            if leaf != stored {
                return Err(DbErr::Migration(format!(
                    "report {id}: its transparency-log leaf does not follow the rule it was logged under"
                )));
            }
        }
        Ok(())
    }

    async fn down(&self, _manager: &SchemaManager) -> Result<(), DbErr> {
        Ok(())
    }
}

/// The leaf 000012's rule gives an envelope; `None` for a private report (a rule of later).
fn frozen_leaf(envelope: &serde_json::Value) -> Option<Vec<u8>> {
    use base64::Engine as _;
    use sha2::Digest as _;
    let canonical =
        serde_jcs::to_vec(envelope).unwrap_or_else(|_| envelope.to_string().into_bytes());
    let statement = envelope
        .get("payload")
        .and_then(serde_json::Value::as_str)
        .and_then(|p| base64::engine::general_purpose::STANDARD.decode(p).ok())
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .unwrap_or_default();
    let predicate = &statement["predicate"];
    if predicate["verification"]["visibility"] == "private" {
        return None;
    }
    // (`Value::is_null` by name: the migration prelude has an `is_null` of its own.)
    let names_address = !serde_json::Value::is_null(&predicate["engine"]["base_url"])
        || !serde_json::Value::is_null(&predicate["hardware"]["claimed"]["engine"]["base_url"]);
    Some(if names_address {
        sha2::Sha256::digest(&canonical).to_vec()
    } else {
        canonical
    })
}
