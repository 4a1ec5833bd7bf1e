//! Bookings, and the one place capacity is enforced: inside a transaction that first takes
//! the listing's write lock (an `UPDATE` of its row — a row lock on PostgreSQL, the database
//! write lock on SQLite), so racing bookings of one machine are decided one after another.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, EntityTrait, QueryFilter, TransactionTrait,
};
use uuid::Uuid;

use crate::entities::{bookings, listings};
use crate::{Db, StoreError, conflict_as};

pub type BookingRecord = bookings::Model;

pub mod booking_status {
    pub const PENDING_PAYMENT: &str = "pending_payment";
    pub const CONFIRMED: &str = "confirmed";
    pub const ACTIVE: &str = "active";
    pub const COMPLETED: &str = "completed";
    pub const CANCELLED: &str = "cancelled";
    pub const EXPIRED: &str = "expired";
}

/// Why a booking was not made.
#[derive(Debug, thiserror::Error)]
pub enum BookingError {
    #[error("no such listing")]
    NoListing,
    /// The machine does not have the GPUs free over the interval.
    #[error("capacity taken")]
    Capacity,
    /// The renter already used this idempotency key (a racing retry): here is that booking.
    #[error("idempotency key already used")]
    KeyUsed,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for BookingError {
    fn from(e: sea_orm::DbErr) -> Self {
        Self::Store(StoreError::Database(e))
    }
}

/// Bookings that hold capacity at `now`: pending ones until their hold expires, confirmed
/// and active ones.
fn holds_capacity(now: DateTime<Utc>) -> Condition {
    Condition::any()
        .add(bookings::Column::Status.is_in([booking_status::CONFIRMED, booking_status::ACTIVE]))
        .add(
            Condition::all()
                .add(bookings::Column::Status.eq(booking_status::PENDING_PAYMENT))
                .add(bookings::Column::HoldExpiresAt.gt(now)),
        )
}

impl Db {
    /// Inserts `booking` when, with it, the listing's GPUs are never over-committed at any
    /// instant (`fits` decides from the overlapping bookings and the listing's GPU count).
    pub async fn book(
        &self,
        booking: BookingRecord,
        now: DateTime<Utc>,
        fits: impl FnOnce(&[(DateTime<Utc>, DateTime<Utc>, i32)], i32) -> bool,
    ) -> Result<BookingRecord, BookingError> {
        let txn = self.conn().begin().await?;
        let locked = listings::Entity::update_many()
            .col_expr(
                listings::Column::UpdatedAt,
                Expr::col(listings::Column::UpdatedAt),
            )
            .filter(listings::Column::Id.eq(booking.listing_id))
            .exec(&txn)
            .await?;
        if locked.rows_affected == 0 {
            return Err(BookingError::NoListing);
        }
        let listing = listings::Entity::find_by_id(booking.listing_id)
            .one(&txn)
            .await?
            .ok_or(BookingError::NoListing)?;
        let overlapping: Vec<(DateTime<Utc>, DateTime<Utc>, i32)> = bookings::Entity::find()
            .filter(bookings::Column::ListingId.eq(booking.listing_id))
            .filter(bookings::Column::StartsAt.lt(booking.ends_at))
            .filter(bookings::Column::EndsAt.gt(booking.starts_at))
            .filter(holds_capacity(now))
            .all(&txn)
            .await?
            .into_iter()
            .map(|b| (b.starts_at, b.ends_at, b.gpu_count))
            .collect();
        if !fits(&overlapping, listing.gpu_count) {
            return Err(BookingError::Capacity);
        }
        let id = booking.id;
        let model = bookings::ActiveModel {
            id: Set(booking.id),
            listing_id: Set(booking.listing_id),
            renter_id: Set(booking.renter_id),
            gpu_count: Set(booking.gpu_count),
            starts_at: Set(booking.starts_at),
            ends_at: Set(booking.ends_at),
            status: Set(booking.status),
            price_amount: Set(booking.price_amount),
            currency: Set(booking.currency),
            idempotency_key: Set(booking.idempotency_key),
            request_hash: Set(booking.request_hash),
            hold_expires_at: Set(booking.hold_expires_at),
            cancelled_at: Set(None),
            refund_amount: Set(None),
            created_at: Set(booking.created_at),
        };
        bookings::Entity::insert(model)
            .exec_without_returning(&txn)
            .await
            .map_err(|e| match conflict_as("idempotency key")(e) {
                StoreError::Conflict(_) => BookingError::KeyUsed,
                other => BookingError::Store(other),
            })?;
        txn.commit().await?;
        self.booking_by_id(id).await?.ok_or_else(|| {
            BookingError::Store(StoreError::Corrupt(format!("booking {id} vanished")))
        })
    }

    pub async fn booking_by_id(&self, id: Uuid) -> Result<Option<BookingRecord>, StoreError> {
        Ok(bookings::Entity::find_by_id(id).one(self.conn()).await?)
    }

    pub async fn booking_by_key(
        &self,
        renter: Uuid,
        key: &str,
    ) -> Result<Option<BookingRecord>, StoreError> {
        Ok(bookings::Entity::find()
            .filter(bookings::Column::RenterId.eq(renter))
            .filter(bookings::Column::IdempotencyKey.eq(key))
            .one(self.conn())
            .await?)
    }

    /// Cancels a booking that still holds capacity, recording the refund due; `false` when
    /// it no longer could be cancelled.
    pub async fn cancel_booking(
        &self,
        id: Uuid,
        refund: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let result = bookings::Entity::update_many()
            .col_expr(
                bookings::Column::Status,
                Expr::value(booking_status::CANCELLED),
            )
            .col_expr(bookings::Column::CancelledAt, Expr::value(now))
            .col_expr(bookings::Column::RefundAmount, Expr::value(refund))
            .filter(bookings::Column::Id.eq(id))
            .filter(bookings::Column::Status.is_in([
                booking_status::PENDING_PAYMENT,
                booking_status::CONFIRMED,
                booking_status::ACTIVE,
            ]))
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected == 1)
    }
}
