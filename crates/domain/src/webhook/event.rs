//! The events endpoints hear of, each with its payload: one variant per event type, serialised
//! to the `data` the book documents (`docs/src/api/webhooks.md`, compared by a test). Payloads
//! carry ids, states, times and amounts: never a secret, an engine's address, a failure's
//! wording (it may quote the engine) or a maintenance window's reason — no variant has a field
//! for one.

use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

use super::EventKind;
use crate::{BookingStatus, Money, RunStatus};

/// An event, as the change that tells of it built it; written to the outbox in that change's
/// transaction.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Event {
    BookingConfirmed(BookingFacts),
    BookingStarted(BookingFacts),
    BookingEnded(BookingFacts),
    BookingCancelled(BookingCancelled),
    BookingCredited(BookingCredited),
    BookingInterrupting(BookingInterruption),
    BookingInterrupted(BookingInterruption),
    VerificationFinished(RunEnded),
    VerificationFailed(RunEnded),
    ListingVerified(ListingVerified),
    ListingDemoted(ListingDemoted),
    ListingExpired(ListingExpired),
    ListingDown(LivenessChanged),
    ListingUp(LivenessChanged),
    ListingMaintenance(MaintenanceAnnounced),
    ReportPublished(ReportPublished),
    BudgetWarning(BudgetAlerted),
    BudgetExhausted(BudgetAlerted),
    WebhookTest(WebhookTest),
}

/// Whose endpoints hear of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// The renter's, and the listing's organisation's.
    Booking { renter: Uuid, listing: Uuid },
    /// The listing's organisation's.
    Listing(Uuid),
    /// The organisation's.
    Org(Uuid),
    /// One endpoint's (a test event).
    Endpoint(Uuid),
    /// The person's own.
    User(Uuid),
}

impl Event {
    /// Its type.
    pub fn kind(&self) -> EventKind {
        match self {
            Self::BookingConfirmed(_) => EventKind::BookingConfirmed,
            Self::BookingStarted(_) => EventKind::BookingStarted,
            Self::BookingEnded(_) => EventKind::BookingEnded,
            Self::BookingCancelled(_) => EventKind::BookingCancelled,
            Self::BookingCredited(_) => EventKind::BookingCredited,
            Self::BookingInterrupting(_) => EventKind::BookingInterrupting,
            Self::BookingInterrupted(_) => EventKind::BookingInterrupted,
            Self::VerificationFinished(_) => EventKind::VerificationFinished,
            Self::VerificationFailed(_) => EventKind::VerificationFailed,
            Self::ListingVerified(_) => EventKind::ListingVerified,
            Self::ListingDemoted(_) => EventKind::ListingDemoted,
            Self::ListingExpired(_) => EventKind::ListingExpired,
            Self::ListingDown(_) => EventKind::ListingDown,
            Self::ListingUp(_) => EventKind::ListingUp,
            Self::ListingMaintenance(_) => EventKind::ListingMaintenance,
            Self::ReportPublished(_) => EventKind::ReportPublished,
            Self::BudgetWarning(_) => EventKind::BudgetWarning,
            Self::BudgetExhausted(_) => EventKind::BudgetExhausted,
            Self::WebhookTest(_) => EventKind::WebhookTest,
        }
    }

    /// Whose endpoints hear of it.
    pub fn audience(&self) -> Audience {
        match self {
            Self::BookingConfirmed(b) | Self::BookingStarted(b) | Self::BookingEnded(b) => {
                b.audience()
            }
            Self::BookingCancelled(c) => c.booking.audience(),
            Self::BookingCredited(c) => c.booking.audience(),
            Self::BookingInterrupting(i) | Self::BookingInterrupted(i) => i.booking.audience(),
            Self::VerificationFinished(r) | Self::VerificationFailed(r) => {
                Audience::Listing(r.listing_id)
            }
            Self::ListingVerified(e) => Audience::Listing(e.listing_id),
            Self::ListingDemoted(e) => Audience::Listing(e.listing_id),
            Self::ListingExpired(e) => Audience::Listing(e.listing_id),
            Self::ListingDown(e) | Self::ListingUp(e) => Audience::Listing(e.listing_id),
            Self::ListingMaintenance(e) => Audience::Listing(e.listing_id),
            Self::ReportPublished(ReportPublished::Run(r)) => Audience::Listing(r.listing_id),
            Self::ReportPublished(ReportPublished::Organisation(r)) => Audience::Org(r.org_id),
            Self::BudgetWarning(b) | Self::BudgetExhausted(b) => Audience::User(b.user_id),
            Self::WebhookTest(t) => Audience::Endpoint(t.endpoint_id),
        }
    }

    /// A run's end: finished with its report, or failed (or cancelled) with its code.
    pub fn run_ended(run: RunEnded) -> Self {
        if run.status == RunStatus::Succeeded {
            Self::VerificationFinished(run)
        } else {
            Self::VerificationFailed(run)
        }
    }

    /// The engine's liveness changed to `up` (or down) at `since`.
    pub fn liveness(listing_id: Uuid, up: bool, since: DateTime<Utc>) -> Self {
        let change = LivenessChanged {
            listing_id,
            state: if up { "up" } else { "down" },
            since,
        };
        if up {
            Self::ListingUp(change)
        } else {
            Self::ListingDown(change)
        }
    }
}

/// A booking as its events tell of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BookingFacts {
    pub booking_id: Uuid,
    pub listing_id: Uuid,
    /// Whose endpoints hear of it; not in the payload.
    #[serde(skip)]
    pub renter_id: Uuid,
    pub status: BookingStatus,
    pub gpu_count: i32,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

impl BookingFacts {
    fn audience(&self) -> Audience {
        Audience::Booking {
            renter: self.renter_id,
            listing: self.listing_id,
        }
    }
}

/// `booking.cancelled`: the booking, and what its cancellation refunded.
#[derive(Debug, Clone, PartialEq)]
pub struct BookingCancelled {
    pub booking: BookingFacts,
    pub refund: Money,
}

/// `booking.credited`: the booking, and what its guarantee gave back.
#[derive(Debug, Clone, PartialEq)]
pub struct BookingCredited {
    pub booking: BookingFacts,
    pub credit: Money,
}

/// `booking.interrupting` or `booking.interrupted`: an interruptible booking displaced, when its
/// access ends (`ends_at` once displaced; `None` for one that never began) and what it is
/// given back.
#[derive(Debug, Clone, PartialEq)]
pub struct BookingInterruption {
    pub booking: BookingFacts,
    pub access_until: Option<DateTime<Utc>>,
    pub refund: Money,
}

impl Serialize for BookingInterruption {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Payload<'a> {
            #[serde(flatten)]
            refunded: WithAmount<'a>,
            access_until: Option<DateTime<Utc>>,
        }
        Payload {
            refunded: WithAmount::new(&self.booking, "refund_amount", self.refund),
            access_until: self.access_until,
        }
        .serialize(s)
    }
}

/// A booking's facts with an amount, as `{…, <amount_key>: minor units, currency: "USD"}`.
#[derive(Serialize)]
struct WithAmount<'a> {
    #[serde(flatten)]
    booking: &'a BookingFacts,
    #[serde(flatten)]
    amount: std::collections::BTreeMap<&'static str, i64>,
    currency: &'static str,
}

impl<'a> WithAmount<'a> {
    fn new(booking: &'a BookingFacts, key: &'static str, amount: Money) -> Self {
        Self {
            booking,
            amount: [(key, amount.minor())].into(),
            currency: amount.currency().code(),
        }
    }
}

impl Serialize for BookingCancelled {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WithAmount::new(&self.booking, "refund_amount", self.refund).serialize(s)
    }
}

impl Serialize for BookingCredited {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WithAmount::new(&self.booking, "credit_amount", self.credit).serialize(s)
    }
}

/// `budget.warning` or `budget.exhausted`: a person's budget this month, as it stood when the
/// alert was due.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetAlerted {
    /// Whose endpoints hear of it; not in the payload.
    pub user_id: Uuid,
    /// The calendar month (UTC), `YYYY-MM`.
    pub month: String,
    pub amount_per_month: Money,
    /// This month's spending with the booking that made the alert due (a refused one is not
    /// counted).
    pub spent: Money,
}

impl Serialize for BudgetAlerted {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Payload<'a> {
            month: &'a str,
            amount_per_month: i64,
            spent: i64,
            left: i64,
            currency: &'static str,
        }
        Payload {
            month: &self.month,
            amount_per_month: self.amount_per_month.minor(),
            spent: self.spent.minor(),
            left: crate::budget::MonthBudget {
                limit: self.amount_per_month,
                spent: self.spent.minor(),
            }
            .left()
            .minor(),
            currency: self.amount_per_month.currency().code(),
        }
        .serialize(s)
    }
}

/// `verification.finished` or `verification.failed`: a run's end. The failure's code, never
/// its reason (the reason may quote the engine).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunEnded {
    pub listing_id: Uuid,
    pub run_id: Uuid,
    /// `verification` or `spot_check`.
    pub kind: String,
    pub status: RunStatus,
    pub report_id: Option<Uuid>,
    pub failure_code: Option<String>,
}

/// `listing.verified`: a compliant report gave the listing its badge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListingVerified {
    pub listing_id: Uuid,
    pub report_id: Uuid,
    pub verified_at: DateTime<Utc>,
}

/// `listing.demoted`: a spot check withdrew the badge (its reason stays out: it may quote what
/// the engine answered).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListingDemoted {
    pub listing_id: Uuid,
    pub baseline_report_id: Uuid,
    pub report_id: Option<Uuid>,
}

/// `listing.expired`: the badge reached its expiry without a renewal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListingExpired {
    pub listing_id: Uuid,
    pub report_id: Option<Uuid>,
}

/// `listing.down` or `listing.up` (built by [`Event::liveness`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LivenessChanged {
    pub listing_id: Uuid,
    /// `up` or `down`.
    state: &'static str,
    pub since: DateTime<Utc>,
}

/// `listing.maintenance`: a window announced (its reason stays out: it is for the
/// organisation's members).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MaintenanceAnnounced {
    pub listing_id: Uuid,
    pub window_id: Uuid,
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub interrupted_bookings: i64,
    /// Always 0 since windows interrupt rather than cancel; kept for receivers that read it.
    pub cancelled_bookings: i64,
}

/// `report.published`: a run's report, or an organisation's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ReportPublished {
    Run(RunReportPublished),
    Organisation(OrgReportPublished),
}

/// A verification's or a spot check's signed report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReportPublished {
    pub listing_id: Uuid,
    pub report_id: Uuid,
    pub run_id: Uuid,
    /// `verification` or `spot_check`.
    pub kind: String,
    pub compliant: bool,
    /// `public` or `private`.
    pub visibility: String,
}

/// An organisation's report (`kind: "organisation"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrgReportPublished {
    pub org_id: Uuid,
    pub report_id: Uuid,
    kind: &'static str,
}

impl OrgReportPublished {
    pub fn new(org_id: Uuid, report_id: Uuid) -> Self {
        Self {
            org_id,
            report_id,
            kind: "organisation",
        }
    }
}

/// `webhook.test`: asked for by the endpoint's owner.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WebhookTest {
    pub endpoint_id: Uuid,
}
