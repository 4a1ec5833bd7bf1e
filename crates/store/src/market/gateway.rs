//! Requests through the metered gateway, and the streams it has open: leased rows shared by
//! every API replica when they share PostgreSQL and no Redis.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, EntityTrait, IntoActiveModel, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

use crate::entities::{gateway_requests, gateway_streams};
use crate::{Db, StoreError};

pub type GatewayRequestRecord = gateway_requests::Model;

impl Db {
    pub async fn insert_gateway_request(
        &self,
        request: GatewayRequestRecord,
    ) -> Result<(), StoreError> {
        gateway_requests::Entity::insert(request.into_active_model())
            .exec_without_returning(self.conn())
            .await?;
        Ok(())
    }

    /// Bookings that asked to end when idle and give access at `now` (started, not ended, no
    /// cancellation asked), each with when its last gateway request finished.
    pub async fn idle_candidates(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<(crate::BookingRecord, Option<DateTime<Utc>>)>, StoreError> {
        use crate::entities::bookings;
        use crate::status::booking_status;
        let found = bookings::Entity::find()
            .filter(bookings::Column::StopWhenIdleSecs.is_not_null())
            .filter(bookings::Column::Status.is_in(booking_status::GIVING_ACCESS))
            .filter(bookings::Column::StartsAt.lte(now))
            .filter(bookings::Column::EndsAt.gt(now))
            .filter(bookings::Column::CancelRequestedAt.is_null())
            .all(self.conn())
            .await?;
        let mut out = Vec::with_capacity(found.len());
        for booking in found {
            let last: Option<DateTime<Utc>> = gateway_requests::Entity::find()
                .select_only()
                .column(gateway_requests::Column::FinishedAt)
                .filter(gateway_requests::Column::BookingId.eq(booking.id))
                .order_by_desc(gateway_requests::Column::FinishedAt)
                .into_tuple()
                .one(self.conn())
                .await?;
            out.push((booking, last));
        }
        Ok(out)
    }

    /// How many of a booking's streams are open at `now` (their leases not run out).
    pub async fn open_gateway_streams(
        &self,
        booking: Uuid,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        Ok(gateway_streams::Entity::find()
            .filter(gateway_streams::Column::BookingId.eq(booking))
            .filter(gateway_streams::Column::ExpiresAt.gt(now))
            .count(self.conn())
            .await?)
    }

    /// A booking's requests that finished from `since` on, in the order they finished, at
    /// most `limit`.
    pub async fn gateway_requests_of(
        &self,
        booking: Uuid,
        since: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<GatewayRequestRecord>, StoreError> {
        Ok(gateway_requests::Entity::find()
            .filter(gateway_requests::Column::BookingId.eq(booking))
            .filter(gateway_requests::Column::FinishedAt.gte(since))
            .order_by_asc(gateway_requests::Column::FinishedAt)
            .limit(limit)
            .all(self.conn())
            .await?)
    }
}

/// A stream to open: whose, on which machine, its booking's share, and how long its lease
/// lasts before it is renewed.
#[derive(Debug, Clone, Copy)]
pub struct StreamLease {
    pub id: Uuid,
    pub booking_id: Uuid,
    pub listing_id: Uuid,
    /// The engine the stream goes to, a key of its origin: every listing naming the same
    /// engine counts its streams together.
    pub machine: Uuid,
    pub max_streams: u64,
    pub expires_at: DateTime<Utc>,
}

impl Db {
    /// Opens a stream unless its booking has `max_streams` open already (`None`), counting
    /// only unexpired leases; one transaction per engine at a time (on PostgreSQL a
    /// transaction's advisory lock on the engine's key; SQLite writes one at a time). Returns
    /// the streams now open to the engine; every open stream's peak is raised to it.
    pub async fn admit_gateway_stream(
        &self,
        lease: StreamLease,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>, StoreError> {
        let txn = self.write().await?;
        if self.backend() == crate::Backend::Postgres {
            let (high, _) = lease.machine.as_u64_pair();
            use sea_orm::ConnectionTrait;
            txn.query_one_raw(sea_orm::Statement::from_sql_and_values(
                sea_orm::DatabaseBackend::Postgres,
                "SELECT pg_advisory_xact_lock($1)",
                [sea_orm::Value::from(high as i64)],
            ))
            .await?;
        }
        gateway_streams::Entity::delete_many()
            .filter(gateway_streams::Column::Machine.eq(lease.machine))
            .filter(gateway_streams::Column::ExpiresAt.lte(now))
            .exec(&txn)
            .await?;
        let of_booking = gateway_streams::Entity::find()
            .filter(gateway_streams::Column::BookingId.eq(lease.booking_id))
            .count(&txn)
            .await?;
        if of_booking >= lease.max_streams {
            txn.rollback().await?;
            return Ok(None);
        }
        gateway_streams::Entity::insert(gateway_streams::ActiveModel {
            id: Set(lease.id),
            booking_id: Set(lease.booking_id),
            listing_id: Set(lease.listing_id),
            machine: Set(Some(lease.machine)),
            expires_at: Set(lease.expires_at),
            peak: Set(0),
        })
        .exec_without_returning(&txn)
        .await?;
        let open = gateway_streams::Entity::find()
            .filter(gateway_streams::Column::Machine.eq(lease.machine))
            .count(&txn)
            .await?;
        let peak = i32::try_from(open).unwrap_or(i32::MAX);
        gateway_streams::Entity::update_many()
            .col_expr(gateway_streams::Column::Peak, Expr::value(peak))
            .filter(gateway_streams::Column::Machine.eq(lease.machine))
            .filter(gateway_streams::Column::Peak.lt(peak))
            .exec(&txn)
            .await?;
        txn.commit().await?;
        Ok(Some(open))
    }

    /// Extends an open stream's lease (written back if it had expired and was removed: the
    /// stream is still open, so it still counts).
    pub async fn renew_gateway_stream(&self, lease: StreamLease) -> Result<(), StoreError> {
        gateway_streams::Entity::insert(gateway_streams::ActiveModel {
            id: Set(lease.id),
            booking_id: Set(lease.booking_id),
            listing_id: Set(lease.listing_id),
            machine: Set(Some(lease.machine)),
            expires_at: Set(lease.expires_at),
            peak: Set(1),
        })
        .on_conflict(
            OnConflict::column(gateway_streams::Column::Id)
                .update_column(gateway_streams::Column::ExpiresAt)
                .to_owned(),
        )
        .exec_without_returning(self.conn())
        .await?;
        Ok(())
    }

    /// Closes a stream; returns its peak (the load it was served at), when it was open.
    pub async fn release_gateway_stream(&self, id: Uuid) -> Result<Option<u64>, StoreError> {
        let txn = self.write().await?;
        let row = gateway_streams::Entity::find_by_id(id).one(&txn).await?;
        gateway_streams::Entity::delete_by_id(id).exec(&txn).await?;
        txn.commit().await?;
        Ok(row.map(|r| u64::try_from(r.peak.max(1)).unwrap_or(1)))
    }
}
