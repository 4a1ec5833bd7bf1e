//! A booking's container's logs, asked of its machine's agent (which connects outward only):
//! the renter's request is a row the desired state names until the agent answers it.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use crate::entities::container_logs;
use crate::{Db, StoreError};

pub type ContainerLogsRecord = container_logs::Model;

/// The most requests a machine's agent is asked at once.
const MAX_WANTED: u64 = 64;

impl Db {
    /// Asks for the last `tail` lines of a booking's container (a new request replaces an
    /// earlier one, answered or not); the request's id.
    pub async fn ask_container_logs(
        &self,
        (booking_id, listing_id): (Uuid, Uuid),
        tail: i32,
        now: DateTime<Utc>,
    ) -> Result<Uuid, StoreError> {
        let request_id = Uuid::now_v7();
        let row = container_logs::ActiveModel {
            booking_id: Set(booking_id),
            listing_id: Set(listing_id),
            request_id: Set(request_id),
            tail: Set(tail),
            requested_at: Set(now),
            received_at: Set(None),
            text: Set(None),
        };
        container_logs::Entity::insert(row)
            .on_conflict(
                OnConflict::column(container_logs::Column::BookingId)
                    .update_columns([
                        container_logs::Column::RequestId,
                        container_logs::Column::Tail,
                        container_logs::Column::RequestedAt,
                        container_logs::Column::ReceivedAt,
                        container_logs::Column::Text,
                    ])
                    .to_owned(),
            )
            .exec_without_returning(self.conn())
            .await?;
        Ok(request_id)
    }

    /// The listing's unanswered requests made after `since`, oldest first.
    pub async fn container_logs_wanted(
        &self,
        listing_id: Uuid,
        since: DateTime<Utc>,
    ) -> Result<Vec<ContainerLogsRecord>, StoreError> {
        Ok(container_logs::Entity::find()
            .filter(container_logs::Column::ListingId.eq(listing_id))
            .filter(container_logs::Column::RequestedAt.gt(since))
            .filter(container_logs::Column::ReceivedAt.is_null())
            .order_by_asc(container_logs::Column::RequestedAt)
            .limit(MAX_WANTED)
            .all(self.conn())
            .await?)
    }

    /// Keeps the agent's answer to request `request_id` for a booking of `listing_id`;
    /// `false` when no such request waits (answered, replaced, or another listing's).
    pub async fn put_container_logs(
        &self,
        (listing_id, booking_id): (Uuid, Uuid),
        request_id: Uuid,
        text: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let updated = container_logs::Entity::update_many()
            .col_expr(container_logs::Column::Text, Expr::value(text))
            .col_expr(container_logs::Column::ReceivedAt, Expr::value(now))
            .filter(container_logs::Column::BookingId.eq(booking_id))
            .filter(container_logs::Column::ListingId.eq(listing_id))
            .filter(container_logs::Column::RequestId.eq(request_id))
            .filter(container_logs::Column::ReceivedAt.is_null())
            .exec(self.conn())
            .await?;
        Ok(updated.rows_affected == 1)
    }

    /// A booking's last logs request, with the answer once it came.
    pub async fn container_logs(
        &self,
        booking_id: Uuid,
    ) -> Result<Option<ContainerLogsRecord>, StoreError> {
        Ok(container_logs::Entity::find_by_id(booking_id)
            .one(self.conn())
            .await?)
    }
}
