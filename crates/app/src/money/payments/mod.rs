//! Money: providers onboard to Stripe Connect (`onboarding`); a booking is charged as a
//! destination PaymentIntent (the platform keeps its fee, the rest goes to the provider),
//! confirmed by the `payment_intent.succeeded` webhook (`stripe_events`); cancellations refund by
//! the marketplace's rule with the transfer and the fee reversed in proportion (the crate's
//! `cancellation`). Every movement is a ledger row (`ledger`), and statements sum them
//! (`statements`).
//!
//! Without a Stripe key payments are `none`: bookings confirm at once and the ledger records
//! that nothing was collected.

mod ledger;
mod onboarding;
mod raises;
mod statements;
mod stripe_events;

use std::sync::Arc;

use chrono::Utc;
use payments::{Charge, PaymentProvider};
use secrecy::ExposeSecret;
use store::{BookingRecord, ListingRecord, NewLedgerEntry};
use uuid::Uuid;

use domain::{LedgerKind, Money};

pub(crate) use self::ledger::{paid_and_fee, provider_failed, refund_rows};
pub use self::onboarding::Payouts;
pub use self::statements::{LedgerEntry, Statement};
pub use self::stripe_events::WebhookOutcome;
use crate::{App, AppError};

/// The payment provider, when one is configured.
pub(crate) fn provider_from(
    config: &crate::Config,
) -> Result<Option<Arc<dyn PaymentProvider>>, AppError> {
    let Some(key) = &config.payments.stripe_secret_key else {
        return Ok(None);
    };
    let provider = payments::StripeProvider::new(
        key.expose_secret(),
        config.payments.stripe_api_base.as_deref(),
        std::time::Duration::from_millis(config.payments.stripe_timeout_ms),
    )
    .map_err(|e| AppError::Config(format!("stripe: {e}")))?;
    Ok(Some(Arc::new(provider)))
}

impl App {
    pub(crate) fn payments(&self) -> Option<&Arc<dyn PaymentProvider>> {
        self.inner.money.payments.as_ref()
    }

    pub(crate) fn payment_provider(&self) -> Result<&Arc<dyn PaymentProvider>, AppError> {
        self.payments().ok_or(AppError::PaymentsNotConfigured)
    }

    /// With Stripe, the provider's connected account that will receive the money; refuses
    /// when the organisation cannot take payments yet.
    pub(crate) async fn payment_destination(
        &self,
        listing: &ListingRecord,
    ) -> Result<Option<String>, AppError> {
        if self.payments().is_none() {
            return Ok(None);
        }
        match self.db().payout_account(listing.org_id).await? {
            Some(a) if a.charges_enabled && a.payouts_enabled => Ok(Some(a.stripe_account_id)),
            _ => Err(AppError::PayoutsNotEnabled),
        }
    }

    /// Charges a booking just made: a destination PaymentIntent keyed by the booking. When
    /// Stripe refuses or cannot be reached, the booking is released (its GPUs freed) with
    /// the error recorded, and the caller is told.
    pub(crate) async fn start_payment(
        &self,
        booking: &BookingRecord,
        destination: String,
    ) -> Result<BookingRecord, AppError> {
        let provider = self.payment_provider()?;
        let charge = Charge {
            amount: booking.price_amount,
            currency: booking.currency.clone(),
            fee: booking.platform_fee_amount.unwrap_or_default(),
            destination,
            booking_id: booking.id.to_string(),
            bid_raise_id: None,
            idempotency_key: format!("booking-{}-payment-intent", booking.id),
        };
        match provider.create_intent(&charge).await {
            Ok(intent) => {
                self.db()
                    .attach_payment_intent(booking.id, &intent.id, intent.client_secret.as_deref())
                    .await?;
            }
            Err(e) => {
                let why = provider_failed(booking.id, &e);
                tracing::warn!(booking = %booking.id, error = %e, "creating the PaymentIntent failed; booking released");
                self.db().payment_failed(booking.id, &why, true).await?;
                return Err(AppError::PaymentProvider(format!(
                    "{why}; the booking was released"
                )));
            }
        }
        self.db()
            .booking_by_id(booking.id)
            .await?
            .ok_or(AppError::NotFound("booking"))
    }

    /// Records that a booking confirmed without payment collected nothing, and tells its
    /// machine's agent.
    pub(crate) async fn record_not_collected(
        &self,
        booking: &BookingRecord,
        listing: &ListingRecord,
    ) -> Result<(), AppError> {
        let (paid, _) = paid_and_fee(booking)?;
        let entry = NewLedgerEntry {
            booking_id: booking.id,
            org_id: listing.org_id,
            renter_id: booking.renter_id,
            kind: LedgerKind::NotCollected,
            amount: paid.with_minor(0),
            stripe_object_id: None,
        };
        self.db().record_ledger(&[entry], Utc::now()).await?;
        self.wake_agent(booking.listing_id).await;
        Ok(())
    }

    /// Releases the PaymentIntents of holds that expired (the sweeper's follow-up).
    pub(crate) async fn release_expired(&self, expired: &[Uuid]) {
        let Some(provider) = self.payments() else {
            return;
        };
        for id in expired {
            let Ok(Some(booking)) = self.db().booking_by_id(*id).await else {
                continue;
            };
            if let Some(intent) = &booking.payment_intent_id
                && let Err(e) = provider
                    .cancel_intent(intent, &format!("booking-{id}-cancel"))
                    .await
            {
                tracing::warn!(booking = %id, error = %e, "cancelling an expired hold's PaymentIntent failed");
                let _ = self
                    .db()
                    .payment_failed(*id, &provider_failed(*id, &e), false)
                    .await;
            }
        }
    }

    /// Refunds `amount` of a paid booking under `idempotency_key` (a retry, or another
    /// replica, repeats the same requests), transfer and fee coming back in proportion: the
    /// refunds' ids (comma-separated) and their ledger rows. A booking paid by several
    /// PaymentIntents (bid raises) is refunded from the latest paid first, split once
    /// (`store::Db::refund_parts`), each part under its own key (the booking's own intent under
    /// `idempotency_key`). With `resumed`, a part whose earlier request's answer was lost is
    /// looked up first, so nothing is asked of the payment provider twice. Nothing moves
    /// without the payment provider, an intent or an amount.
    pub(crate) async fn refund_part(
        &self,
        booking: &BookingRecord,
        amount: i64,
        idempotency_key: &str,
        resumed: bool,
    ) -> Result<(Option<String>, Vec<store::NewLedgerEntry>), AppError> {
        if booking.payment_provider.is_none() || booking.payment_intent_id.is_none() || amount <= 0
        {
            return Ok((None, Vec::new()));
        }
        let provider = self.payment_provider()?;
        let parts = self
            .db()
            .refund_parts(booking.id, idempotency_key, amount, Utc::now())
            .await?;
        let listing = self.listing_record(booking.listing_id).await?;
        let failed =
            |e: &payments::PaymentError| AppError::PaymentProvider(provider_failed(booking.id, e));
        let (mut ids, mut rows) = (Vec::new(), Vec::new());
        for part in parts {
            let (id, amount) = match part.refund_id {
                // Made before (its answer recorded): nothing is asked again.
                Some(id) => (id, part.amount),
                None => {
                    let done = self
                        .refund_one_part(provider, booking, idempotency_key, &part, resumed)
                        .await
                        .map_err(|e| failed(&e))?;
                    self.db()
                        .refund_part_made(idempotency_key, &part.intent, &done.id)
                        .await?;
                    (done.id, done.amount)
                }
            };
            rows.extend(refund_rows(booking, listing.org_id, &id, amount)?);
            ids.push(id);
        }
        Ok((Some(ids.join(",")).filter(|ids| !ids.is_empty()), rows))
    }

    /// Refunds the whole of `amount` paid through `intent` for `booking` under `key`: money
    /// that came after what it paid for could no longer be had (a late payment).
    pub(crate) async fn refund_whole(
        &self,
        booking: Uuid,
        intent: &str,
        amount: i64,
        key: String,
    ) -> Result<payments::Refund, AppError> {
        let request = payments::RefundRequest {
            payment_intent: intent.to_owned(),
            amount,
            booking_id: booking.to_string(),
            idempotency_key: key,
        };
        self.payment_provider()?
            .refund(&request)
            .await
            .map_err(|e| AppError::PaymentProvider(provider_failed(booking, &e)))
    }

    /// Asks the payment provider for one part of refund `key`: the booking's own
    /// PaymentIntent under `key` itself, a raise's under `key` followed by its intent. With
    /// `resumed`, the intent's refunds are looked at first (an earlier answer was lost).
    async fn refund_one_part(
        &self,
        provider: &Arc<dyn PaymentProvider>,
        booking: &BookingRecord,
        key: &str,
        part: &store::RefundPart,
        resumed: bool,
    ) -> Result<payments::Refund, payments::PaymentError> {
        let request = payments::RefundRequest {
            payment_intent: part.intent.clone(),
            amount: part.amount,
            booking_id: booking.id.to_string(),
            idempotency_key: match booking.payment_intent_id.as_deref() {
                Some(own) if own == part.intent => key.to_owned(),
                _ => format!("{key}-{}", part.intent),
            },
        };
        if resumed
            && let Some(found) = provider
                .refunds_of(&request.payment_intent)
                .await?
                .into_iter()
                .find(|r| {
                    r.booking_id.as_deref() == Some(request.booking_id.as_str())
                        && r.amount == part.amount
                        && !matches!(r.status.as_deref(), Some("failed" | "canceled"))
                })
        {
            return Ok(found);
        }
        provider.refund(&request).await
    }

    /// The platform fee for `amount`.
    pub(crate) fn platform_fee(&self, amount: Money) -> Money {
        amount.share(i64::from(self.config().payments.platform_fee_bps), 10_000)
    }
}
