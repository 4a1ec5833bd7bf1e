//! Cancellation, findable by name: whether a booking may be cancelled (its life cycle), the
//! refund it is due (the marketplace's rule, `domain::booking::refund`: all of it before the
//! start, the unused share after, leaving out what maintenance windows took, which they give
//! back themselves; nothing of a booking never paid), and carrying it out —
//! with Stripe first when money was taken, one refund however many cancels race or retry.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use domain::booking::{self, Interval};
use domain::{BookingStatus, Money};
use payments::PaymentProvider;
use store::BookingRecord;

use crate::market::bookings::Booking;
use crate::money::payments::provider_failed;
use crate::{App, AppError, Caller};

/// What cancelling `booking` at `now` refunds, or why it cannot be cancelled: a booking whose
/// life cycle does not lead to `cancelled` (it ended) is refused before any money moves; one
/// waiting for its payment was never paid, so nothing is refunded. `interrupted`: the parts
/// of it maintenance windows took (given back by their own refunds).
pub(crate) fn refund_due(
    booking: &BookingRecord,
    interrupted: &[store::InterruptionRecord],
    now: DateTime<Utc>,
) -> Result<Money, AppError> {
    let stored = |e: &dyn std::fmt::Display| {
        AppError::Internal(format!("stored booking {}: {e}", booking.id))
    };
    let status = *booking.status;
    if !status.can_become(BookingStatus::Cancelled) {
        return Err(AppError::BookingNotCancellable(status.to_string()));
    }
    let paid = crate::stored_money(booking.price_amount, &booking.currency)?;
    if booking.payment_provider.is_some() && status == BookingStatus::PendingPayment {
        return Ok(paid.with_minor(0));
    }
    let interval = Interval::new(booking.starts_at, booking.ends_at, booking.created_at)
        .map_err(|e| stored(&e))?;
    let taken: Vec<_> = interrupted
        .iter()
        .map(|i| (i.starts_at, i.ends_at))
        .collect();
    Ok(booking::refund(paid, &interval, now, &taken))
}

impl App {
    /// Cancels the caller's booking, freeing its capacity; the refund due follows the rule
    /// (all of it before the start, the unused share after).
    pub async fn cancel_booking(
        &self,
        caller: Caller,
        id: domain::BookingId,
    ) -> Result<Booking, AppError> {
        let id = id.as_uuid();
        let booking = self
            .db()
            .booking_by_id(id)
            .await?
            .ok_or(AppError::NotFound("booking"))?;
        if booking.renter_id != caller.user_id.as_uuid() {
            return Err(AppError::NotFound("booking"));
        }
        if !self.cancel_as_renter(&booking, Utc::now()).await? {
            return Err(AppError::BookingNotCancellable(booking.status.to_string()));
        }
        self.one_booking(
            self.db()
                .booking_by_id(id)
                .await?
                .ok_or(AppError::NotFound("booking"))?,
        )
        .await
    }

    /// Cancels `booking` as its renter would at `now`, with the refund the rule gives (its
    /// own cancellation, or its idle stop); `false` when it no longer could be cancelled.
    pub(crate) async fn cancel_as_renter(
        &self,
        booking: &BookingRecord,
        now: DateTime<Utc>,
    ) -> Result<bool, AppError> {
        let interrupted = self.db().interruptions_of(booking.id).await?;
        let refund = refund_due(booking, &interrupted, now)?;
        let cancelled = if booking.payment_provider.is_some() {
            // Money moves first; only when Stripe has done its part is the booking cancelled.
            self.cancel_paid(booking, refund).await?
        } else {
            self.db()
                .cancel_booking(booking.id, refund.minor(), now)
                .await?
        };
        if cancelled {
            self.forget_gate(booking.id);
            self.wake_agent(booking.listing_id).await;
        }
        Ok(cancelled)
    }

    /// Cancels `booking` giving back everything paid, as the marketplace owes when a booking
    /// ends through no act of its renter (a plan released, a provider's maintenance): one
    /// waiting for its payment has its PaymentIntent cancelled; a paid one is refunded in
    /// full — less what maintenance windows took, which they give back themselves — its
    /// transfer reversed and the platform's fee refunded. `false` when it no longer could be
    /// cancelled.
    pub(crate) async fn cancel_in_full(&self, booking: &BookingRecord) -> Result<bool, AppError> {
        let interrupted = self.db().taken_by_windows(booking.id).await?;
        let paid = crate::stored_money(
            (booking.price_amount - interrupted).max(0),
            &booking.currency,
        )?;
        let done = if booking.payment_provider.is_some() {
            // The whole price is recorded whatever the status read here: the booking may be
            // paid before the claim. Under the claim, one still unpaid has its PaymentIntent
            // cancelled and nothing refunded; a paid one gets the recorded amount back.
            self.cancel_paid(booking, paid).await?
        } else {
            // Without payments nothing was taken: the record says what was owed.
            let refund = if booking.status == BookingStatus::PendingPayment {
                0
            } else {
                paid.minor()
            };
            self.db()
                .cancel_booking(booking.id, refund, Utc::now())
                .await?
        };
        if done {
            self.forget_gate(booking.id);
            self.wake_agent(booking.listing_id).await;
        }
        Ok(done)
    }

    /// Cancels a paid (or pending) booking with Stripe first: a pending one's PaymentIntent
    /// is cancelled, a paid one is refunded. The cancellation and its refund are recorded
    /// before Stripe is called, and one caller at a time carries it out: concurrent cancels
    /// wait for that one's outcome, and a cancel retried after a Stripe failure refunds the
    /// amount first recorded under the same idempotency key — one refund, however many
    /// cancels. Only when Stripe has done its part is the booking cancelled and the movement
    /// recorded; when Stripe fails, the booking stays as it was with the error recorded.
    pub(crate) async fn cancel_paid(
        &self,
        booking: &BookingRecord,
        refund: Money,
    ) -> Result<bool, AppError> {
        let provider = self.payment_provider()?;
        // Longer than one Stripe call may take, so a live claim is never taken over.
        let timeout = self.config().payments.stripe_timeout_ms as i64;
        let claim_for = chrono::Duration::milliseconds(2 * timeout + 5_000);
        let give_up = tokio::time::Instant::now()
            + std::time::Duration::from_millis((2 * timeout + 6_000) as u64);
        let refund = loop {
            match self
                .db()
                .claim_cancellation(
                    booking.id,
                    (refund.minor(), booking.price_amount),
                    Utc::now(),
                    claim_for,
                )
                .await?
            {
                store::CancelClaim::Repriced => {
                    return Err(AppError::BookingNotCancellable(
                        "its price changed while it was being cancelled (a bid raise was paid): cancel again to be refunded on it".to_owned(),
                    ));
                }
                store::CancelClaim::Claimed { refund, resumed } => break (refund, resumed),
                store::CancelClaim::Finished => {
                    // A concurrent cancel carried it out (or the booking ended meanwhile).
                    let now = self.db().booking_by_id(booking.id).await?;
                    return Ok(now.is_some_and(|b| b.status == BookingStatus::Cancelled));
                }
                store::CancelClaim::InProgress if tokio::time::Instant::now() < give_up => {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
                store::CancelClaim::InProgress => {
                    return Err(AppError::BookingNotCancellable(
                        "being cancelled by another request; try again shortly".to_owned(),
                    ));
                }
            }
        };
        let (refund, resumed) = refund;
        let outcome = self
            .carry_out_cancellation(provider, booking, refund, resumed)
            .await;
        match outcome {
            Err(_) => self.db().release_cancellation(booking.id).await?,
            Ok(true) => self.withdraw_raise(booking.id).await,
            Ok(false) => {}
        }
        outcome
    }

    /// The provider's part of a claimed cancellation, then the booking's.
    async fn carry_out_cancellation(
        &self,
        provider: &Arc<dyn PaymentProvider>,
        booking: &BookingRecord,
        refund: i64,
        resumed: bool,
    ) -> Result<bool, AppError> {
        // As it is now, under the claim: it may have been paid since it was first read.
        let booking = &self
            .db()
            .booking_by_id(booking.id)
            .await?
            .ok_or(AppError::NotFound("booking"))?;
        if booking.refund_amount.is_none() {
            // The payment arrived while this cancel was under way and cleared its record
            // (made when nothing was paid): cancelling again works the refund out afresh.
            return Err(AppError::BookingNotCancellable(
                "paid while being cancelled; cancel again to be refunded".to_owned(),
            ));
        }
        let now = Utc::now();
        let Some(intent) = booking.payment_intent_id.clone() else {
            // The PaymentIntent was never created: nothing was or can be paid.
            return Ok(self.db().cancel_booking(booking.id, 0, now).await?);
        };
        if booking.status == BookingStatus::PendingPayment {
            if let Err(e) = provider
                .cancel_intent(&intent, &format!("booking-{}-cancel", booking.id))
                .await
            {
                let why = provider_failed(booking.id, &e);
                self.db().payment_failed(booking.id, &why, false).await?;
                return Err(AppError::PaymentProvider(why));
            }
            return Ok(self.db().cancel_booking(booking.id, 0, now).await?);
        }
        // One key per cancellation: a retry or a concurrent cancel can only ever repeat the
        // same requests; a resumed cancellation first looks whether the earlier attempt's
        // refunds went through (their answers were lost).
        let key = format!("booking-{}-cancel-refund", booking.id);
        let rows = match self.refund_part(booking, refund, &key, resumed).await {
            Ok((_, rows)) => rows,
            Err(AppError::PaymentProvider(why)) => {
                self.db().payment_failed(booking.id, &why, false).await?;
                return Err(AppError::PaymentProvider(why));
            }
            Err(e) => return Err(e),
        };
        Ok(self
            .db()
            .cancel_booking_with_ledger(booking.id, refund, &rows, now)
            .await?)
    }
}
