//! Webhooks' rules: the event types, what an endpoint subscribes to, and when a failed
//! delivery is tried again.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Duration, Utc};

use crate::ValidationError;

macro_rules! event_kinds {
    ($($variant:ident => $text:literal: $doc:literal),+ $(,)?) => {
        /// What an event tells of. Its name (`booking.confirmed`) is the payload's `type`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum EventKind {
            $(#[doc = $doc] $variant,)+
        }

        impl EventKind {
            /// Every kind an endpoint may subscribe to, in the order documented.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)+
                }
            }

            /// What each kind tells of, for the reference.
            pub const fn doc(self) -> &'static str {
                match self {
                    $(Self::$variant => $doc,)+
                }
            }
        }
    };
}

event_kinds! {
    BookingConfirmed => "booking.confirmed": "A booking holds its machine: paid, or made where the provider takes no payments.",
    BookingStarted => "booking.started": "A confirmed booking's interval began.",
    BookingEnded => "booking.ended": "A booking's interval ended.",
    BookingCancelled => "booking.cancelled": "A booking was cancelled (by its renter, or by a maintenance window with a full refund).",
    BookingCredited => "booking.credited": "A booking's performance guarantee gave money back.",
    VerificationFinished => "verification.finished": "A verification run finished with a signed report.",
    VerificationFailed => "verification.failed": "A verification run failed.",
    ListingVerified => "listing.verified": "A listing got a verified badge from a compliant report.",
    ListingDemoted => "listing.demoted": "A spot check found the machine no longer as its badge says; the badge was withdrawn.",
    ListingExpired => "listing.expired": "A listing's badge reached its expiry without a renewal.",
    ListingDown => "listing.down": "A listing's engine stopped answering its liveness probes.",
    ListingUp => "listing.up": "A listing's engine answers its liveness probes (again).",
    ListingMaintenance => "listing.maintenance": "A maintenance window was announced for a listing.",
    ReportPublished => "report.published": "A signed report was published (a verification's, a spot check's, or an organisation's report).",
    WebhookTest => "webhook.test": "A test event, sent only when asked for (`POST …/{id}/test`); it cannot be subscribed to.",
}

impl EventKind {
    /// Whether an endpoint may subscribe to it (every kind but the test event).
    pub fn subscribable(self) -> bool {
        self != Self::WebhookTest
    }

    /// Whether an endpoint of a renter (rather than of an organisation) hears of it.
    pub fn reaches_renters(self) -> bool {
        self.as_str().starts_with("booking.")
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EventKind {
    type Err = ValidationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| ValidationError::new("events", format!("{s:?} is not an event type")))
    }
}

/// Most event types one endpoint lists (every subscribable kind, or `*`).
const MAX_EVENTS: usize = 32;

/// What an endpoint receives: the kinds asked for, checked. `*` means every kind; a renter's
/// endpoint (`for_renter`) may only ask for `booking.*` events, the only ones it can hear of.
pub fn subscription(
    events: &[String],
    for_renter: bool,
) -> Result<Vec<EventKind>, ValidationError> {
    if events.is_empty() || events.len() > MAX_EVENTS {
        return Err(ValidationError::new(
            "events",
            format!("list between 1 and {MAX_EVENTS} event types (or \"*\" for every type)"),
        ));
    }
    let usable = |k: &EventKind| k.subscribable() && (!for_renter || k.reaches_renters());
    if events.iter().any(|e| e == "*") {
        return Ok(EventKind::ALL.iter().copied().filter(usable).collect());
    }
    let mut kinds = Vec::with_capacity(events.len());
    for event in events {
        let kind: EventKind = event.parse()?;
        if !kind.subscribable() {
            return Err(ValidationError::new(
                "events",
                format!("{kind} is sent only when asked for: POST …/{{id}}/test"),
            ));
        }
        if !usable(&kind) {
            return Err(ValidationError::new(
                "events",
                format!(
                    "{kind} is an organisation's event: a person's endpoint hears only of their bookings (booking.*)"
                ),
            ));
        }
        kinds.push(kind);
    }
    kinds.sort_unstable();
    kinds.dedup();
    Ok(kinds)
}

/// The longest URL an endpoint may have.
pub const MAX_URL_CHARS: usize = 2_000;

/// When a delivery whose `attempts`-th attempt just failed is tried next: `schedule[i]` after
/// the (i+1)-th failure; `None` once the schedule is spent (the delivery has failed).
pub fn next_attempt(
    failed_at: DateTime<Utc>,
    attempts: u32,
    schedule: &[u64],
) -> Option<DateTime<Utc>> {
    let index = usize::try_from(attempts).ok()?.checked_sub(1)?;
    schedule
        .get(index)
        .map(|secs| failed_at + Duration::seconds(i64::try_from(*secs).unwrap_or(i64::MAX / 2)))
}

/// Whether an endpoint failing since `failing_since` has failed long enough (`after`) to be
/// disabled at `now`.
pub fn should_disable(
    failing_since: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    after: Duration,
) -> bool {
    failing_since.is_some_and(|since| now - since >= after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_and_the_test_event_cannot_be_subscribed_to() {
        for kind in EventKind::ALL {
            assert_eq!(kind.as_str().parse::<EventKind>().unwrap(), *kind);
        }
        assert!("booking.paid".parse::<EventKind>().is_err());
        let all = subscription(&["*".into()], false).unwrap();
        assert_eq!(all.len(), EventKind::ALL.len() - 1);
        assert!(!all.contains(&EventKind::WebhookTest));
        assert!(subscription(&["webhook.test".into()], false).is_err());
        assert!(subscription(&[], false).is_err());
    }

    #[test]
    fn a_renter_subscribes_to_booking_events_only() {
        let mine = subscription(&["*".into()], true).unwrap();
        assert!(mine.iter().all(|k| k.as_str().starts_with("booking.")));
        assert_eq!(mine.len(), 5);
        let err = subscription(&["listing.down".into()], true).unwrap_err();
        assert!(err.message.contains("organisation"), "{err}");
        let twice = subscription(
            &[
                "booking.ended".into(),
                "booking.confirmed".into(),
                "booking.ended".into(),
            ],
            true,
        )
        .unwrap();
        assert_eq!(
            twice,
            [EventKind::BookingConfirmed, EventKind::BookingEnded]
        );
    }

    #[test]
    fn retries_follow_the_schedule_then_stop() {
        let t = DateTime::parse_from_rfc3339("2026-12-04T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let schedule = [5, 300];
        assert_eq!(
            next_attempt(t, 1, &schedule),
            Some(t + Duration::seconds(5))
        );
        assert_eq!(
            next_attempt(t, 2, &schedule),
            Some(t + Duration::seconds(300))
        );
        assert_eq!(next_attempt(t, 3, &schedule), None);
        assert_eq!(next_attempt(t, 0, &schedule), None);
        let day = Duration::days(3);
        assert!(!should_disable(None, t, day));
        assert!(!should_disable(Some(t - Duration::days(2)), t, day));
        assert!(should_disable(Some(t - day), t, day));
    }
}
