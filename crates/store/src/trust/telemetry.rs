//! A run's GPU samples: asked of the listing's agent once the run measured (the agent never
//! learns of a run before it ended), and kept once as the agent uploaded them.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use crate::entities::run_telemetry;
use crate::{Db, StoreError};

pub type TelemetryRecord = run_telemetry::Model;

/// How long a run's samples are kept: the signed report carries what was made of them.
pub const KEPT_DAYS: i64 = 30;

/// The most runs a listing's agent is asked for at once.
const MAX_WANTED: u64 = 16;

/// What became of an upload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TelemetryPut {
    Stored,
    /// No run of this listing asks for samples (or it stopped asking).
    NotWanted,
    /// The run's samples were uploaded already: the first upload stands.
    AlreadyReceived,
}

impl Db {
    /// Asks the listing's agent for a run's samples over `[from, until]`; asking twice keeps
    /// the first request. The listing's samples older than [`KEPT_DAYS`] go at the same time.
    pub async fn request_telemetry(
        &self,
        run_id: Uuid,
        listing_id: Uuid,
        (from, until): (DateTime<Utc>, DateTime<Utc>),
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let row = run_telemetry::ActiveModel {
            run_id: Set(run_id),
            listing_id: Set(listing_id),
            from_at: Set(from),
            until_at: Set(until),
            requested_at: Set(now),
            received_at: Set(None),
            samples: Set(None),
        };
        run_telemetry::Entity::delete_many()
            .filter(run_telemetry::Column::ListingId.eq(listing_id))
            .filter(run_telemetry::Column::RequestedAt.lt(now - chrono::Duration::days(KEPT_DAYS)))
            .exec(self.conn())
            .await?;
        run_telemetry::Entity::insert(row)
            .on_conflict_do_nothing_on([run_telemetry::Column::RunId])
            .exec(self.conn())
            .await?;
        Ok(())
    }

    /// The listing's runs whose samples are asked for and not yet uploaded, asked after
    /// `since` (older ones have left the agent's ring buffer), oldest first.
    pub async fn telemetry_wanted(
        &self,
        listing_id: Uuid,
        since: DateTime<Utc>,
    ) -> Result<Vec<TelemetryRecord>, StoreError> {
        Ok(run_telemetry::Entity::find()
            .filter(run_telemetry::Column::ListingId.eq(listing_id))
            .filter(run_telemetry::Column::RequestedAt.gt(since))
            .filter(run_telemetry::Column::ReceivedAt.is_null())
            .order_by_asc(run_telemetry::Column::RequestedAt)
            .order_by_asc(run_telemetry::Column::RunId)
            .limit(MAX_WANTED)
            .all(self.conn())
            .await?)
    }

    /// Keeps an upload for a run of `listing_id` that asks for one (asked after `since`).
    pub async fn put_telemetry(
        &self,
        listing_id: Uuid,
        run_id: Uuid,
        samples: &str,
        (since, now): (DateTime<Utc>, DateTime<Utc>),
    ) -> Result<TelemetryPut, StoreError> {
        let updated = run_telemetry::Entity::update_many()
            .col_expr(run_telemetry::Column::Samples, Expr::value(samples))
            .col_expr(run_telemetry::Column::ReceivedAt, Expr::value(now))
            .filter(run_telemetry::Column::RunId.eq(run_id))
            .filter(run_telemetry::Column::ListingId.eq(listing_id))
            .filter(run_telemetry::Column::RequestedAt.gt(since))
            .filter(run_telemetry::Column::ReceivedAt.is_null())
            .exec(self.conn())
            .await?;
        if updated.rows_affected == 1 {
            return Ok(TelemetryPut::Stored);
        }
        let received = run_telemetry::Entity::find_by_id(run_id)
            .filter(run_telemetry::Column::ListingId.eq(listing_id))
            .filter(run_telemetry::Column::ReceivedAt.is_not_null())
            .one(self.conn())
            .await?;
        Ok(if received.is_some() {
            TelemetryPut::AlreadyReceived
        } else {
            TelemetryPut::NotWanted
        })
    }

    /// A run's samples request, with the upload once it came.
    pub async fn telemetry_of(&self, run_id: Uuid) -> Result<Option<TelemetryRecord>, StoreError> {
        Ok(run_telemetry::Entity::find_by_id(run_id)
            .one(self.conn())
            .await?)
    }
}
