//! Stripe's webhook events, read into the few typed shapes the marketplace acts on. Stripe's
//! wire format stays in this crate: the app matches on [`PaymentEvent`], never on JSON.
//! Call [`crate::webhook::verify`] on the raw bytes first; this only reads them.

use serde::Deserialize;

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
    /// Any other type: acknowledged, nothing done.
    Other,
}

/// A PaymentIntent as an event carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct IntentFacts {
    pub intent: String,
    /// `metadata[booking_id]`, as we set it when creating the intent.
    pub booking_id: Option<String>,
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

/// Why a payload is not an event we can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    #[error("the event is not JSON: {0}")]
    NotJson(String),
    #[error("the event has no id or type")]
    Incomplete,
    #[error("the {kind} event's object is not what Stripe sends: {why}")]
    Shape { kind: String, why: String },
}

#[derive(Deserialize)]
struct Envelope {
    id: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    data: Option<Data>,
}

#[derive(Deserialize)]
struct Data {
    object: serde_json::Value,
}

#[derive(Deserialize)]
struct WireIntent {
    id: String,
    amount: Option<i64>,
    currency: Option<String>,
    application_fee_amount: Option<i64>,
    status: Option<String>,
    #[serde(default)]
    metadata: Metadata,
    last_payment_error: Option<WireError>,
}

#[derive(Deserialize, Default)]
struct Metadata {
    booking_id: Option<String>,
}

#[derive(Deserialize)]
struct WireError {
    message: Option<String>,
}

#[derive(Deserialize)]
struct WireCharge {
    id: String,
    payment_intent: Option<String>,
    #[serde(default)]
    amount_refunded: i64,
    refunds: Option<WireList<WireRefund>>,
}

#[derive(Deserialize)]
struct WireList<T> {
    #[serde(default = "Vec::new")]
    data: Vec<T>,
}

#[derive(Deserialize)]
struct WireRefund {
    id: String,
    amount: i64,
}

/// What a Checkout Session, a Subscription or an Invoice names. A field Stripe may expand
/// (an object instead of an id) is read as either.
#[derive(Deserialize)]
struct WireBilling {
    id: Option<String>,
    object: Option<String>,
    subscription: Option<WireRef>,
    customer: Option<WireRef>,
    /// An invoice names its subscription here (API versions from 2025 on).
    parent: Option<WireInvoiceParent>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum WireRef {
    Id(String),
    Object { id: String },
}

impl WireRef {
    fn id(self) -> String {
        match self {
            Self::Id(id) | Self::Object { id } => id,
        }
    }
}

#[derive(Deserialize)]
struct WireInvoiceParent {
    subscription_details: Option<WireSubscriptionDetails>,
}

#[derive(Deserialize)]
struct WireSubscriptionDetails {
    subscription: Option<WireRef>,
}

#[derive(Deserialize)]
struct WireAccount {
    id: String,
    #[serde(default)]
    charges_enabled: bool,
    #[serde(default)]
    payouts_enabled: bool,
}

/// Reads a (verified) webhook payload.
pub fn parse(payload: &[u8]) -> Result<Event, EventError> {
    let envelope: Envelope =
        serde_json::from_slice(payload).map_err(|e| EventError::NotJson(e.to_string()))?;
    let (Some(id), Some(kind)) = (envelope.id, envelope.kind) else {
        return Err(EventError::Incomplete);
    };
    let object = envelope
        .data
        .map(|d| d.object)
        .unwrap_or(serde_json::Value::Null);
    let shape = |e: serde_json::Error| EventError::Shape {
        kind: kind.clone(),
        why: e.to_string(),
    };
    let intent = |object| -> Result<IntentFacts, EventError> {
        let w: WireIntent = serde_json::from_value(object).map_err(shape)?;
        Ok(IntentFacts {
            intent: w.id,
            booking_id: w.metadata.booking_id,
            amount: w.amount,
            currency: w.currency,
            application_fee_amount: w.application_fee_amount,
            status: w.status,
            failure: w.last_payment_error.and_then(|e| e.message),
        })
    };
    let payment = match kind.as_str() {
        "payment_intent.succeeded" => PaymentEvent::IntentSucceeded(intent(object)?),
        "payment_intent.payment_failed" | "payment_intent.canceled" => {
            PaymentEvent::IntentFailed(intent(object)?)
        }
        "charge.refunded" => {
            let w: WireCharge = serde_json::from_value(object).map_err(shape)?;
            PaymentEvent::ChargeRefunded(ChargeFacts {
                charge: w.id,
                intent: w.payment_intent,
                refunds: w
                    .refunds
                    .map(|l| l.data.into_iter().map(|r| (r.id, r.amount)).collect())
                    .unwrap_or_default(),
                amount_refunded: w.amount_refunded,
            })
        }
        "account.updated" => {
            let w: WireAccount = serde_json::from_value(object).map_err(shape)?;
            PaymentEvent::AccountUpdated {
                account: w.id,
                charges_enabled: w.charges_enabled,
                payouts_enabled: w.payouts_enabled,
            }
        }
        "checkout.session.completed"
        | "customer.subscription.created"
        | "customer.subscription.updated"
        | "customer.subscription.deleted"
        | "invoice.paid"
        | "invoice.payment_failed" => {
            let w: WireBilling = serde_json::from_value(object).map_err(shape)?;
            let subscription = if w.object.as_deref() == Some("subscription") {
                w.id
            } else {
                w.subscription.map(WireRef::id).or_else(|| {
                    w.parent
                        .and_then(|p| p.subscription_details)
                        .and_then(|d| d.subscription)
                        .map(WireRef::id)
                })
            };
            PaymentEvent::SubscriptionChanged {
                subscription,
                customer: w.customer.map(WireRef::id),
            }
        }
        _ => PaymentEvent::Other,
    };
    Ok(Event { id, kind, payment })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripe_s_own_objects_read_as_typed_events() {
        let fixtures: serde_json::Value =
            serde_json::from_str(include_str!("../fixtures/stripe.json")).unwrap();
        let resources = &fixtures;
        let wrap = |kind: &str, object: &serde_json::Value| {
            serde_json::to_vec(&serde_json::json!({
                "id": "evt_1", "object": "event", "type": kind, "data": {"object": object}
            }))
            .unwrap()
        };
        let intent = &resources["payment_intent"];
        let event = parse(&wrap("payment_intent.succeeded", intent)).unwrap();
        assert_eq!(event.id, "evt_1");
        let PaymentEvent::IntentSucceeded(facts) = event.payment else {
            panic!("{event:?}");
        };
        assert_eq!(Some(facts.intent.as_str()), intent["id"].as_str());
        assert_eq!(facts.amount, intent["amount"].as_i64());
        let charge = &resources["charge"];
        let PaymentEvent::ChargeRefunded(facts) =
            parse(&wrap("charge.refunded", charge)).unwrap().payment
        else {
            panic!("not a refund");
        };
        assert_eq!(Some(facts.charge.as_str()), charge["id"].as_str());
        let account = &resources["account"];
        assert!(matches!(
            parse(&wrap("account.updated", account)).unwrap().payment,
            PaymentEvent::AccountUpdated { .. }
        ));
        // Billing: each names its subscription and customer, however Stripe shaped it.
        let subscription = &resources["subscription"];
        let mut session = resources["checkout.session"].clone();
        session["subscription"] = serde_json::json!("sub_1");
        session["customer"] = serde_json::json!("cus_9");
        let session = &session;
        let mut invoice = serde_json::json!({
            "id": "in_1", "object": "invoice", "customer": {"id": "cus_1", "object": "customer"},
            "parent": {"subscription_details": {"subscription": "sub_2"}}
        });
        for (kind, object, want_subscription, want_customer) in [
            (
                "customer.subscription.updated",
                subscription,
                subscription["id"].as_str(),
                subscription["customer"].as_str(),
            ),
            (
                "checkout.session.completed",
                session,
                session["subscription"].as_str(),
                session["customer"].as_str(),
            ),
            ("invoice.paid", &invoice, Some("sub_2"), Some("cus_1")),
        ] {
            let PaymentEvent::SubscriptionChanged {
                subscription,
                customer,
                ..
            } = parse(&wrap(kind, object)).unwrap().payment
            else {
                panic!("{kind}: not a subscription change");
            };
            assert_eq!(subscription.as_deref(), want_subscription, "{kind}");
            assert_eq!(customer.as_deref(), want_customer, "{kind}");
        }
        invoice["parent"] = serde_json::Value::Null;
        invoice["subscription"] = serde_json::json!("sub_3");
        assert!(matches!(
            parse(&wrap("invoice.payment_failed", &invoice)).unwrap().payment,
            PaymentEvent::SubscriptionChanged { subscription: Some(s), .. } if s == "sub_3"
        ));
        assert_eq!(
            parse(&wrap("customer.created", &serde_json::json!({})))
                .unwrap()
                .payment,
            PaymentEvent::Other
        );
    }

    #[test]
    fn what_is_not_an_event_says_why() {
        assert!(matches!(parse(b"nope"), Err(EventError::NotJson(_))));
        assert_eq!(parse(b"{}"), Err(EventError::Incomplete));
        let err = parse(
            br#"{"id":"evt","type":"payment_intent.succeeded","data":{"object":{"amount":5}}}"#,
        )
        .unwrap_err();
        assert!(matches!(err, EventError::Shape { .. }), "{err:?}");
    }
}
