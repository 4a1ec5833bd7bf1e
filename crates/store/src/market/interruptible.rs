//! Interruptible bookings displaced. Inside the transaction of the booking that displaces them
//! (under the listing's lock), each is moved — at once to `interrupted` when it had not started
//! or was never paid, to `interrupting` with its `ends_at` moved to the end of its notice
//! (`booked_ends_at` keeps the end it was booked for) otherwise — with the refund it is due
//! recorded and its event written. What was paid is given back after the transaction
//! ([`Db::displacement_refunded`]), or by a sweep when the payment provider failed
//! ([`Db::owed_displacement_refunds`]). The sweep ends an interrupting booking once its notice
//! has run out ([`end_interrupting`]).

use chrono::{DateTime, Utc};
use domain::BookingStatus;
use domain::booking::interruptible::Displaced;
use domain::webhook::{BookingInterruption, Event};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use crate::entities::{booking_interruptions, bookings};
use crate::money::ledger::{NewLedgerEntry, insert_ledger};
use crate::outbox::{booking_facts, booking_money, emit};
use crate::status::{booking_status, move_to};
use crate::{BookingRecord, Db, StoreError};

/// A booking displaced, as the booking that displaced it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DisplacedBooking {
    pub id: Uuid,
    /// It was waiting for its payment: nothing to give back, its PaymentIntent to cancel.
    pub unpaid: bool,
}

/// Moves each of `displaced` (decided by `domain::booking::interruptible::admit_displacing`
/// under the listing's lock) out of the way, in the caller's transaction.
pub(crate) async fn displace(
    conn: &impl ConnectionTrait,
    displaced: &[Displaced],
    now: DateTime<Utc>,
) -> Result<Vec<DisplacedBooking>, StoreError> {
    let mut moved_out = Vec::with_capacity(displaced.len());
    for d in displaced {
        let id = d.booking.as_uuid();
        // Locked, so that a payment or a sweep moving it waits for this decision.
        let booking = bookings::Entity::find_by_id(id)
            .lock_exclusive()
            .one(conn)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("displaced booking {id} vanished")))?;
        let taken: Vec<(DateTime<Utc>, DateTime<Utc>)> = booking_interruptions::Entity::find()
            .select_only()
            .column(booking_interruptions::Column::StartsAt)
            .column(booking_interruptions::Column::EndsAt)
            .filter(booking_interruptions::Column::BookingId.eq(id))
            .into_tuple()
            .all(conn)
            .await?;
        let paid = booking_money(&booking, booking.price_amount)?;
        let interval =
            domain::booking::Interval::new(booking.starts_at, booking.ends_at, booking.starts_at)
                .map_err(|e| StoreError::Corrupt(format!("booking {id}: {e}")))?;
        let unpaid = *booking.status == BookingStatus::PendingPayment;
        let (next, ends_at, refund) = match d.access_until {
            // Never paid: nothing to give back, no access to end.
            _ if unpaid => (BookingStatus::Interrupted, booking.ends_at, 0),
            None => (
                BookingStatus::Interrupted,
                booking.ends_at,
                domain::booking::refund(paid, &interval, now, &taken).minor(),
            ),
            Some(until) => (
                BookingStatus::Interrupting,
                until,
                domain::booking::refund(paid, &interval, until, &taken).minor(),
            ),
        };
        // Nothing moves where nothing was paid or taken: given back as it is recorded.
        let settled = (refund == 0 || booking.payment_provider.is_none()).then_some(now);
        let moved = bookings::Entity::update_many()
            .col_expr(bookings::Column::Status, Expr::value(next.as_str()))
            .col_expr(bookings::Column::EndsAt, Expr::value(ends_at))
            .col_expr(
                bookings::Column::BookedEndsAt,
                Expr::value((ends_at != booking.ends_at).then_some(booking.ends_at)),
            )
            .col_expr(bookings::Column::InterruptedAt, Expr::value(now))
            .col_expr(bookings::Column::RefundAmount, Expr::value(refund))
            .col_expr(
                bookings::Column::InterruptionRefundedAt,
                Expr::value(settled),
            )
            .filter(bookings::Column::Id.eq(id))
            .filter(bookings::Column::Status.eq(booking.status.as_str()))
            .exec(conn)
            .await?;
        if moved.rows_affected != 1 {
            return Err(StoreError::Corrupt(format!(
                "displaced booking {id} changed under its lock"
            )));
        }
        let after = BookingRecord {
            status: next.into(),
            ends_at,
            ..booking
        };
        let interruption = BookingInterruption {
            booking: booking_facts(&after)?,
            access_until: (next == BookingStatus::Interrupting).then_some(ends_at),
            refund: paid.with_minor(refund),
        };
        let event = match next {
            BookingStatus::Interrupting => Event::BookingInterrupting(interruption),
            _ => Event::BookingInterrupted(interruption),
        };
        emit(conn, &event, now).await?;
        moved_out.push(DisplacedBooking { id, unpaid });
    }
    Ok(moved_out)
}

/// Ends the interrupting bookings whose notice has run out by `now` (their `ends_at`), each
/// with its `booking.interrupted`, in the sweep's transaction. Returns how many.
pub(crate) async fn end_interrupting(
    conn: &impl ConnectionTrait,
    now: DateTime<Utc>,
) -> Result<u64, StoreError> {
    let ended = move_to(
        bookings::Entity::update_many(),
        bookings::Column::Status,
        BookingStatus::Interrupted,
    )
    .filter(bookings::Column::Status.eq(booking_status::INTERRUPTING))
    .filter(bookings::Column::EndsAt.lte(now))
    .exec_with_returning(conn)
    .await?;
    for booking in &ended {
        let interruption = BookingInterruption {
            booking: booking_facts(booking)?,
            access_until: Some(booking.ends_at),
            refund: booking_money(booking, booking.refund_amount.unwrap_or(0))?,
        };
        emit(
            conn,
            &Event::BookingInterrupted(interruption),
            booking.ends_at,
        )
        .await?;
    }
    Ok(ended.len() as u64)
}

impl Db {
    /// Displaced bookings whose refund is still owed: paid with the payment provider (a
    /// charge is recorded), oldest displacement first, at most `limit`.
    pub async fn owed_displacement_refunds(
        &self,
        limit: u64,
    ) -> Result<Vec<BookingRecord>, StoreError> {
        let charged = crate::market::maintenance_windows::charged_bookings();
        Ok(bookings::Entity::find()
            .filter(bookings::Column::InterruptedAt.is_not_null())
            .filter(bookings::Column::InterruptionRefundedAt.is_null())
            .filter(bookings::Column::RefundAmount.gt(0))
            .filter(bookings::Column::Id.in_subquery(charged))
            .order_by_asc(bookings::Column::InterruptedAt)
            .order_by_asc(bookings::Column::Id)
            .limit(limit)
            .all(self.conn())
            .await?)
    }

    /// Records a displaced booking's refund given back — by `refund_id` with the payment
    /// provider, with its ledger rows — once: `false` when it already was.
    pub async fn displacement_refunded(
        &self,
        id: Uuid,
        refund_id: Option<&str>,
        ledger: &[NewLedgerEntry],
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let txn = self.write().await?;
        let marked = bookings::Entity::update_many()
            .col_expr(bookings::Column::InterruptionRefundedAt, Expr::value(now))
            .col_expr(
                bookings::Column::InterruptionRefundId,
                Expr::value(refund_id.map(str::to_owned)),
            )
            .filter(bookings::Column::Id.eq(id))
            .filter(bookings::Column::InterruptedAt.is_not_null())
            .filter(bookings::Column::InterruptionRefundedAt.is_null())
            .exec(&txn)
            .await?;
        if marked.rows_affected != 1 {
            return Ok(false);
        }
        insert_ledger(&txn, ledger, now).await?;
        txn.commit().await?;
        Ok(true)
    }
}
