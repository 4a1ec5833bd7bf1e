//! Community runs: submitted reports with their submitter and signed receipt. The receipt is
//! appended to the transparency log in the transaction that stores the run.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, prelude::Expr,
};
use uuid::Uuid;

use crate::entities::{community_cells, community_runs, users};
use crate::{Db, NewLeaf, StoreError};
use domain::quota::RollingDay;

pub type CommunityRunRecord = community_runs::Model;
/// A valid decode cell of a community run, as the board keeps it.
pub type CommunityCellRecord = community_cells::Model;

/// What became of a submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submitted {
    /// Stored; its receipt's log index.
    Stored(u64),
    /// The submitter already submitted their runs of the last 24 hours; one more fits at
    /// this time (`domain::quota::RollingDay`).
    OverQuota { frees_at: DateTime<Utc> },
}

/// Which runs: any filter left `None` matches everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct CommunityRunQuery<'a> {
    pub gpu: Option<&'a str>,
    pub model: Option<&'a str>,
    /// Only runs older than this one (ids are time-ordered).
    pub before: Option<Uuid>,
}

impl Db {
    /// Stores a run with its board cells and logs its receipt (`receipt_leaf`), unless its
    /// submitter already spent `quota` in the 24 hours before it (counted under
    /// the submitter's row lock, so racing submissions cannot pass the quota together).
    pub async fn insert_community_run(
        &self,
        run: CommunityRunRecord,
        cells: Vec<CommunityCellRecord>,
        receipt_leaf: Vec<u8>,
        quota: RollingDay,
    ) -> Result<Submitted, StoreError> {
        let txn = self.write().await?;
        let (id, created_at) = (run.id, run.created_at);
        users::Entity::update_many()
            .col_expr(users::Column::Email, Expr::col(users::Column::Email))
            .filter(users::Column::Id.eq(run.submitter_id))
            .exec(&txn)
            .await?;
        let recent: Vec<DateTime<Utc>> = community_runs::Entity::find()
            .select_only()
            .column(community_runs::Column::CreatedAt)
            .filter(community_runs::Column::SubmitterId.eq(run.submitter_id))
            .filter(community_runs::Column::CreatedAt.gt(RollingDay::counts_after(created_at)))
            .into_tuple()
            .all(&txn)
            .await?;
        if let Err(frees_at) = quota.admit(&recent, created_at) {
            return Ok(Submitted::OverQuota { frees_at });
        }
        community_runs::Entity::insert(community_runs::ActiveModel::from(run).reset_all())
            .exec_without_returning(&txn)
            .await?;
        if !cells.is_empty() {
            community_cells::Entity::insert_many(
                cells
                    .into_iter()
                    .map(|c| community_cells::ActiveModel::from(c).reset_all()),
            )
            .exec_without_returning(&txn)
            .await?;
        }
        let index = crate::trust::transparency::append(
            &txn,
            NewLeaf {
                report_id: id,
                kind: "community_receipt".to_owned(),
                leaf: receipt_leaf,
                private: false,
                created_at,
            },
        )
        .await?;
        txn.commit().await?;
        Ok(Submitted::Stored(index))
    }

    pub async fn community_run(&self, id: Uuid) -> Result<Option<CommunityRunRecord>, StoreError> {
        Ok(community_runs::Entity::find_by_id(id)
            .one(self.conn())
            .await?)
    }

    /// Runs not withdrawn, newest first.
    pub async fn community_runs(
        &self,
        query: CommunityRunQuery<'_>,
        limit: u64,
    ) -> Result<Vec<CommunityRunRecord>, StoreError> {
        let mut select = community_runs::Entity::find()
            .filter(community_runs::Column::WithdrawnAt.is_null())
            .order_by_desc(community_runs::Column::Id)
            .limit(limit);
        if let Some(gpu) = query.gpu {
            select = select.filter(community_runs::Column::CatalogGpu.eq(gpu));
        }
        if let Some(model) = query.model {
            select = select.filter(community_runs::Column::CatalogModel.eq(model));
        }
        if let Some(before) = query.before {
            select = select.filter(community_runs::Column::Id.lt(before));
        }
        Ok(select.all(self.conn()).await?)
    }

    /// Withdraws a run; `false` when it was already withdrawn.
    pub async fn withdraw_community_run(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let txn = self.write().await?;
        let result = community_runs::Entity::update_many()
            .col_expr(community_runs::Column::WithdrawnAt, Expr::value(now))
            .filter(community_runs::Column::Id.eq(id))
            .filter(community_runs::Column::WithdrawnAt.is_null())
            .exec(&txn)
            .await?;
        community_cells::Entity::delete_many()
            .filter(community_cells::Column::RunId.eq(id))
            .exec(&txn)
            .await?;
        txn.commit().await?;
        Ok(result.rows_affected > 0)
    }

    /// Community cells naming both catalog entries, by catalog GPU and model (either left
    /// `None` matches any) and one cell, newest run first, at most `limit`.
    pub async fn community_catalog_cells(
        &self,
        gpu: Option<&str>,
        model: Option<&str>,
        context: Option<i64>,
        concurrency: Option<i64>,
        limit: u64,
    ) -> Result<Vec<CommunityCellRecord>, StoreError> {
        let mut select = community_cells::Entity::find()
            .filter(community_cells::Column::CatalogGpu.is_not_null())
            .filter(community_cells::Column::CatalogModel.is_not_null());
        if let Some(gpu) = gpu {
            select = select.filter(community_cells::Column::CatalogGpu.eq(gpu));
        }
        if let Some(model) = model {
            select = select.filter(community_cells::Column::CatalogModel.eq(model));
        }
        if let Some(context) = context {
            select = select.filter(community_cells::Column::ContextTokens.eq(context));
        }
        if let Some(concurrency) = concurrency {
            select = select.filter(community_cells::Column::Concurrency.eq(concurrency));
        }
        Ok(select
            .order_by_desc(community_cells::Column::RunId)
            .order_by_asc(community_cells::Column::Position)
            .limit(limit)
            .all(self.conn())
            .await?)
    }

    /// The community board: per catalog GPU (or none), served model and engine, the cell with the
    /// best total tok/s (ties to the earliest run's first cell), optionally at one context and
    /// concurrency; best first, at most `limit` rows. One query: each group's first row by a
    /// window over the maintained cells, whatever the number of cells that tie. (The rows
    /// carry no `cell` JSON: the board does not show it.)
    pub async fn community_best(
        &self,
        context: Option<i64>,
        concurrency: Option<i64>,
        limit: u64,
    ) -> Result<Vec<CommunityCellRecord>, StoreError> {
        use sea_orm::Statement;
        let backend = self.conn().get_database_backend();
        let mut values: Vec<sea_orm::Value> = Vec::new();
        let mut placeholder = |value: sea_orm::Value| {
            values.push(value);
            match backend {
                sea_orm::DbBackend::Postgres => format!("${}", values.len()),
                _ => "?".to_owned(),
            }
        };
        let mut filters = vec!["1 = 1".to_owned()];
        if let Some(context) = context {
            filters.push(format!("context_tokens = {}", placeholder(context.into())));
        }
        if let Some(concurrency) = concurrency {
            filters.push(format!("concurrency = {}", placeholder(concurrency.into())));
        }
        let limit = placeholder(i64::try_from(limit).unwrap_or(i64::MAX).into());
        let sql = format!(
            "SELECT run_id, position, catalog_gpu, catalog_model, model, context_tokens, \
             concurrency, total_tok_s, per_request_tok_s, engine_name, '' AS cell FROM ( \
               SELECT run_id, position, catalog_gpu, catalog_model, model, context_tokens, \
                 concurrency, total_tok_s, per_request_tok_s, engine_name, ROW_NUMBER() OVER ( \
                 PARTITION BY catalog_gpu, model, engine_name \
                 ORDER BY total_tok_s DESC, run_id, position) AS place \
               FROM community_cells WHERE {} \
             ) ranked WHERE place = 1 ORDER BY total_tok_s DESC, run_id LIMIT {limit}",
            filters.join(" AND ")
        );
        let statement = Statement::from_sql_and_values(backend, sql, values);
        Ok(community_cells::Entity::find()
            .from_raw_sql(statement)
            .all(self.conn())
            .await?)
    }
}
