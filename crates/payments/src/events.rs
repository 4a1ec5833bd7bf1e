//! Stripe's webhook deliveries: `Stripe-Signature` checked and the event read by Stripe's own
//! Rust crate (`async-stripe-webhook`), then turned into the few typed facts the marketplace
//! acts on. Stripe's wire format stays in this crate: the app matches on [`PaymentEvent`].
//!
//! The signature is `t=<unix time>,v1=<hex HMAC-SHA256 of "t.payload">` keyed with the
//! endpoint's secret; any `v1` may match (Stripe sends one per active secret while one
//! rotates), and the timestamp must be within five minutes of now, so a captured delivery
//! cannot be replayed later. Only a delivery whose signature holds is read.

use stripe_webhook::{EventObject, Webhook, WebhookError};

/// A delivery, once its signature held: Stripe's event id (acted on once), its type, and
/// what it means for us.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: String,
    pub kind: String,
    pub payment: PaymentEvent,
}

/// What an event says, in the terms the marketplace acts on.
#[derive(Debug, Clone, PartialEq)]
pub enum PaymentEvent {
    /// `payment_intent.succeeded`: the renter paid.
    IntentSucceeded(IntentFacts),
    /// `payment_intent.payment_failed` or `payment_intent.canceled`.
    IntentFailed(IntentFacts),
    /// `charge.refunded`: refunds made here or elsewhere (the dashboard).
    ChargeRefunded(ChargeFacts),
    /// `account.updated`: a connected account's capabilities changed.
    AccountUpdated {
        account: String,
        charges_enabled: bool,
        payouts_enabled: bool,
    },
    /// `checkout.session.completed`, `customer.subscription.created|updated|deleted`,
    /// `invoice.paid`, `invoice.payment_failed`: something about a subscription changed. The
    /// event's copy may be stale or arrive out of order, so it names the subscription and
    /// its customer only; the state is read from Stripe.
    SubscriptionChanged {
        subscription: Option<String>,
        customer: Option<String>,
    },
    /// Any other type, known to Stripe's crate or not: acknowledged, nothing done (never a
    /// 400, which Stripe would retry for days).
    Other,
}

/// A PaymentIntent as an event carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct IntentFacts {
    pub intent: String,
    /// `metadata[booking_id]`, as we set it when creating the intent.
    pub booking_id: Option<String>,
    /// `metadata[bid_raise_id]`: the intent charges a raise of the booking's bid.
    pub bid_raise_id: Option<String>,
    pub amount: Option<i64>,
    /// Lower case, as Stripe writes it (`usd`).
    pub currency: Option<String>,
    pub application_fee_amount: Option<i64>,
    /// Stripe's status of the intent (`canceled`, `requires_payment_method`, ...).
    pub status: Option<String>,
    /// `last_payment_error.message`.
    pub failure: Option<String>,
}

/// A charge as `charge.refunded` carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChargeFacts {
    pub charge: String,
    pub intent: Option<String>,
    /// Each refund's id and amount, when the event lists them.
    pub refunds: Vec<(String, i64)>,
    /// The charge's refunded total.
    pub amount_refunded: i64,
}

/// Why a delivery was refused: nothing in it is acted on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    #[error("the Stripe-Signature header is missing")]
    Missing,
    #[error("the Stripe-Signature header's timestamp is not a number")]
    Malformed,
    #[error("the Stripe-Signature header has no v1 signature that matches the payload")]
    Mismatch,
    #[error("the signature's timestamp is {0} s away from now (at most 300 s)")]
    Stale(i64),
    #[error("the webhook secret cannot key an HMAC")]
    Secret,
    /// Signed, but not an event Stripe's crate can read (nor its object, for its type).
    #[error("the event is not what Stripe sends: {0}")]
    Shape(String),
}

/// Checks `header` over the raw `payload` with the endpoint's `secret` and reads the event.
pub fn read(payload: &[u8], header: Option<&str>, secret: &str) -> Result<Event, EventError> {
    let header = header.ok_or(EventError::Missing)?;
    // Stripe signs UTF-8 JSON; anything else cannot carry a valid signature of an event.
    let payload = std::str::from_utf8(payload).map_err(|_| EventError::Mismatch)?;
    let now = unix_now();
    let event = Webhook::construct_event_with_timestamp(payload, header, secret, now).map_err(
        |e| match e {
            WebhookError::BadKey => EventError::Secret,
            WebhookError::BadHeader(_) => EventError::Malformed,
            WebhookError::BadSignature => EventError::Mismatch,
            WebhookError::BadTimestamp(signed) => EventError::Stale(now - signed),
            WebhookError::BadParse(why) => EventError::Shape(why),
        },
    )?;
    Ok(Event {
        id: event.id.as_str().to_owned(),
        kind: event.type_.as_str().to_owned(),
        payment: facts(event.data.object),
    })
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn intent_facts(intent: stripe_shared::PaymentIntent) -> IntentFacts {
    IntentFacts {
        intent: intent.id.as_str().to_owned(),
        booking_id: intent.metadata.get("booking_id").cloned(),
        bid_raise_id: intent.metadata.get("bid_raise_id").cloned(),
        amount: Some(intent.amount),
        currency: Some(intent.currency.to_string()),
        application_fee_amount: intent.application_fee_amount,
        status: Some(intent.status.as_str().to_owned()),
        failure: intent.last_payment_error.and_then(|e| e.message),
    }
}

fn subscription_changed(
    subscription: Option<&stripe_shared::SubscriptionId>,
    customer: Option<&stripe_shared::CustomerId>,
) -> PaymentEvent {
    PaymentEvent::SubscriptionChanged {
        subscription: subscription.map(|id| id.as_str().to_owned()),
        customer: customer.map(|id| id.as_str().to_owned()),
    }
}

/// What a typed event object means here.
fn facts(object: EventObject) -> PaymentEvent {
    match object {
        EventObject::PaymentIntentSucceeded(intent) => {
            PaymentEvent::IntentSucceeded(intent_facts(*intent))
        }
        EventObject::PaymentIntentPaymentFailed(intent)
        | EventObject::PaymentIntentCanceled(intent) => {
            PaymentEvent::IntentFailed(intent_facts(*intent))
        }
        EventObject::ChargeRefunded(charge) => PaymentEvent::ChargeRefunded(ChargeFacts {
            charge: charge.id.as_str().to_owned(),
            intent: charge
                .payment_intent
                .as_ref()
                .map(|intent| intent.id().as_str().to_owned()),
            refunds: charge
                .refunds
                .map(|list| {
                    list.data
                        .into_iter()
                        .map(|refund| (refund.id.as_str().to_owned(), refund.amount))
                        .collect()
                })
                .unwrap_or_default(),
            amount_refunded: charge.amount_refunded,
        }),
        EventObject::AccountUpdated(account) => PaymentEvent::AccountUpdated {
            account: account.id.as_str().to_owned(),
            charges_enabled: account.charges_enabled.unwrap_or(false),
            payouts_enabled: account.payouts_enabled.unwrap_or(false),
        },
        EventObject::CheckoutSessionCompleted(session) => subscription_changed(
            session.subscription.as_ref().map(|s| s.id()),
            session.customer.as_ref().map(|c| c.id()),
        ),
        EventObject::CustomerSubscriptionCreated(subscription)
        | EventObject::CustomerSubscriptionUpdated(subscription)
        | EventObject::CustomerSubscriptionDeleted(subscription) => {
            subscription_changed(Some(&subscription.id), Some(subscription.customer.id()))
        }
        EventObject::InvoicePaid(invoice) | EventObject::InvoicePaymentFailed(invoice) => {
            // An invoice names its subscription at the top (API versions before 2025) or
            // under `parent`.
            let subscription = invoice.subscription.as_ref().map(|s| s.id()).or_else(|| {
                invoice
                    .parent
                    .as_ref()
                    .and_then(|parent| parent.subscription_details.as_ref())
                    .map(|details| details.subscription.id())
            });
            subscription_changed(subscription, invoice.customer.as_ref().map(|c| c.id()))
        }
        _ => PaymentEvent::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    const SECRET: &str = "whsec_test";

    fn fixture(name: &str) -> Value {
        let fixtures: Value =
            serde_json::from_str(include_str!("../fixtures/stripe.json")).unwrap();
        fixtures[name].clone()
    }

    fn payload(kind: &str, object: &Value) -> String {
        json!({
            "id": "evt_1", "object": "event", "type": kind, "created": 1_900_000_000,
            "livemode": false, "pending_webhooks": 1, "api_version": "2026-09-30.endive",
            "data": {"object": object}
        })
        .to_string()
    }

    fn signed(payload: &str, secret: &str, at: i64) -> String {
        Webhook::generate_test_header(payload, secret, Some(at))
    }

    fn read_fresh(kind: &str, object: &Value) -> Result<Event, EventError> {
        let payload = payload(kind, object);
        let header = signed(&payload, SECRET, unix_now());
        read(payload.as_bytes(), Some(&header), SECRET)
    }

    #[test]
    fn a_signed_payload_reads_and_anything_changed_does_not() {
        let body = payload("customer.created", &fixture("customer"));
        let now = unix_now();
        let header = signed(&body, SECRET, now);
        let event = read(body.as_bytes(), Some(&header), SECRET).unwrap();
        assert_eq!(
            (event.id.as_str(), event.kind.as_str()),
            ("evt_1", "customer.created")
        );
        assert_eq!(event.payment, PaymentEvent::Other);

        let other = body.replace("evt_1", "evt_2");
        assert_eq!(
            read(other.as_bytes(), Some(&header), SECRET),
            Err(EventError::Mismatch)
        );
        assert_eq!(
            read(body.as_bytes(), Some(&header), "whsec_other"),
            Err(EventError::Mismatch)
        );
        let stale = signed(&body, SECRET, now - 301);
        assert!(matches!(
            read(body.as_bytes(), Some(&stale), SECRET),
            Err(EventError::Stale(age)) if (301..=303).contains(&age)
        ));
        assert_eq!(
            read(body.as_bytes(), None, SECRET),
            Err(EventError::Missing)
        );
        assert_eq!(
            read(body.as_bytes(), Some("t=x,v1=ab"), SECRET),
            Err(EventError::Malformed)
        );
        assert_eq!(
            read(body.as_bytes(), Some(&format!("t={now}")), SECRET),
            Err(EventError::Mismatch)
        );
        // A second, matching signature among others is enough (a secret rotating).
        let rotated = format!(
            "t={now},v1={},{}",
            "00".repeat(32),
            &header[header.find("v1").unwrap()..]
        );
        assert!(read(body.as_bytes(), Some(&rotated), SECRET).is_ok());
        // The timestamp is signed: moving it breaks the signature.
        let moved = header.replace(&format!("t={now}"), &format!("t={}", now + 1));
        assert_eq!(
            read(body.as_bytes(), Some(&moved), SECRET),
            Err(EventError::Mismatch)
        );
        assert_eq!(
            read(&[0xff, 0xfe], Some(&header), SECRET),
            Err(EventError::Mismatch)
        );
    }

    #[test]
    fn stripe_s_own_objects_read_as_typed_events() {
        let mut intent = fixture("payment_intent");
        intent["metadata"] = json!({"booking_id": "b-1"});
        intent["status"] = json!("succeeded");
        let PaymentEvent::IntentSucceeded(facts) = read_fresh("payment_intent.succeeded", &intent)
            .unwrap()
            .payment
        else {
            panic!("not a payment");
        };
        assert_eq!(Some(facts.intent.as_str()), intent["id"].as_str());
        assert_eq!(facts.amount, intent["amount"].as_i64());
        assert_eq!(facts.currency.as_deref(), Some("usd"));
        assert_eq!(facts.booking_id.as_deref(), Some("b-1"));
        assert_eq!(facts.status.as_deref(), Some("succeeded"));

        intent["last_payment_error"] =
            json!({"type": "card_error", "message": "Your card was declined."});
        let PaymentEvent::IntentFailed(facts) =
            read_fresh("payment_intent.payment_failed", &intent)
                .unwrap()
                .payment
        else {
            panic!("not a failure");
        };
        assert_eq!(facts.failure.as_deref(), Some("Your card was declined."));

        let mut charge = fixture("charge");
        charge["payment_intent"] = json!("pi_9");
        charge["amount_refunded"] = json!(300);
        let mut refund = fixture("refund");
        refund["id"] = json!("re_9");
        refund["amount"] = json!(300);
        charge["refunds"] =
            json!({"object": "list", "url": "/v1/refunds", "has_more": false, "data": [refund]});
        let PaymentEvent::ChargeRefunded(facts) =
            read_fresh("charge.refunded", &charge).unwrap().payment
        else {
            panic!("not a refund");
        };
        assert_eq!(Some(facts.charge.as_str()), charge["id"].as_str());
        assert_eq!(facts.intent.as_deref(), Some("pi_9"));
        assert_eq!(facts.refunds, vec![("re_9".to_owned(), 300)]);
        assert_eq!(facts.amount_refunded, 300);

        let mut account = fixture("account");
        account["charges_enabled"] = json!(true);
        account["payouts_enabled"] = json!(false);
        assert_eq!(
            read_fresh("account.updated", &account).unwrap().payment,
            PaymentEvent::AccountUpdated {
                account: account["id"].as_str().unwrap().to_owned(),
                charges_enabled: true,
                payouts_enabled: false,
            }
        );

        // Billing: each names its subscription and customer, however Stripe shaped it.
        let subscription = fixture("subscription");
        let mut session = fixture("checkout.session");
        session["subscription"] = json!("sub_1");
        session["customer"] = json!("cus_9");
        let mut invoice = fixture("invoice");
        invoice["customer"] = json!("cus_1");
        invoice["parent"] = json!({
            "type": "subscription_details", "quote_details": null,
            "subscription_details": {"subscription": "sub_2", "metadata": {}}
        });
        let mut older_invoice = invoice.clone();
        older_invoice["parent"] = Value::Null;
        older_invoice["subscription"] = json!("sub_3");
        for (kind, object, want_subscription, want_customer) in [
            (
                "customer.subscription.updated",
                &subscription,
                subscription["id"].as_str(),
                subscription["customer"].as_str(),
            ),
            (
                "checkout.session.completed",
                &session,
                Some("sub_1"),
                Some("cus_9"),
            ),
            ("invoice.paid", &invoice, Some("sub_2"), Some("cus_1")),
            (
                "invoice.payment_failed",
                &older_invoice,
                Some("sub_3"),
                Some("cus_1"),
            ),
        ] {
            let PaymentEvent::SubscriptionChanged {
                subscription,
                customer,
            } = read_fresh(kind, object)
                .unwrap_or_else(|e| panic!("{kind}: {e}"))
                .payment
            else {
                panic!("{kind}: not a subscription change");
            };
            assert_eq!(subscription.as_deref(), want_subscription, "{kind}");
            assert_eq!(customer.as_deref(), want_customer, "{kind}");
        }
        // A type no version of Stripe's crate knows: acknowledged, nothing done.
        assert_eq!(
            read_fresh(
                "gpumarket.future_event",
                &json!({"id": "x_1", "object": "x"})
            )
            .unwrap()
            .payment,
            PaymentEvent::Other
        );
    }

    #[test]
    fn a_signed_delivery_that_is_not_an_event_says_why() {
        for body in [
            "nope".to_owned(),
            "{}".to_owned(),
            payload("payment_intent.succeeded", &json!({"amount": 5})),
        ] {
            let header = signed(&body, SECRET, unix_now());
            assert!(
                matches!(
                    read(body.as_bytes(), Some(&header), SECRET),
                    Err(EventError::Shape(_))
                ),
                "{body}"
            );
        }
    }
}
