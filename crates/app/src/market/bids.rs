//! Raising an interruptible booking's bid (`PATCH /v1/bookings/{id}`): never lowered, the whole
//! booking repriced at it, decided by the store under the renter's and the listing's locks —
//! at once where nothing is collected; through the payment provider as a charge for the
//! difference that holds from its payment webhook.

use chrono::{DateTime, Utc};
use domain::Money;
use domain::booking::{self, Interval, interruptible};
use store::{BookingRecord, raise_status};
use uuid::Uuid;

use crate::money::payments::provider_failed;
use crate::{App, AppError};

impl App {
    /// Raises the caller's interruptible booking's bid to `bid` (never lowers it): the whole
    /// booking repriced at it, the difference judged by the renter's budget, from now on
    /// displaced only by an on-demand booking or a bid above it. Where nothing is collected it
    /// holds at once; a booking paid through the payment provider is charged the difference
    /// (`bid_raise.payment`) and the raise holds from its payment, the old bid until then.
    pub async fn raise_bid(
        &self,
        caller: crate::Caller,
        id: domain::BookingId,
        bid: i64,
    ) -> Result<crate::market::bookings::Booking, AppError> {
        let field =
            |why: String| AppError::from(domain::ValidationError::new("bid_per_gpu_hour", why));
        let booking = self
            .db()
            .booking_by_id(id.as_uuid())
            .await?
            .filter(|b| b.renter_id == caller.user_id.as_uuid())
            .ok_or(AppError::NotFound("booking"))?;
        let held = match booking::Tier::of(&booking.tier, booking.bid_per_gpu_hour) {
            booking::Tier::Interruptible { bid } => bid,
            booking::Tier::OnDemand => {
                return Err(field("an on-demand booking has no bid to raise".to_owned()));
            }
        };
        if bid <= held || bid > interruptible::MAX_BID {
            return Err(field(format!(
                "must be above the bid in force ({held}) and at most {}: a bid is never lowered",
                interruptible::MAX_BID
            )));
        }
        let per_gpu_hour = crate::stored_money(bid, &booking.currency)?;
        let interval = Interval::new(booking.starts_at, booking.ends_at, booking.starts_at)
            .map_err(|e| AppError::Internal(format!("stored booking {}: {e}", booking.id)))?;
        let price = booking::price(per_gpu_hour, booking.gpu_count, &interval);
        let cost = price.with_minor(price.minor() - booking.price_amount);
        if cost.minor() <= 0 {
            return Err(field(format!(
                "{bid} per GPU-hour costs nothing more over the booking's interval: raise it further"
            )));
        }
        let now = Utc::now();
        if booking.payment_provider.is_some() {
            self.charge_raise(&booking, (bid, price), cost, now).await?;
            let booking = self
                .db()
                .booking_by_id(booking.id)
                .await?
                .ok_or(AppError::NotFound("booking"))?;
            return self.one_booking(booking).await;
        }
        let raised = self
            .db()
            .raise_bid(&booking, (bid, price.minor()), now, |open| {
                booking::within_budget(open, cost)
            })
            .await;
        let raised = self.raised(&booking, raised, now).await?;
        tracing::info!(booking = %booking.id, from = held, to = bid, "a bid was raised");
        self.one_booking(raised).await
    }

    /// What a raise the store refused answers.
    async fn raised<T>(
        &self,
        booking: &BookingRecord,
        outcome: Result<T, store::RaiseError>,
        now: DateTime<Utc>,
    ) -> Result<T, AppError> {
        match outcome {
            Ok(done) => Ok(done),
            Err(store::RaiseError::Stale(current)) => Err(AppError::BidNotRaisable(format!(
                "the booking is {}: only a booking holding its GPUs at a lower bid (paid, where it is paid for, and not being cancelled or raised meanwhile) can be raised",
                *current.status
            ))),
            Err(store::RaiseError::Refused(refusal)) => {
                self.note_budget_refusal(booking.renter_id, &refusal, now)
                    .await;
                Err(crate::market::bookings::refusal_error(refusal, now))
            }
            Err(store::RaiseError::Store(e)) => Err(e.into()),
        }
    }

    /// Charges a raise of a paid booking's bid as a PaymentIntent of its own for the
    /// difference (`cost`, a share of it the platform's fee), after cancelling a raise of it
    /// still waiting for its payment (refused while that one is being paid). The raise holds
    /// from its payment's webhook; a PaymentIntent that cannot be made ends it, told.
    async fn charge_raise(
        &self,
        booking: &BookingRecord,
        (bid, price): (i64, Money),
        cost: Money,
        now: DateTime<Utc>,
    ) -> Result<(), AppError> {
        let provider = self.payment_provider()?.clone();
        if let Some(waiting) = self
            .db()
            .latest_raise_of(booking.id)
            .await?
            .filter(|r| r.status == raise_status::PENDING_PAYMENT)
        {
            self.cancel_raise(&waiting, raise_status::CANCELLED).await?;
        }
        let listing = self.listing_record(booking.listing_id).await?;
        let destination = self
            .payment_destination(&listing)
            .await?
            .ok_or(AppError::PaymentsNotConfigured)?;
        let hold = self.config().payments.booking_hold_secs as i64;
        let ask = store::NewBidRaise {
            id: Uuid::now_v7(),
            bid,
            price: price.minor(),
            platform_fee: self.platform_fee(cost).minor(),
            hold_expires_at: now + chrono::Duration::seconds(hold),
        };
        let asked = self
            .db()
            .ask_raise(booking, &ask, now, |open| {
                booking::within_budget(open, cost)
            })
            .await;
        let raise = self.raised(booking, asked, now).await?;
        let charge = payments::Charge {
            amount: raise.amount,
            currency: raise.currency.clone(),
            fee: raise.platform_fee_amount,
            destination,
            booking_id: booking.id.to_string(),
            bid_raise_id: Some(raise.id.to_string()),
            idempotency_key: format!("bid-raise-{}-payment-intent", raise.id),
        };
        match provider.create_intent(&charge).await {
            Ok(intent) => {
                let attached = self
                    .db()
                    .attach_raise_intent(raise.id, &intent.id, intent.client_secret.as_deref())
                    .await?;
                if !attached {
                    // Replaced or withdrawn while its intent was being made: nothing may pay it.
                    let key = format!("bid-raise-{}-cancel", raise.id);
                    if let Err(e) = provider.cancel_intent(&intent.id, &key).await {
                        tracing::warn!(raise = %raise.id, error = %e, "cancelling the intent of a raise ended meanwhile failed; paid, it is refunded whole");
                    }
                    return Ok(());
                }
                tracing::info!(booking = %booking.id, raise = %raise.id, to = bid, "a bid raise was charged; it holds once paid");
                Ok(())
            }
            Err(e) => {
                let why = provider_failed(booking.id, &e);
                self.db()
                    .end_raise(raise.id, raise_status::FAILED, Some(&why))
                    .await?;
                Err(AppError::PaymentProvider(format!(
                    "{why}; the bid was not raised"
                )))
            }
        }
    }

    /// Ends raises not paid before their hold expired (the sweeper's): their PaymentIntents
    /// cancelled so they can no longer be paid. One that cannot be is tried again next sweep.
    pub(crate) async fn expire_raises(&self, now: DateTime<Utc>) -> Result<usize, AppError> {
        let mut expired = 0;
        for raise in self.db().expired_raises(now).await? {
            match self.cancel_raise(&raise, raise_status::EXPIRED).await {
                Ok(()) => expired += 1,
                Err(e) => {
                    tracing::warn!(raise = %raise.id, error = %e, "expiring a bid raise failed; trying again next sweep");
                }
            }
        }
        Ok(expired)
    }
}
