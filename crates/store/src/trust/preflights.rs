//! Preflights: each listing's checks before verification, one row per preflight.

use chrono::{DateTime, Utc};
use domain::quota::RollingDay;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use uuid::Uuid;

use domain::preflight::kind;

use crate::entities::{preflights, runs};
use crate::{Db, OverDailyQuota, StoreError};

pub type PreflightRecord = preflights::Model;

/// Whether the organisation has room in its verification budget within the day before
/// `now` (`quota` of its verification runs and its members' preflights together); when not,
/// how much it spent and when one more fits.
pub(crate) async fn verification_budget_admits(
    conn: &impl ConnectionTrait,
    org: Uuid,
    quota: RollingDay,
    now: DateTime<Utc>,
) -> Result<Result<(), OverDailyQuota>, StoreError> {
    let after = RollingDay::counts_after(now);
    let mut times: Vec<DateTime<Utc>> = runs::Entity::find()
        .select_only()
        .column(runs::Column::CreatedAt)
        .filter(runs::Column::OrgId.eq(org))
        .filter(runs::Column::Kind.eq("verification"))
        .filter(runs::Column::CreatedAt.gt(after))
        .into_tuple()
        .all(conn)
        .await?;
    times.extend(
        preflights::Entity::find()
            .select_only()
            .column(preflights::Column::CreatedAt)
            .filter(preflights::Column::OrgId.eq(org))
            .filter(preflights::Column::Kind.eq(kind::ASKED))
            .filter(preflights::Column::CreatedAt.gt(after))
            .into_tuple::<DateTime<Utc>>()
            .all(conn)
            .await?,
    );
    times.sort();
    Ok(quota.admit(&times, now).map_err(|frees_at| OverDailyQuota {
        counted: times.len(),
        frees_at,
    }))
}

impl Db {
    /// Inserts a member's preflight unless its organisation spent `quota` of its verification
    /// budget within the day (then answers how much, and inserts nothing). The
    /// organisation's row is locked first, so racing requests cannot all see room.
    pub async fn insert_preflight_within(
        &self,
        record: PreflightRecord,
        quota: RollingDay,
    ) -> Result<Result<(), OverDailyQuota>, StoreError> {
        let (org, now) = (record.org_id, record.created_at);
        let txn = self.write().await?;
        crate::identity::orgs::lock_org(&txn, org).await?;
        if let Err(over) = verification_budget_admits(&txn, org, quota, now).await? {
            return Ok(Err(over));
        }
        preflights::Entity::insert(preflights::ActiveModel::from(record))
            .exec_without_returning(&txn)
            .await?;
        txn.commit().await?;
        Ok(Ok(()))
    }

    /// Whether the organisation has room in its verification budget now (read without a
    /// lock: the run's or the preflight's insert decides for good).
    pub async fn verification_budget_left(
        &self,
        org: Uuid,
        quota: RollingDay,
        now: DateTime<Utc>,
    ) -> Result<Result<(), OverDailyQuota>, StoreError> {
        verification_budget_admits(self.conn(), org, quota, now).await
    }

    /// Keeps a preflight whose checks are done.
    pub async fn insert_preflight(&self, record: PreflightRecord) -> Result<(), StoreError> {
        preflights::Entity::insert(preflights::ActiveModel::from(record))
            .exec_without_returning(self.conn())
            .await?;
        Ok(())
    }

    /// Keeps what a preflight's checks found.
    pub async fn finish_preflight(
        &self,
        id: Uuid,
        passed: bool,
        checks: &str,
        at: DateTime<Utc>,
    ) -> Result<PreflightRecord, StoreError> {
        let updated = preflights::ActiveModel {
            id: Set(id),
            passed: Set(passed),
            checks: Set(checks.to_owned()),
            finished_at: Set(Some(at)),
            ..Default::default()
        };
        Ok(preflights::Entity::update(updated)
            .exec(self.conn())
            .await?)
    }

    /// Forgets a preflight (one the platform could not finish: its budget is given back).
    pub async fn delete_preflight(&self, id: Uuid) -> Result<(), StoreError> {
        preflights::Entity::delete_by_id(id)
            .exec(self.conn())
            .await?;
        Ok(())
    }

    /// The listing's latest finished preflight that may be shown: a run's only once its run
    /// ended (a spot check is not announced by its preflight).
    pub async fn latest_preflight(
        &self,
        listing_id: Uuid,
    ) -> Result<Option<PreflightRecord>, StoreError> {
        let recent = preflights::Entity::find()
            .filter(preflights::Column::ListingId.eq(listing_id))
            .filter(preflights::Column::FinishedAt.is_not_null())
            .order_by_desc(preflights::Column::CreatedAt)
            .order_by_desc(preflights::Column::Id)
            .limit(20)
            .all(self.conn())
            .await?;
        for preflight in recent {
            let Some(run) = preflight.run_id else {
                return Ok(Some(preflight));
            };
            let ended = runs::Entity::find_by_id(run)
                .one(self.conn())
                .await?
                .is_none_or(|r| r.finished_at.is_some());
            if ended {
                return Ok(Some(preflight));
            }
        }
        Ok(None)
    }
}
