//! Money: providers onboard to Stripe Connect; a booking is charged as a destination
//! PaymentIntent (the platform keeps its fee, the rest goes to the provider), confirmed by the
//! `payment_intent.succeeded` webhook; cancellations refund by the marketplace's rule with the
//! transfer and the fee reversed in proportion. Every movement is a ledger row.
//!
//! Without a Stripe key payments are `none`: bookings confirm at once and the ledger records
//! that nothing was collected.

use std::sync::Arc;

use chrono::Utc;
use payments::events::{ChargeFacts, IntentFacts, PaymentEvent};
use payments::{Charge, GatewayError, PaymentGateway, RefundRequest};
use secrecy::ExposeSecret;
use store::{BookingRecord, LedgerRecord, ListingRecord, NewLedgerEntry};
use uuid::Uuid;

use domain::ledger::{charge_rows, refund_rows};
use domain::{LedgerKind, Money, OrgId, Role};

use crate::{App, AppError, Caller};

/// The payment provider, when one is configured.
pub(crate) fn gateway_from(
    config: &crate::Config,
) -> Result<Option<Arc<dyn PaymentGateway>>, AppError> {
    let Some(key) = &config.stripe_secret_key else {
        return Ok(None);
    };
    let gateway = payments::StripeGateway::new(
        key.expose_secret(),
        config.stripe_api_base.as_deref(),
        std::time::Duration::from_millis(config.stripe_timeout_ms),
    )
    .map_err(|e| AppError::Config(format!("stripe: {e}")))?;
    Ok(Some(Arc::new(gateway)))
}

/// An organisation's payout account as the API shows it.
#[derive(Debug, Clone)]
pub struct Payouts {
    pub account_id: String,
    pub charges_enabled: bool,
    pub payouts_enabled: bool,
    /// Where to send the provider to finish onboarding (fresh on every call).
    pub onboarding_url: Option<String>,
}

/// What a webhook delivery did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookOutcome {
    Processed,
    /// This event id was processed before; nothing changed.
    Duplicate,
    /// An event type this server does not act on.
    Ignored,
}

/// Money totals by currency.
#[derive(Debug, Clone)]
pub struct Statement {
    pub entries: Vec<LedgerEntry>,
    /// One sum per currency, sorted by currency.
    pub totals: Vec<Money>,
}

/// One movement of money, as the ledger holds it (negative for money going back).
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerEntry {
    pub id: domain::LedgerEntryId,
    pub booking_id: domain::BookingId,
    pub kind: LedgerKind,
    /// Signed: money going back is negative.
    pub amount: Money,
    pub stripe_object_id: Option<String>,
    pub created_at: chrono::DateTime<Utc>,
}

impl TryFrom<LedgerRecord> for LedgerEntry {
    type Error = AppError;

    fn try_from(e: LedgerRecord) -> Result<Self, AppError> {
        Ok(Self {
            id: e.id.into(),
            booking_id: e.booking_id.into(),
            kind: e
                .kind
                .parse()
                .map_err(|e| AppError::Internal(format!("stored ledger row: {e}")))?,
            amount: crate::stored_money(e.amount, &e.currency)?,
            stripe_object_id: e.stripe_object_id,
            created_at: e.created_at,
        })
    }
}

/// The entries, and per currency the sum of those whose kind `counts`.
fn statement(entries: Vec<LedgerRecord>, counts: &[LedgerKind]) -> Result<Statement, AppError> {
    let entries = entries
        .into_iter()
        .map(LedgerEntry::try_from)
        .collect::<Result<Vec<_>, _>>()?;
    let mut totals: std::collections::BTreeMap<domain::Currency, i64> = Default::default();
    for e in entries.iter().filter(|e| counts.contains(&e.kind)) {
        *totals.entry(e.amount.currency()).or_default() += e.amount.minor();
    }
    Ok(Statement {
        entries,
        totals: totals
            .into_iter()
            .map(|(currency, minor)| Money::new(minor, currency))
            .collect(),
    })
}

/// What a booking cost and the platform's fee out of it, as stored with the booking.
fn paid_and_fee(booking: &BookingRecord) -> Result<(Money, Money), AppError> {
    let paid = crate::stored_money(booking.price_amount, &booking.currency)?;
    Ok((
        paid,
        paid.with_minor(booking.platform_fee_amount.unwrap_or_default()),
    ))
}

/// The ledger rows of `booking` (provider `org`) for movements by Stripe object `object`.
fn ledger_rows(
    booking: &BookingRecord,
    org: Uuid,
    object: &str,
    movements: impl IntoIterator<Item = (LedgerKind, Money)>,
) -> Vec<NewLedgerEntry> {
    movements
        .into_iter()
        .map(|(kind, amount)| NewLedgerEntry {
            booking_id: booking.id,
            org_id: org,
            renter_id: booking.renter_id,
            kind,
            amount,
            stripe_object_id: Some(object.to_owned()),
        })
        .collect()
}

fn gateway_failed(booking: Uuid, e: &GatewayError) -> String {
    format!("payment provider: {e} (booking {booking})")
}

impl App {
    pub(crate) fn payments(&self) -> Option<&Arc<dyn PaymentGateway>> {
        self.inner.payments.as_ref()
    }

    fn gateway(&self) -> Result<&Arc<dyn PaymentGateway>, AppError> {
        self.payments().ok_or(AppError::PaymentsNotConfigured)
    }

    /// Creates the organisation's Connect Express account once (idempotently, also under
    /// races: Stripe sees one idempotency key per organisation) and a fresh onboarding link.
    pub async fn onboard_payouts(&self, caller: Caller, org: OrgId) -> Result<Payouts, AppError> {
        self.require_role(caller, org, Role::Admin).await?;
        let gateway = self.gateway()?;
        let account = self.payout_account_of(gateway, org).await?;
        let base = self.config().public_url.trim_end_matches('/');
        let back = format!("{base}/v1/orgs/{org}/payouts");
        let url = gateway
            .onboarding_link(&account.stripe_account_id, &back, &back)
            .await
            .map_err(|e| AppError::PaymentProvider(e.to_string()))?;
        Ok(Payouts {
            account_id: account.stripe_account_id,
            charges_enabled: account.charges_enabled,
            payouts_enabled: account.payouts_enabled,
            onboarding_url: Some(url),
        })
    }

    /// The organisation's account, created at Stripe the first time. Concurrent callers send
    /// the same idempotency key; Stripe answers 409 to one whose twin is still in flight,
    /// so that one waits a moment and looks again.
    async fn payout_account_of(
        &self,
        gateway: &Arc<dyn PaymentGateway>,
        org: OrgId,
    ) -> Result<store::PayoutAccountRecord, AppError> {
        let mut attempt = 0;
        loop {
            if let Some(account) = self.db().payout_account(org.as_uuid()).await? {
                return Ok(account);
            }
            match gateway
                .create_account(&org.to_string(), &format!("org-{org}-connect-account"))
                .await
            {
                Ok(created) => {
                    return Ok(self
                        .db()
                        .keep_payout_account(
                            org.as_uuid(),
                            &created.id,
                            (created.charges_enabled, created.payouts_enabled),
                            Utc::now(),
                        )
                        .await?);
                }
                Err(GatewayError::Refused { status: 409, .. }) if attempt < 3 => {
                    attempt += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(250 * attempt)).await;
                }
                Err(e) => return Err(AppError::PaymentProvider(e.to_string())),
            }
        }
    }

    /// The organisation's payout account, for its members.
    pub async fn payouts(&self, caller: Caller, org: OrgId) -> Result<Option<Payouts>, AppError> {
        self.require_role(caller, org, Role::Member).await?;
        Ok(self
            .db()
            .payout_account(org.as_uuid())
            .await?
            .map(|a| Payouts {
                account_id: a.stripe_account_id,
                charges_enabled: a.charges_enabled,
                payouts_enabled: a.payouts_enabled,
                onboarding_url: None,
            }))
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
        let gateway = self.gateway()?;
        let charge = Charge {
            amount: booking.price_amount,
            currency: booking.currency.clone(),
            fee: booking.platform_fee_amount.unwrap_or_default(),
            destination,
            booking_id: booking.id.to_string(),
            idempotency_key: format!("booking-{}-payment-intent", booking.id),
        };
        match gateway.create_intent(&charge).await {
            Ok(intent) => {
                self.db()
                    .attach_payment_intent(booking.id, &intent.id, intent.client_secret.as_deref())
                    .await?;
            }
            Err(e) => {
                let why = gateway_failed(booking.id, &e);
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

    /// Records that a booking confirmed without payment collected nothing.
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
        Ok(())
    }

    /// The rows of a refund `refund_id` of `refunded` minor units: the fee and the transfer
    /// come back in proportion to the charge.
    pub(crate) fn refund_rows(
        booking: &BookingRecord,
        org: Uuid,
        refund_id: &str,
        refunded: i64,
    ) -> Result<Vec<NewLedgerEntry>, AppError> {
        let (paid, fee) = paid_and_fee(booking)?;
        Ok(ledger_rows(
            booking,
            org,
            refund_id,
            refund_rows(paid, fee, paid.with_minor(refunded)),
        ))
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
        let gateway = self.gateway()?;
        // Longer than one Stripe call may take, so a live claim is never taken over.
        let timeout = self.config().stripe_timeout_ms as i64;
        let claim_for = chrono::Duration::milliseconds(2 * timeout + 5_000);
        let give_up = tokio::time::Instant::now()
            + std::time::Duration::from_millis((2 * timeout + 6_000) as u64);
        let refund = loop {
            match self
                .db()
                .claim_cancellation(booking.id, refund.minor(), Utc::now(), claim_for)
                .await?
            {
                store::CancelClaim::Claimed { refund, resumed } => break (refund, resumed),
                store::CancelClaim::Finished => {
                    // A concurrent cancel carried it out (or the booking ended meanwhile).
                    let now = self.db().booking_by_id(booking.id).await?;
                    return Ok(now.is_some_and(|b| b.status == store::booking_status::CANCELLED));
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
            .carry_out_cancellation(gateway, booking, refund, resumed)
            .await;
        if outcome.is_err() {
            self.db().release_cancellation(booking.id).await?;
        }
        outcome
    }

    /// The provider's part of a claimed cancellation, then the booking's.
    async fn carry_out_cancellation(
        &self,
        gateway: &Arc<dyn PaymentGateway>,
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
        let listing = self.listing_record(booking.listing_id).await?;
        let now = Utc::now();
        let Some(intent) = booking.payment_intent_id.clone() else {
            // The PaymentIntent was never created: nothing was or can be paid.
            return Ok(self.db().cancel_booking(booking.id, 0, now).await?);
        };
        if booking.status == store::booking_status::PENDING_PAYMENT {
            if let Err(e) = gateway
                .cancel_intent(&intent, &format!("booking-{}-cancel", booking.id))
                .await
            {
                let why = gateway_failed(booking.id, &e);
                self.db().payment_failed(booking.id, &why, false).await?;
                return Err(AppError::PaymentProvider(why));
            }
            return Ok(self.db().cancel_booking(booking.id, 0, now).await?);
        }
        let mut rows = Vec::new();
        if refund > 0 {
            let request = RefundRequest {
                payment_intent: intent,
                amount: refund,
                booking_id: booking.id.to_string(),
                // One key per cancellation: a retry or a concurrent cancel can only ever
                // repeat this same request.
                idempotency_key: format!("booking-{}-cancel-refund", booking.id),
            };
            // A resumed cancellation first looks whether the earlier attempt's refund went
            // through (its answer was lost): then nothing is asked of Stripe twice.
            let earlier = if resumed {
                gateway
                    .refunds_of(&request.payment_intent)
                    .await
                    .map_err(|e| AppError::PaymentProvider(gateway_failed(booking.id, &e)))?
                    .into_iter()
                    .find(|r| {
                        r.booking_id.as_deref() == Some(request.booking_id.as_str())
                            && r.amount == refund
                            && !matches!(r.status.as_deref(), Some("failed" | "canceled"))
                    })
            } else {
                None
            };
            let made = match earlier {
                Some(found) => Ok(found),
                None => gateway.refund(&request).await,
            };
            match made {
                Ok(done) => {
                    rows = Self::refund_rows(booking, listing.org_id, &done.id, done.amount)?
                }
                Err(e) => {
                    let why = gateway_failed(booking.id, &e);
                    self.db().payment_failed(booking.id, &why, false).await?;
                    return Err(AppError::PaymentProvider(why));
                }
            }
        }
        Ok(self
            .db()
            .cancel_booking_with_ledger(booking.id, refund, &rows, now)
            .await?)
    }

    /// Releases the PaymentIntents of holds that expired (the sweeper's follow-up).
    pub(crate) async fn release_expired(&self, expired: &[Uuid]) {
        let Some(gateway) = self.payments() else {
            return;
        };
        for id in expired {
            let Ok(Some(booking)) = self.db().booking_by_id(*id).await else {
                continue;
            };
            if let Some(intent) = &booking.payment_intent_id
                && let Err(e) = gateway
                    .cancel_intent(intent, &format!("booking-{id}-cancel"))
                    .await
            {
                tracing::warn!(booking = %id, error = %e, "cancelling an expired hold's PaymentIntent failed");
                let _ = self
                    .db()
                    .payment_failed(*id, &gateway_failed(*id, &e), false)
                    .await;
            }
        }
    }

    /// A Stripe webhook delivery: the signature over the raw body is checked first (a forged
    /// or stale delivery changes nothing), then each event id is acted on once.
    pub async fn stripe_webhook(
        &self,
        payload: &[u8],
        signature: Option<&str>,
    ) -> Result<WebhookOutcome, AppError> {
        let secret = self
            .config()
            .stripe_webhook_secret
            .as_ref()
            .ok_or(AppError::PaymentsNotConfigured)?;
        payments::webhook::verify(
            payload,
            signature,
            secret.expose_secret(),
            Utc::now().timestamp(),
        )
        .map_err(|e| AppError::InvalidSignature(e.to_string()))?;
        let event = payments::events::parse(payload)
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

    async fn intent_succeeded(&self, facts: &IntentFacts) -> Result<WebhookOutcome, AppError> {
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
            return Ok(WebhookOutcome::Processed);
        }
        // Paid after the booking was released (the hold expired, it was cancelled, or the
        // payment had been reported failed): the money is not ours to keep.
        let released = matches!(
            booking.status.as_str(),
            store::booking_status::EXPIRED | store::booking_status::CANCELLED
        ) && booking.refund_amount.unwrap_or(0) == 0;
        if released {
            let gateway = self.gateway()?;
            let request = RefundRequest {
                payment_intent: intent,
                amount,
                booking_id: booking.id.to_string(),
                idempotency_key: format!("booking-{}-late-payment-refund", booking.id),
            };
            let refund = gateway
                .refund(&request)
                .await
                .map_err(|e| AppError::PaymentProvider(gateway_failed(booking.id, &e)))?;
            let mut rows = rows;
            rows.extend(Self::refund_rows(
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
        let Some(booking) = self.booking_of_intent(facts).await? else {
            return Ok(WebhookOutcome::Ignored);
        };
        let reason = facts.failure.as_deref().unwrap_or("the payment failed");
        let why = format!("payment failed: {reason}");
        if self.db().payment_failed(booking.id, &why, true).await? {
            // Released: make sure it cannot be paid any more.
            if let Some(gateway) = self.payments()
                && facts.status.as_deref() != Some("canceled")
                && let Err(e) = gateway
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
        let Some(booking) = self.db().booking_by_intent(intent).await? else {
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
                rows.extend(Self::refund_rows(
                    &booking,
                    listing.org_id,
                    &key,
                    total - recorded,
                )?);
            }
        } else {
            for (id, amount) in &facts.refunds {
                rows.extend(Self::refund_rows(&booking, listing.org_id, id, *amount)?);
            }
        }
        self.db().record_ledger(&rows, Utc::now()).await?;
        Ok(WebhookOutcome::Processed)
    }

    /// A provider's earnings: what was transferred to it, less what was reversed (its
    /// owners and admins).
    pub async fn earnings(&self, caller: Caller, org: OrgId) -> Result<Statement, AppError> {
        self.require_role(caller, org, Role::Admin).await?;
        let entries = self.db().ledger_of_org(org.as_uuid()).await?;
        statement(
            entries,
            &[LedgerKind::Transfer, LedgerKind::TransferReversal],
        )
    }

    /// A renter's spend: what was charged, less what was refunded.
    pub async fn spend(&self, caller: Caller) -> Result<Statement, AppError> {
        let entries = self.db().ledger_of_renter(caller.user_id.as_uuid()).await?;
        statement(entries, &[LedgerKind::Charge, LedgerKind::Refund])
    }

    /// The platform fee for `amount`.
    pub(crate) fn platform_fee(&self, amount: Money) -> Money {
        amount.share(i64::from(self.config().platform_fee_bps), 10_000)
    }
}
