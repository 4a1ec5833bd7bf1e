//! Raising an interruptible booking's bid: under the renter's lock (their budget judges the
//! difference) and the listing's (so no displacement decides on half of it) — at once where
//! nothing is collected, else as a raise charged for the difference that holds from its
//! payment.

use chrono::{DateTime, Utc};
use domain::BookingStatus;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

use crate::entities::{bid_raises, bookings};
use crate::money::ledger::{NewLedgerEntry, insert_ledger};
use crate::status::raise_status;
use crate::{BookingRecord, Db, StoreError};

/// Why a bid was not raised.
#[derive(Debug, thiserror::Error)]
pub enum RaiseError {
    /// The booking no longer holds its GPUs at a bid (displaced, cancelled, over) or its bid
    /// is not below the new one any more: as it stands now.
    #[error("the booking's bid cannot be raised as it stands")]
    Stale(Box<BookingRecord>),
    /// The renter's budget refuses what the raise costs.
    #[error(transparent)]
    Refused(#[from] domain::booking::Refusal),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<sea_orm::DbErr> for RaiseError {
    fn from(e: sea_orm::DbErr) -> Self {
        Self::Store(StoreError::Database(e))
    }
}

impl Db {
    /// Raises an interruptible booking's bid to `bid`, repricing it at `price` (where nothing
    /// is collected): under the renter's lock (their budget judges the difference with
    /// `within_budget`) and the listing's (so no displacement decides on half of it), only
    /// while the booking still holds its GPUs at a lower bid.
    pub async fn raise_bid(
        &self,
        booking: &BookingRecord,
        (bid, price): (i64, i64),
        now: DateTime<Utc>,
        within_budget: impl FnOnce(&domain::booking::RenterOpen) -> Result<(), domain::booking::Refusal>,
    ) -> Result<BookingRecord, RaiseError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let open = crate::market::bookings::lock_renter(&txn, booking.renter_id, now).await?;
        crate::capacity::lock_listing(&txn, booking.listing_id).await?;
        let current = locked_booking(&txn, booking.id).await?;
        if !raisable(&current, bid, now) {
            return Err(RaiseError::Stale(Box::new(current)));
        }
        let cost = price - current.price_amount;
        within_budget(&open)?;
        bookings::Entity::update_many()
            .col_expr(bookings::Column::BidPerGpuHour, Expr::value(bid))
            .col_expr(bookings::Column::AmountPerGpuHour, Expr::value(bid))
            .col_expr(bookings::Column::PriceAmount, Expr::value(price))
            .filter(bookings::Column::Id.eq(booking.id))
            .exec(&txn)
            .await?;
        crate::money::budgets::alert_spending(
            &txn,
            booking.renter_id,
            open.budget.as_ref(),
            cost,
            now,
        )
        .await?;
        txn.commit().await?;
        Ok(bookings::Entity::find_by_id(booking.id)
            .one(self.conn())
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("booking {} vanished", booking.id)))?)
    }
}

/// A bid raise as stored.
pub type BidRaiseRecord = bid_raises::Model;

/// A raise to charge for.
#[derive(Debug, Clone)]
pub struct NewBidRaise {
    pub id: Uuid,
    pub bid: i64,
    /// The booking's whole price at `bid`.
    pub price: i64,
    pub platform_fee: i64,
    pub hold_expires_at: DateTime<Utc>,
}

/// What a raise's payment did.
#[derive(Debug)]
pub enum RaisePaid {
    /// The raise is in force: the booking repriced, its charge in the ledger.
    Applied(Box<BookingRecord>),
    /// It can no longer hold (the booking released, over, displaced or repriced, or the raise
    /// expired or was replaced): its money is to be given back in full.
    Late(Box<BidRaiseRecord>),
    /// Its payment was recorded before.
    Done,
}

/// Whether `booking` holds its GPUs at a bid below `bid` at `now`, no cancellation asked for.
fn raisable(booking: &BookingRecord, bid: i64, now: DateTime<Utc>) -> bool {
    let below = matches!(
        domain::booking::Tier::of(&booking.tier, booking.bid_per_gpu_hour),
        domain::booking::Tier::Interruptible { bid: held } if held < bid
    );
    below
        && booking.interrupted_at.is_none()
        // A cancellation asked for fixed its refund on the price as it stood.
        && booking.cancel_requested_at.is_none()
        && booking.status.holds_capacity()
        && booking.ends_at > now
}

async fn locked_booking(
    conn: &impl ConnectionTrait,
    id: Uuid,
) -> Result<BookingRecord, StoreError> {
    bookings::Entity::find_by_id(id)
        .lock_exclusive()
        .one(conn)
        .await?
        .ok_or_else(|| StoreError::Corrupt(format!("booking {id} vanished")))
}

impl Db {
    /// Records a raise of a paid interruptible booking's bid to be charged for (the payment
    /// provider's PaymentIntent for the difference is made next): under the renter's lock
    /// (their budget judges the difference with `within_budget`, the raise counted against it
    /// until paid or expired) and the listing's, only while the booking, paid, holds its GPUs
    /// at a lower bid at the price it was priced at, and no other raise of it waits.
    pub async fn ask_raise(
        &self,
        booking: &BookingRecord,
        raise: &NewBidRaise,
        now: DateTime<Utc>,
        within_budget: impl FnOnce(&domain::booking::RenterOpen) -> Result<(), domain::booking::Refusal>,
    ) -> Result<BidRaiseRecord, RaiseError> {
        let txn = self.write().await?;
        let open = crate::market::bookings::lock_renter(&txn, booking.renter_id, now).await?;
        crate::capacity::lock_listing(&txn, booking.listing_id).await?;
        let current = locked_booking(&txn, booking.id).await?;
        let paid = matches!(
            *current.status,
            BookingStatus::Confirmed | BookingStatus::Active
        );
        let waiting = bid_raises::Entity::find()
            .filter(bid_raises::Column::BookingId.eq(booking.id))
            .filter(bid_raises::Column::Status.eq(raise_status::PENDING_PAYMENT))
            .one(&txn)
            .await?;
        if !raisable(&current, raise.bid, now)
            || !paid
            || current.price_amount != booking.price_amount
            || waiting.is_some()
        {
            return Err(RaiseError::Stale(Box::new(current)));
        }
        within_budget(&open)?;
        let from_bid = current.bid_per_gpu_hour.unwrap_or_default();
        let record = bid_raises::ActiveModel {
            id: Set(raise.id),
            booking_id: Set(booking.id),
            renter_id: Set(booking.renter_id),
            from_bid: Set(from_bid),
            bid_per_gpu_hour: Set(raise.bid),
            price_amount: Set(raise.price),
            amount: Set(raise.price - current.price_amount),
            platform_fee_amount: Set(raise.platform_fee),
            currency: Set(current.currency.clone()),
            status: Set(raise_status::PENDING_PAYMENT.to_owned()),
            payment_intent_id: Set(None),
            client_secret: Set(None),
            payment_error: Set(None),
            hold_expires_at: Set(raise.hold_expires_at),
            created_at: Set(now),
            paid_at: Set(None),
        }
        .insert(&txn)
        .await?;
        crate::money::budgets::alert_spending(
            &txn,
            booking.renter_id,
            open.budget.as_ref(),
            record.amount,
            now,
        )
        .await?;
        txn.commit().await?;
        Ok(record)
    }

    /// Attaches the PaymentIntent made for a raise still waiting for it; `false` when the
    /// raise ended meanwhile (replaced, withdrawn): its intent is then the caller's to cancel.
    pub async fn attach_raise_intent(
        &self,
        raise: Uuid,
        intent: &str,
        client_secret: Option<&str>,
    ) -> Result<bool, StoreError> {
        let attached = bid_raises::Entity::update_many()
            .col_expr(bid_raises::Column::PaymentIntentId, Expr::value(intent))
            .col_expr(bid_raises::Column::ClientSecret, Expr::value(client_secret))
            .filter(bid_raises::Column::Id.eq(raise))
            .filter(bid_raises::Column::Status.eq(raise_status::PENDING_PAYMENT))
            .exec(self.conn())
            .await?;
        Ok(attached.rows_affected == 1)
    }

    /// Ends a raise still waiting for its payment as `status` (`expired`, `cancelled` or
    /// `failed`), with why when told; `false` when it was not waiting any more.
    pub async fn end_raise(
        &self,
        raise: Uuid,
        status: &'static str,
        error: Option<&str>,
    ) -> Result<bool, StoreError> {
        let mut update = bid_raises::Entity::update_many()
            .col_expr(bid_raises::Column::Status, Expr::value(status))
            .filter(bid_raises::Column::Id.eq(raise))
            .filter(bid_raises::Column::Status.eq(raise_status::PENDING_PAYMENT));
        if let Some(error) = error {
            update = update.col_expr(bid_raises::Column::PaymentError, Expr::value(error));
        }
        Ok(update.exec(self.conn()).await?.rows_affected == 1)
    }

    pub async fn bid_raise(&self, id: Uuid) -> Result<Option<BidRaiseRecord>, StoreError> {
        Ok(bid_raises::Entity::find_by_id(id).one(self.conn()).await?)
    }

    pub async fn bid_raise_by_intent(
        &self,
        intent: &str,
    ) -> Result<Option<BidRaiseRecord>, StoreError> {
        Ok(bid_raises::Entity::find()
            .filter(bid_raises::Column::PaymentIntentId.eq(intent))
            .one(self.conn())
            .await?)
    }

    /// A booking's latest bid raise charged for, whatever became of it.
    pub async fn latest_raise_of(
        &self,
        booking: Uuid,
    ) -> Result<Option<BidRaiseRecord>, StoreError> {
        Ok(bid_raises::Entity::find()
            .filter(bid_raises::Column::BookingId.eq(booking))
            .order_by_desc(bid_raises::Column::CreatedAt)
            .one(self.conn())
            .await?)
    }

    /// Every bid raise of a booking, oldest first.
    pub async fn bid_raises_of(&self, booking: Uuid) -> Result<Vec<BidRaiseRecord>, StoreError> {
        Ok(bid_raises::Entity::find()
            .filter(bid_raises::Column::BookingId.eq(booking))
            .order_by_asc(bid_raises::Column::CreatedAt)
            .all(self.conn())
            .await?)
    }

    /// Raises waiting for a payment whose hold expired by `now`.
    pub async fn expired_raises(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<BidRaiseRecord>, StoreError> {
        Ok(bid_raises::Entity::find()
            .filter(bid_raises::Column::Status.eq(raise_status::PENDING_PAYMENT))
            .filter(bid_raises::Column::HoldExpiresAt.lte(now))
            .all(self.conn())
            .await?)
    }

    /// A raise's payment arrived: where the booking still holds its GPUs at the price the
    /// raise was asked against and a lower bid, the raise holds — the booking repriced at it,
    /// its fee added, `ledger(booking)` recorded — in one transaction under the booking's
    /// lock; otherwise it is late and is to be refunded.
    pub async fn raise_paid(
        &self,
        raise: Uuid,
        ledger: impl FnOnce(&BookingRecord) -> Vec<NewLedgerEntry>,
        now: DateTime<Utc>,
    ) -> Result<RaisePaid, StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let vanished = || StoreError::Corrupt(format!("bid raise {raise} vanished"));
        let of: Uuid = bid_raises::Entity::find_by_id(raise)
            .select_only()
            .column(bid_raises::Column::BookingId)
            .into_tuple()
            .one(&txn)
            .await?
            .ok_or_else(vanished)?;
        // Under the listing's lock (so no capacity decision displaces the booking at its old
        // bid on either side of the raise), then the booking's, as every decision takes them.
        crate::capacity::lock_listing_of(&txn, of).await?;
        let booking = locked_booking(&txn, of).await?;
        // Read again under the booking's lock: a delivery racing this one (the same intent
        // under two event ids) decided before it, and what it decided stands.
        let asked = bid_raises::Entity::find_by_id(raise)
            .lock_exclusive()
            .one(&txn)
            .await?
            .ok_or_else(vanished)?;
        if matches!(
            asked.status.as_str(),
            raise_status::PAID | raise_status::REFUNDED
        ) {
            return Ok(RaisePaid::Done);
        }
        let holds = asked.status == raise_status::PENDING_PAYMENT
            && raisable(&booking, asked.bid_per_gpu_hour, now)
            && booking.price_amount + asked.amount == asked.price_amount;
        if !holds {
            return Ok(RaisePaid::Late(Box::new(asked)));
        }
        bookings::Entity::update_many()
            .col_expr(
                bookings::Column::BidPerGpuHour,
                Expr::value(asked.bid_per_gpu_hour),
            )
            .col_expr(
                bookings::Column::AmountPerGpuHour,
                Expr::value(asked.bid_per_gpu_hour),
            )
            .col_expr(
                bookings::Column::PriceAmount,
                Expr::value(asked.price_amount),
            )
            .col_expr(
                bookings::Column::PlatformFeeAmount,
                Expr::value(
                    booking.platform_fee_amount.unwrap_or_default() + asked.platform_fee_amount,
                ),
            )
            .filter(bookings::Column::Id.eq(booking.id))
            .exec(&txn)
            .await?;
        bid_raises::Entity::update_many()
            .col_expr(bid_raises::Column::Status, Expr::value(raise_status::PAID))
            .col_expr(bid_raises::Column::PaidAt, Expr::value(now))
            .filter(bid_raises::Column::Id.eq(raise))
            .exec(&txn)
            .await?;
        let repriced = locked_booking(&txn, booking.id).await?;
        insert_ledger(&txn, &ledger(&repriced), now).await?;
        txn.commit().await?;
        Ok(RaisePaid::Applied(Box::new(repriced)))
    }

    /// Records a late raise's payment refunded in full, with its ledger rows.
    pub async fn raise_refunded(
        &self,
        raise: Uuid,
        ledger: &[NewLedgerEntry],
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let txn = self.write().await?;
        bid_raises::Entity::update_many()
            .col_expr(
                bid_raises::Column::Status,
                Expr::value(raise_status::REFUNDED),
            )
            .col_expr(bid_raises::Column::PaidAt, Expr::value(now))
            .filter(bid_raises::Column::Id.eq(raise))
            .filter(bid_raises::Column::Status.ne(raise_status::PAID))
            .exec(&txn)
            .await?;
        insert_ledger(&txn, ledger, now).await?;
        txn.commit().await?;
        Ok(())
    }
}
