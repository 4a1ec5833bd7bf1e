//! Stripe's webhooks: the signature over the raw body checked first (a forged or stale
//! delivery changes nothing), then each event id acted on once — a payment confirmed or
//! failed, a refund made at Stripe recorded, a subscription's change handed to billing.

use chrono::Utc;
use domain::ledger::charge_rows;
use domain::{BookingStatus, LedgerKind};
use payments::events::{ChargeFacts, IntentFacts, PaymentEvent};
use secrecy::ExposeSecret;
use store::BookingRecord;
use uuid::Uuid;

use super::ledger::{ledger_rows, paid_and_fee, refund_rows};
use crate::{App, AppError};

/// What a webhook delivery did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookOutcome {
    Processed,
    /// This event id was processed before; nothing changed.
    Duplicate,
    /// An event type this server does not act on.
    Ignored,
}

impl App {
    /// A Stripe webhook delivery: the signature over the raw body is checked first (a forged
    /// or stale delivery changes nothing), then each event id is acted on once.
    pub async fn stripe_webhook(
        &self,
        payload: &[u8],
        signature: Option<&str>,
    ) -> Result<WebhookOutcome, AppError> {
        let secret = self
            .config()
            .payments
            .stripe_webhook_secret
            .as_ref()
            .ok_or(AppError::PaymentsNotConfigured)?;
        let event = payments::events::read(payload, signature, secret.expose_secret())
            .map_err(|e| AppError::InvalidSignature(e.to_string()))?;
        let event_id = domain::StripeEventId::parse(&event.id)
            .map_err(|e| AppError::InvalidSignature(format!("the event's {e}")))?;
        if self.db().event_processed(event_id.as_str()).await? {
            return Ok(WebhookOutcome::Duplicate);
        }
        let outcome = match &event.payment {
            PaymentEvent::IntentSucceeded(intent) => self.intent_succeeded(intent).await?,
            PaymentEvent::IntentFailed(intent) => self.intent_failed(intent).await?,
            PaymentEvent::ChargeRefunded(charge) => self.charge_refunded(charge).await?,
            PaymentEvent::AccountUpdated {
                account,
                charges_enabled,
                payouts_enabled,
            } => {
                self.db()
                    .update_payout_account(
                        account,
                        (*charges_enabled, *payouts_enabled),
                        Utc::now(),
                    )
                    .await?;
                WebhookOutcome::Processed
            }
            PaymentEvent::SubscriptionChanged {
                subscription,
                customer,
            } => {
                self.subscription_changed(subscription.as_deref(), customer.as_deref())
                    .await?
            }
            PaymentEvent::Other => WebhookOutcome::Ignored,
        };
        // Processing is idempotent (conditional updates, one ledger row per object), so a
        // delivery racing this one does no harm; marking afterwards means a failure above
        // leaves the event to Stripe's retry.
        if !self
            .db()
            .mark_event_processed(event_id.as_str(), &event.kind, Utc::now())
            .await?
        {
            return Ok(WebhookOutcome::Duplicate);
        }
        Ok(outcome)
    }

    async fn booking_of_intent(
        &self,
        intent: &IntentFacts,
    ) -> Result<Option<BookingRecord>, AppError> {
        if let Some(found) = self.db().booking_by_intent(&intent.intent).await? {
            return Ok(Some(found));
        }
        // The webhook may outrun the answer to the create call: find it by its metadata.
        match intent
            .booking_id
            .as_deref()
            .and_then(|id| id.parse::<Uuid>().ok())
        {
            Some(id) => Ok(self.db().booking_by_id(id).await?),
            None => Ok(None),
        }
    }

    /// The bid raise an intent charges for, by its id or (when the webhook outran the answer
    /// to the create call) its metadata.
    async fn raise_of_intent(
        &self,
        intent: &IntentFacts,
    ) -> Result<Option<store::BidRaiseRecord>, AppError> {
        if let Some(found) = self.db().bid_raise_by_intent(&intent.intent).await? {
            return Ok(Some(found));
        }
        match intent
            .bid_raise_id
            .as_deref()
            .and_then(|id| id.parse::<Uuid>().ok())
        {
            Some(id) => Ok(self
                .db()
                .bid_raise(id)
                .await?
                .filter(|r| r.payment_intent_id.is_none())),
            None => Ok(None),
        }
    }

    /// A bid raise's payment: acted on when it is the raise's intent, amount and currency.
    async fn raise_intent_succeeded(
        &self,
        raise: &store::BidRaiseRecord,
        facts: &IntentFacts,
    ) -> Result<WebhookOutcome, AppError> {
        let matches = raise
            .payment_intent_id
            .as_deref()
            .is_none_or(|id| id == facts.intent)
            && facts.amount.is_none_or(|paid| paid == raise.amount)
            && facts
                .currency
                .as_deref()
                .is_none_or(|c| c.eq_ignore_ascii_case(&raise.currency));
        if !matches {
            // Confirms nothing; the raise ends with why, so it neither holds a budget nor
            // blocks a later raise.
            tracing::warn!(raise = %raise.id, intent = %facts.intent, "a payment that does not match its bid raise was ignored");
            self.db()
                .end_raise(
                    raise.id,
                    store::raise_status::FAILED,
                    Some("payment not matching the raise's intent, amount or currency"),
                )
                .await?;
            return Ok(WebhookOutcome::Ignored);
        }
        let fee = facts
            .application_fee_amount
            .unwrap_or(raise.platform_fee_amount);
        self.raise_paid(raise, &facts.intent, (raise.amount, fee))
            .await?;
        Ok(WebhookOutcome::Processed)
    }

    async fn intent_succeeded(&self, facts: &IntentFacts) -> Result<WebhookOutcome, AppError> {
        if let Some(raise) = self.raise_of_intent(facts).await? {
            return self.raise_intent_succeeded(&raise, facts).await;
        }
        let Some(booking) = self.booking_of_intent(facts).await? else {
            tracing::warn!(intent = %facts.intent, "payment for no known booking");
            return Ok(WebhookOutcome::Ignored);
        };
        let intent = facts.intent.clone();
        let (price, platform_fee) = paid_and_fee(&booking)?;
        // What Stripe says was paid must be what this booking asked for: the intent it was
        // given, its amount, its currency. Anything else confirms nothing.
        let mismatch = if booking
            .payment_intent_id
            .as_deref()
            .is_some_and(|id| id != intent)
        {
            Some("the intent is not the booking's".to_owned())
        } else if facts.amount.is_some_and(|paid| paid != price.minor()) {
            Some(format!(
                "{} paid, the booking costs {}",
                facts.amount.unwrap_or_default(),
                price.minor()
            ))
        } else if facts
            .currency
            .as_deref()
            .is_some_and(|c| !c.eq_ignore_ascii_case(price.currency().code()))
        {
            Some(format!(
                "paid in {}, the booking is in {}",
                facts.currency.as_deref().unwrap_or_default(),
                price.currency()
            ))
        } else {
            None
        };
        if let Some(why) = mismatch {
            tracing::warn!(booking = %booking.id, intent = %intent, %why, "a payment that does not match its booking was ignored");
            self.db()
                .payment_failed(
                    booking.id,
                    &format!("payment not matching the booking: {why}"),
                    false,
                )
                .await?;
            return Ok(WebhookOutcome::Ignored);
        }
        let amount = facts.amount.unwrap_or(price.minor());
        let fee = facts.application_fee_amount.unwrap_or(platform_fee.minor());
        let listing = self.listing_record(booking.listing_id).await?;
        let rows = ledger_rows(
            &booking,
            listing.org_id,
            &intent,
            charge_rows(price.with_minor(amount), price.with_minor(fee)),
        );
        if self
            .db()
            .confirm_paid(booking.id, &rows, Utc::now())
            .await?
        {
            tracing::info!(booking = %booking.id, "payment received; booking confirmed");
            self.wake_agent(booking.listing_id).await;
            return Ok(WebhookOutcome::Processed);
        }
        // Paid after the booking was released (the hold expired, it was cancelled or
        // displaced, or the payment had been reported failed): the money is not ours to keep.
        let released = matches!(
            *booking.status,
            BookingStatus::Expired | BookingStatus::Cancelled | BookingStatus::Interrupted
        ) && booking.refund_amount.unwrap_or(0) == 0;
        if released {
            let key = format!("booking-{}-late-payment-refund", booking.id);
            let refund = self.refund_whole(booking.id, &intent, amount, key).await?;
            let mut rows = rows;
            rows.extend(refund_rows(
                &booking,
                listing.org_id,
                &refund.id,
                refund.amount,
            )?);
            self.db().record_ledger(&rows, Utc::now()).await?;
            tracing::warn!(booking = %booking.id, "payment for a released booking refunded in full");
        }
        Ok(WebhookOutcome::Processed)
    }

    async fn intent_failed(&self, facts: &IntentFacts) -> Result<WebhookOutcome, AppError> {
        if let Some(raise) = self.raise_of_intent(facts).await? {
            let reason = facts.failure.as_deref().unwrap_or("the payment failed");
            let why = format!("payment failed: {reason}");
            if self
                .db()
                .end_raise(raise.id, store::raise_status::FAILED, Some(&why))
                .await?
                && let Some(provider) = self.payments()
                && facts.status.as_deref() != Some("canceled")
                && let Err(e) = provider
                    .cancel_intent(&facts.intent, &format!("bid-raise-{}-cancel", raise.id))
                    .await
            {
                tracing::warn!(raise = %raise.id, error = %e, "cancelling a failed bid raise's PaymentIntent failed");
            }
            return Ok(WebhookOutcome::Processed);
        }
        let Some(booking) = self.booking_of_intent(facts).await? else {
            return Ok(WebhookOutcome::Ignored);
        };
        let reason = facts.failure.as_deref().unwrap_or("the payment failed");
        let why = format!("payment failed: {reason}");
        if self.db().payment_failed(booking.id, &why, true).await? {
            // Released: make sure it cannot be paid any more.
            if let Some(provider) = self.payments()
                && facts.status.as_deref() != Some("canceled")
                && let Err(e) = provider
                    .cancel_intent(&facts.intent, &format!("booking-{}-cancel", booking.id))
                    .await
            {
                tracing::warn!(booking = %booking.id, error = %e, "cancelling a failed PaymentIntent failed");
            }
        }
        Ok(WebhookOutcome::Processed)
    }

    async fn charge_refunded(&self, facts: &ChargeFacts) -> Result<WebhookOutcome, AppError> {
        let Some(intent) = facts.intent.as_deref() else {
            return Ok(WebhookOutcome::Ignored);
        };
        let booking = match self.db().booking_by_intent(intent).await? {
            Some(booking) => Some(booking),
            // A bid raise's charge: its refunds are the booking's.
            None => match self.db().bid_raise_by_intent(intent).await? {
                Some(raise) => self.db().booking_by_id(raise.booking_id).await?,
                None => None,
            },
        };
        let Some(booking) = booking else {
            return Ok(WebhookOutcome::Ignored);
        };
        let listing = self.listing_record(booking.listing_id).await?;
        let mut rows = Vec::new();
        if facts.refunds.is_empty() {
            // Without the list, what is new is the refunded total minus what is recorded.
            let total = facts.amount_refunded;
            let recorded: i64 = self
                .db()
                .ledger_of_booking(booking.id)
                .await?
                .iter()
                .filter(|e| e.kind == LedgerKind::Refund.as_str())
                .map(|e| -e.amount)
                .sum();
            if total > recorded {
                let key = format!("{}:{total}", facts.charge);
                rows.extend(refund_rows(
                    &booking,
                    listing.org_id,
                    &key,
                    total - recorded,
                )?);
            }
        } else {
            for (id, amount) in &facts.refunds {
                rows.extend(refund_rows(&booking, listing.org_id, id, *amount)?);
            }
        }
        self.db().record_ledger(&rows, Utc::now()).await?;
        Ok(WebhookOutcome::Processed)
    }
}
