//! Backups: an online, consistent copy of a SQLite database, and what checking a copy reads
//! (every report's envelope, every checkpoint, the ledger's sums per booking).

use sea_orm::sea_query::Expr;
use sea_orm::{ConnectionTrait, DbBackend, EntityTrait, QueryOrder, QuerySelect, Statement};
use uuid::Uuid;

use crate::entities::{ledger_entries, log_checkpoints, reports};
use crate::{Backend, CheckpointRecord, Db, StoreError};

/// One booking's ledger in one currency: the sum of each kind's rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerSum {
    pub booking_id: Uuid,
    pub currency: String,
    pub kind: String,
    pub amount: i64,
}

impl Db {
    /// Writes a consistent copy of this SQLite database to `path` (which must not exist)
    /// while it serves: one read transaction's view (`VACUUM INTO`), writers never wait.
    pub async fn vacuum_into(&self, path: &str) -> Result<(), StoreError> {
        if self.backend() != Backend::Sqlite {
            return Err(StoreError::Corrupt(
                "an online copy is SQLite's; back PostgreSQL up with pg_dump".into(),
            ));
        }
        self.conn()
            .execute_raw(Statement::from_sql_and_values(
                DbBackend::Sqlite,
                "VACUUM INTO ?",
                [path.into()],
            ))
            .await?;
        Ok(())
    }

    /// Every stored report's id and envelope, oldest first.
    pub async fn report_envelopes(&self) -> Result<Vec<(Uuid, String)>, StoreError> {
        Ok(reports::Entity::find()
            .select_only()
            .column(reports::Column::Id)
            .column(reports::Column::Envelope)
            .order_by_asc(reports::Column::Id)
            .into_tuple()
            .all(self.conn())
            .await?)
    }

    /// Every signed checkpoint, smallest first.
    pub async fn checkpoints(&self) -> Result<Vec<CheckpointRecord>, StoreError> {
        log_checkpoints::Entity::find()
            .order_by_asc(log_checkpoints::Column::Size)
            .all(self.conn())
            .await?
            .into_iter()
            .map(CheckpointRecord::try_from)
            .collect()
    }

    /// The ledger summed per booking, currency and kind.
    pub async fn ledger_sums(&self) -> Result<Vec<LedgerSum>, StoreError> {
        let rows: Vec<(Uuid, String, String, i64)> = ledger_entries::Entity::find()
            .select_only()
            .column(ledger_entries::Column::BookingId)
            .column(ledger_entries::Column::Currency)
            .column(ledger_entries::Column::Kind)
            .column_as(Expr::cust("CAST(SUM(amount) AS BIGINT)"), "amount")
            .group_by(ledger_entries::Column::BookingId)
            .group_by(ledger_entries::Column::Currency)
            .group_by(ledger_entries::Column::Kind)
            .into_tuple()
            .all(self.conn())
            .await?;
        Ok(rows
            .into_iter()
            .map(|(booking_id, currency, kind, amount)| LedgerSum {
                booking_id,
                currency,
                kind,
                amount,
            })
            .collect())
    }
}
