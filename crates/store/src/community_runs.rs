//! Community runs: submitted reports with their submitter and signed receipt. The receipt is
//! appended to the transparency log in the transaction that stores the run.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, prelude::Expr,
};
use uuid::Uuid;

use crate::entities::community_runs;
use crate::{Db, NewLeaf, StoreError};

pub type CommunityRunRecord = community_runs::Model;

/// Which runs: any filter left `None` matches everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct CommunityRunQuery<'a> {
    pub gpu: Option<&'a str>,
    pub model: Option<&'a str>,
    /// Only runs older than this one (ids are time-ordered).
    pub before: Option<Uuid>,
}

impl Db {
    /// Stores a run and logs its receipt (`receipt_leaf`); the receipt's log index.
    pub async fn insert_community_run(
        &self,
        run: CommunityRunRecord,
        receipt_leaf: Vec<u8>,
    ) -> Result<u64, StoreError> {
        let txn = self.write().await?;
        let (id, created_at) = (run.id, run.created_at);
        community_runs::Entity::insert(community_runs::ActiveModel::from(run).reset_all())
            .exec_without_returning(&txn)
            .await?;
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
        Ok(index)
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
        let result = community_runs::Entity::update_many()
            .col_expr(community_runs::Column::WithdrawnAt, Expr::value(now))
            .filter(community_runs::Column::Id.eq(id))
            .filter(community_runs::Column::WithdrawnAt.is_null())
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected > 0)
    }
}
