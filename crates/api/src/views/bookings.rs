//! A booking as the API shows it: its payment, its guarantee and credits, and what
//! maintenance windows took of it.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::{BookingContainerView, MoneyView};

/// How a booking is paid. With no payment provider configured, `provider` is `none` and the
/// booking is confirmed at once. With `stripe`, the renter completes the PaymentIntent with
/// `client_secret` (shown while the booking waits for its payment) and the booking is
/// confirmed when Stripe reports the payment.
#[derive(Debug, Serialize, ToSchema)]
pub struct PaymentView {
    /// `stripe` or `none`.
    pub provider: String,
    pub payment_intent_id: Option<String>,
    pub client_secret: Option<String>,
    pub amount: i64,
    pub currency: String,
    /// The platform's fee out of `amount`.
    pub platform_fee: Option<i64>,
    /// The last payment failure (Stripe's answer, or that it did not answer).
    pub error: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BookingView {
    pub id: Uuid,
    pub listing_id: Uuid,
    pub renter_id: Uuid,
    /// `pending_payment`, `confirmed`, `active`, `completed`, `cancelled`, `expired`,
    /// `interrupting` (displaced after its start: access until `ends_at`) or `interrupted`.
    pub status: String,
    pub gpu_count: i32,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub starts_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub ends_at: DateTime<Utc>,
    /// When its access ends: `ends_at`, which for an interruptible booking displaced after its
    /// start is its notice's end (`displacement.booked_ends_at` keeps the end it was booked for).
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub access_until: DateTime<Utc>,
    /// Fixed at booking time from the listing's price (or the bid); a bid raise, once it
    /// holds, reprices it at the new bid.
    pub price: MoneyView,
    pub payment: PaymentView,
    /// The refund due after a cancellation (all before the start, the unused share after).
    pub refund: Option<MoneyView>,
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub cancelled_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub created_at: DateTime<Utc>,
    /// The booked listing's badge now: `unverified`, `verified`, `expired` or `demoted` (a
    /// spot check found the machine or engine no longer as verified).
    pub listing_verification_state: &'static str,
    /// The performance guarantee the booking was made under (the listing offered one and
    /// was verified then, and the booking waived direct access), with the credits it earned;
    /// `null` without one.
    pub guarantee: Option<BookingGuaranteeView>,
    /// Why `guarantee` is `null`: `listing_offers_none`, `listing_not_verified`,
    /// `direct_access` (the booking reaches the machine by SSH or an HTTPS URL, around the
    /// gateway) or `interruptible`; `null` with a guarantee.
    #[schema(value_type = Option<String>)]
    pub no_guarantee_reason: Option<String>,
    /// Whether the booking is given the machine's SSH and HTTPS access: `false` when it
    /// waived them, or the listing had none when the booking was made (fixed then).
    pub direct_access: bool,
    /// The plan it was booked in (`POST /v1/offers/book`), with the plan's other bookings.
    pub plan_id: Option<Uuid>,
    /// The container it runs on its GPUs, as asked; `null` without one.
    pub container: Option<BookingContainerView>,
    /// The seconds without a gateway request after which it ends (cancelled as its renter
    /// would, with the same refund); `null` when it asked for none.
    pub stop_when_idle_secs: Option<i32>,
    /// What the provider's maintenance windows took of it, oldest first: the booking keeps its
    /// interval, has no access over each (the gateway refuses, the access token is inactive)
    /// and is given back the share of its price each took.
    pub interruptions: Vec<InterruptionView>,
    /// `on_demand` or `interruptible`.
    pub tier: &'static str,
    /// The price per GPU-hour in force, in `price`'s minor units: the listing's when booked on
    /// demand, the bid for an interruptible booking (raised by `PATCH`); `null` for bookings
    /// made before it was recorded.
    pub amount_per_gpu_hour: Option<i64>,
    /// An interruptible booking's bid per GPU-hour (the one in force); `null` on demand.
    pub bid_per_gpu_hour: Option<i64>,
    /// The lowest bid per GPU-hour at which GPUs like this booking's (over what is left of
    /// its interval, its own not counted) would hold now against the machine's bookings; `null`
    /// when the listing takes no interruptible bookings, no bid would hold, or the booking is
    /// over. A renter whose bid is below it would not get these GPUs today.
    pub min_bid_per_gpu_hour_now: Option<i64>,
    /// An interruptible booking displaced (`interrupting`, then `interrupted`): when, and what
    /// it is given back; `null` otherwise.
    pub displacement: Option<DisplacementView>,
    /// Its latest bid raise charged through Stripe (`PATCH` with payments on), whatever became
    /// of it; `null` when none was. The bid in force is `bid_per_gpu_hour`: a raise holds from
    /// its payment's webhook.
    pub bid_raise: Option<BidRaiseView>,
}

/// A raise of a paid interruptible booking's bid, charged for the difference as a
/// PaymentIntent of its own. Until it is paid the old bid holds; paid, it is in force (the
/// booking's `price`, `payment.amount` and `payment.platform_fee` then include it, and refunds
/// come from its PaymentIntent first).
#[derive(Debug, Serialize, ToSchema)]
pub struct BidRaiseView {
    /// The bid asked for, minor units per GPU-hour.
    pub bid_per_gpu_hour: i64,
    /// `pending_payment`, `paid` (in force), `expired` (not paid before `hold_expires_at`),
    /// `cancelled` (a later raise replaced it), `failed` or `refunded` (paid once it could no
    /// longer hold: given back in full).
    pub status: String,
    /// The charge for the difference: `client_secret` shown while it waits for its payment.
    pub payment: PaymentView,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub hold_expires_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub paid_at: Option<DateTime<Utc>>,
}

/// An interruptible booking displaced by an on-demand booking or a higher bid.
#[derive(Debug, Serialize, ToSchema)]
pub struct DisplacementView {
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub at: DateTime<Utc>,
    /// The end it was booked for, when it had started: its access then ends at `ends_at`, the
    /// notice's end.
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub booked_ends_at: Option<DateTime<Utc>>,
    /// What it is given back: all of it when it had not started (nothing when it was never
    /// paid), the part after its access ends otherwise — pro rata, never what maintenance
    /// windows gave back already.
    pub refund: MoneyView,
    /// When the refund was made; `null` while owed.
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub refunded_at: Option<DateTime<Utc>>,
}

/// The part of a booking a maintenance window took.
#[derive(Debug, Serialize, ToSchema)]
pub struct InterruptionView {
    pub window_id: Uuid,
    /// No access over `[from, until)`.
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub from: DateTime<Utc>,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub until: DateTime<Utc>,
    /// The share of the price given back for it (time two windows both took counts once).
    pub refund: MoneyView,
    /// When it was given back; `null` while owed (a booking awaiting its payment is given it
    /// once paid).
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub refunded_at: Option<DateTime<Utc>>,
}

/// A booking's performance guarantee and its credits.
#[derive(Debug, Serialize, ToSchema)]
pub struct BookingGuaranteeView {
    pub min_fraction: f64,
    /// The verified report whose figures the delivery is compared with.
    pub report_id: Uuid,
    /// Credits accrued for buckets that under-delivered.
    pub credit: MoneyView,
    /// Buckets credited.
    pub credited_buckets: u64,
    /// When the credits were paid back (a partial refund), once the booking was over.
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub settled_at: Option<DateTime<Utc>>,
    /// What was paid back: the credits, within what was paid and not refunded already.
    pub settled: Option<MoneyView>,
}

impl From<app::market::bookings::Booking> for BookingView {
    fn from(b: app::market::bookings::Booking) -> Self {
        let awaiting_payment = b.status == app::BookingStatus::PendingPayment;
        let money = MoneyView::from;
        Self {
            id: b.id.into(),
            listing_id: b.listing_id.into(),
            renter_id: b.renter_id.into(),
            status: b.status.as_str().to_owned(),
            gpu_count: b.gpu_count,
            starts_at: b.starts_at,
            ends_at: b.ends_at,
            access_until: b.ends_at,
            price: money(b.price),
            payment: PaymentView {
                provider: b.payment_provider.unwrap_or_else(|| "none".to_owned()),
                payment_intent_id: b.payment_intent_id,
                client_secret: b.client_secret.filter(|_| awaiting_payment),
                amount: b.price.minor(),
                currency: b.price.currency().code().to_owned(),
                platform_fee: b.platform_fee.map(|fee| fee.minor()),
                error: b.payment_error,
            },
            refund: b.refund.map(money),
            cancelled_at: b.cancelled_at,
            created_at: b.created_at,
            listing_verification_state: b.listing_verification_state.as_str(),
            plan_id: b.plan_id,
            no_guarantee_reason: b
                .guarantee
                .is_none()
                .then_some(b.no_guarantee_reason)
                .flatten(),
            direct_access: b.direct_access,
            container: b.container.map(BookingContainerView::from),
            stop_when_idle_secs: b.stop_when_idle_secs,
            tier: b.tier.as_str(),
            amount_per_gpu_hour: b.price_per_gpu_hour.map(|per| per.minor()),
            bid_per_gpu_hour: match b.tier {
                domain::booking::Tier::Interruptible { bid } => Some(bid),
                domain::booking::Tier::OnDemand => None,
            },
            min_bid_per_gpu_hour_now: b.min_bid_per_gpu_hour_now,
            bid_raise: b.bid_raise.map(|r| BidRaiseView {
                bid_per_gpu_hour: r.bid_per_gpu_hour,
                status: r.status,
                payment: PaymentView {
                    provider: "stripe".to_owned(),
                    payment_intent_id: r.payment_intent_id,
                    client_secret: r.client_secret,
                    amount: r.amount.minor(),
                    currency: r.amount.currency().code().to_owned(),
                    platform_fee: Some(r.platform_fee.minor()),
                    error: r.error,
                },
                created_at: r.created_at,
                hold_expires_at: r.hold_expires_at,
                paid_at: r.paid_at,
            }),
            displacement: b.displacement.map(|d| DisplacementView {
                at: d.at,
                booked_ends_at: d.booked_ends_at,
                refund: money(d.refund),
                refunded_at: d.refunded_at,
            }),
            interruptions: b
                .interruptions
                .into_iter()
                .map(|i| InterruptionView {
                    window_id: i.window_id,
                    from: i.from,
                    until: i.until,
                    refund: money(i.refund),
                    refunded_at: i.refunded_at,
                })
                .collect(),
            guarantee: b.guarantee.map(|g| BookingGuaranteeView {
                min_fraction: f64::from(g.min_bp) / 10_000.0,
                report_id: g.report_id,
                credit: money(g.credit),
                credited_buckets: g.credited_buckets,
                settled_at: g.settled_at,
                settled: g.settled.map(money),
            }),
        }
    }
}
