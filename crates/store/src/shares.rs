//! Private reports' visibility and their share links (kept as token digests).

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use crate::entities::report_shares;
use crate::{Db, StoreError};

/// A run's and a report's visibility.
pub mod visibility {
    pub const PUBLIC: &str = "public";
    pub const PRIVATE: &str = "private";
}

pub type ShareRecord = report_shares::Model;

impl Db {
    pub async fn insert_share(&self, share: ShareRecord) -> Result<(), StoreError> {
        report_shares::Entity::insert(report_shares::ActiveModel {
            id: Set(share.id),
            report_id: Set(share.report_id),
            token_hash: Set(share.token_hash),
            created_by: Set(share.created_by),
            created_at: Set(share.created_at),
            expires_at: Set(share.expires_at),
            revoked_at: Set(share.revoked_at),
        })
        .exec_without_returning(self.conn())
        .await?;
        Ok(())
    }

    /// The share link of `report` whose token has this digest, revoked or not.
    pub async fn share_of(
        &self,
        report: Uuid,
        token_hash: &str,
    ) -> Result<Option<ShareRecord>, StoreError> {
        Ok(report_shares::Entity::find()
            .filter(report_shares::Column::ReportId.eq(report))
            .filter(report_shares::Column::TokenHash.eq(token_hash))
            .one(self.conn())
            .await?)
    }

    /// Revokes a share link of `report`; `false` when there is no such link.
    pub async fn revoke_share(
        &self,
        report: Uuid,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let result = report_shares::Entity::update_many()
            .col_expr(report_shares::Column::RevokedAt, Expr::value(now))
            .filter(report_shares::Column::ReportId.eq(report))
            .filter(report_shares::Column::TokenHash.eq(token_hash))
            .filter(report_shares::Column::RevokedAt.is_null())
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected > 0)
    }
}
