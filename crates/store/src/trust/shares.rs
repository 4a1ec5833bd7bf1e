//! Private reports' visibility and their share links (kept as token digests).

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use crate::entities::{report_shares, reports};
use crate::{Db, StoreError};

/// A run's and a report's visibility.
pub mod visibility {
    pub const PUBLIC: &str = "public";
    pub const PRIVATE: &str = "private";
}

pub type ShareRecord = report_shares::Model;

/// How a share link is named when it is revoked.
#[derive(Debug, Clone, Copy)]
pub enum ShareKey<'a> {
    /// The SHA-256 (hex) of its token.
    TokenHash(&'a str),
    Id(Uuid),
}

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
            prefix: Set(share.prefix),
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

    /// The share links of `report` that are neither revoked nor expired at `now`, newest
    /// first.
    pub async fn live_shares(
        &self,
        report: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Vec<ShareRecord>, StoreError> {
        Ok(report_shares::Entity::find()
            .filter(report_shares::Column::ReportId.eq(report))
            .filter(report_shares::Column::RevokedAt.is_null())
            .filter(report_shares::Column::ExpiresAt.gt(now))
            .order_by_desc(report_shares::Column::Id)
            .limit(1000)
            .all(self.conn())
            .await?)
    }

    /// Revokes a share link of `report`, named by its token's digest or its id; `false` when
    /// there is no such live link.
    pub async fn revoke_share(
        &self,
        report: Uuid,
        link: ShareKey<'_>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let which = match link {
            ShareKey::TokenHash(hash) => report_shares::Column::TokenHash.eq(hash),
            ShareKey::Id(id) => report_shares::Column::Id.eq(id),
        };
        let result = report_shares::Entity::update_many()
            .col_expr(report_shares::Column::RevokedAt, Expr::value(now))
            .filter(report_shares::Column::ReportId.eq(report))
            .filter(which)
            .filter(report_shares::Column::RevokedAt.is_null())
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected > 0)
    }

    /// Revokes every share link `maker` made of `org`'s reports (they left it); returns how
    /// many.
    pub async fn revoke_shares_made_by(
        &self,
        org: Uuid,
        maker: Uuid,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let result = report_shares::Entity::update_many()
            .col_expr(report_shares::Column::RevokedAt, Expr::value(now))
            .filter(report_shares::Column::CreatedBy.eq(maker))
            .filter(report_shares::Column::RevokedAt.is_null())
            .filter(
                report_shares::Column::ReportId.in_subquery(
                    Query::select()
                        .column(reports::Column::Id)
                        .from(reports::Entity)
                        .and_where(reports::Column::OrgId.eq(org))
                        .to_owned(),
                ),
            )
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected)
    }
}
