//! Backups: an online, consistent copy of a SQLite database, a scratch PostgreSQL database to
//! restore a dump into, and what checking a copy reads (every report's envelope, every
//! checkpoint, the ledger's sums per booking).

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

/// A database created on a PostgreSQL server for one check, dropped by [`Self::drop`].
#[derive(Debug)]
pub struct ScratchDatabase {
    server_url: String,
    name: String,
    url: String,
}

impl ScratchDatabase {
    /// Creates an empty database with a name of its own on the server `server_url` names.
    pub async fn create(server_url: &str) -> Result<Self, StoreError> {
        let name = format!("gpumarket_check_{}", Uuid::new_v4().simple());
        pg_execute(server_url, &format!("CREATE DATABASE {name}")).await?;
        Ok(Self {
            url: replace_database(server_url, &name),
            server_url: server_url.to_owned(),
            name,
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Drops the database (connections still open to it are ended).
    pub async fn drop(self) -> Result<(), StoreError> {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        pg_execute(&self.server_url, &sql).await
    }
}

/// Runs one statement on its own connection to `url`.
async fn pg_execute(url: &str, sql: &str) -> Result<(), StoreError> {
    use sea_orm::sqlx::{AssertSqlSafe, Connection, PgConnection};
    let custom =
        |e: sea_orm::sqlx::Error| StoreError::Database(sea_orm::DbErr::Custom(e.to_string()));
    let mut conn = PgConnection::connect(url).await.map_err(custom)?;
    sea_orm::sqlx::query(AssertSqlSafe(sql.to_owned()))
        .execute(&mut conn)
        .await
        .map_err(custom)?;
    conn.close().await.map_err(custom)
}

/// `url` (a PostgreSQL URL) naming the database `name` instead.
pub fn replace_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let base = match base.rfind('/') {
        Some(slash) if slash > "postgres://".len() => &base[..slash],
        _ => base,
    };
    match query {
        Some(query) => format!("{base}/{name}?{query}"),
        None => format!("{base}/{name}"),
    }
}

impl Db {
    /// Whether the database holds no table yet (a restore's target).
    pub async fn holds_no_table(&self) -> Result<bool, StoreError> {
        let sql = match self.backend() {
            Backend::Sqlite => "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'",
            Backend::Postgres => {
                "SELECT COUNT(*) AS n FROM information_schema.tables \
                 WHERE table_schema = current_schema()"
            }
        };
        let row = self
            .conn()
            .query_one_raw(Statement::from_string(
                self.conn().get_database_backend(),
                sql,
            ))
            .await?
            .ok_or_else(|| StoreError::Corrupt("COUNT(*) returned no row".into()))?;
        Ok(row.try_get::<i64>("", "n")? == 0)
    }

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
