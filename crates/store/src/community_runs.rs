//! Community runs: submitted reports with their submitter and signed receipt. The receipt is
//! appended to the transparency log in the transaction that stores the run.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, prelude::Expr,
};
use uuid::Uuid;

use crate::entities::{community_cells, community_runs, users};
use crate::{Db, NewLeaf, StoreError};

pub type CommunityRunRecord = community_runs::Model;
/// A valid decode cell of a community run, as the board keeps it.
pub type CommunityCellRecord = community_cells::Model;

/// What became of a submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submitted {
    /// Stored; its receipt's log index.
    Stored(u64),
    /// The submitter already submitted their runs of the last 24 hours; the oldest of them
    /// is a day old at this time.
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
    /// submitter already submitted `per_day` runs in the 24 hours before it (counted under
    /// the submitter's row lock, so racing submissions cannot pass the quota together).
    pub async fn insert_community_run(
        &self,
        run: CommunityRunRecord,
        cells: Vec<CommunityCellRecord>,
        receipt_leaf: Vec<u8>,
        per_day: u32,
    ) -> Result<Submitted, StoreError> {
        let txn = self.write().await?;
        let (id, created_at) = (run.id, run.created_at);
        users::Entity::update_many()
            .col_expr(users::Column::Email, Expr::col(users::Column::Email))
            .filter(users::Column::Id.eq(run.submitter_id))
            .exec(&txn)
            .await?;
        let day_ago = created_at - chrono::Duration::days(1);
        let recent: Vec<DateTime<Utc>> = community_runs::Entity::find()
            .select_only()
            .column(community_runs::Column::CreatedAt)
            .filter(community_runs::Column::SubmitterId.eq(run.submitter_id))
            .filter(community_runs::Column::CreatedAt.gt(day_ago))
            .order_by_asc(community_runs::Column::CreatedAt)
            .into_tuple()
            .all(&txn)
            .await?;
        if recent.len() >= per_day as usize {
            let oldest = recent.first().copied().unwrap_or(created_at);
            return Ok(Submitted::OverQuota {
                frees_at: oldest + chrono::Duration::days(1),
            });
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
        let index = crate::log::append(
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

    /// The community board: per catalog GPU (or none) and served model, the cell with the
    /// best total tok/s, optionally at one context and concurrency; best first, at most
    /// `limit` rows. Two queries over the maintained cells: each group's best, then the cells
    /// that reach it.
    pub async fn community_best(
        &self,
        context: Option<i64>,
        concurrency: Option<i64>,
        limit: u64,
    ) -> Result<Vec<CommunityCellRecord>, StoreError> {
        use sea_orm::Condition;
        let mut at = Condition::all();
        if let Some(context) = context {
            at = at.add(community_cells::Column::ContextTokens.eq(context));
        }
        if let Some(concurrency) = concurrency {
            at = at.add(community_cells::Column::Concurrency.eq(concurrency));
        }
        let best: Vec<(Option<String>, String, f64)> = community_cells::Entity::find()
            .select_only()
            .column(community_cells::Column::CatalogGpu)
            .column(community_cells::Column::Model)
            .column_as(community_cells::Column::TotalTokS.max(), "best")
            .filter(at.clone())
            .group_by(community_cells::Column::CatalogGpu)
            .group_by(community_cells::Column::Model)
            .order_by_desc(Expr::col(sea_orm::sea_query::Alias::new("best")))
            .limit(limit)
            .into_tuple()
            .all(self.conn())
            .await?;
        if best.is_empty() {
            return Ok(Vec::new());
        }
        let reaching = community_cells::Entity::find()
            .filter(at)
            .filter(community_cells::Column::TotalTokS.is_in(best.iter().map(|b| b.2)))
            .order_by_asc(community_cells::Column::RunId)
            .order_by_asc(community_cells::Column::Position)
            .all(self.conn())
            .await?;
        Ok(best
            .into_iter()
            .filter_map(|(gpu, model, total)| {
                reaching
                    .iter()
                    .find(|c| c.catalog_gpu == gpu && c.model == model && c.total_tok_s == total)
                    .cloned()
            })
            .collect())
    }
}
