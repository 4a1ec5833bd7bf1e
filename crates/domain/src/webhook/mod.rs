//! Webhooks' rules: the event types and their payloads (`event.rs`), what an endpoint
//! subscribes to, and when a failed delivery is tried again.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Duration, Utc};

use crate::ValidationError;

mod event;
pub use event::*;

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
    BookingCancelled => "booking.cancelled": "A booking was cancelled by its renter (or, before maintenance windows interrupted bookings, by a window with a full refund).",
    BookingCredited => "booking.credited": "A booking's performance guarantee gave money back.",
    BookingInterrupting => "booking.interrupting": "An interruptible booking that had started was displaced (by an on-demand booking or a higher bid): its access ends at `access_until`, and the part after it is refunded.",
    BookingInterrupted => "booking.interrupted": "An interruptible booking ended displaced: at once, refunded in full, when it had not started; when its notice ran out otherwise.",
    VerificationFinished => "verification.finished": "A verification run finished with a signed report.",
    VerificationFailed => "verification.failed": "A verification run failed.",
    ListingVerified => "listing.verified": "A listing got a verified badge from a compliant report.",
    ListingDemoted => "listing.demoted": "A spot check found the machine no longer as its badge says; the badge was withdrawn.",
    ListingExpired => "listing.expired": "A listing's badge reached its expiry without a renewal.",
    ListingDown => "listing.down": "A listing's engine stopped answering its liveness probes.",
    ListingUp => "listing.up": "A listing's engine answers its liveness probes (again).",
    ListingMaintenance => "listing.maintenance": "A maintenance window was announced for a listing.",
    ReportPublished => "report.published": "A signed report was published (a verification's, a spot check's, or an organisation's report).",
    BudgetWarning => "budget.warning": "A person's spending this month reached 80 % of their budget (once a month; the person's own endpoints).",
    BudgetExhausted => "budget.exhausted": "A person's spending this month reached their budget, or a booking was refused for it (once a month; the person's own endpoints).",
    WebhookTest => "webhook.test": "A test event, sent only when asked for (`POST …/{id}/test`); it cannot be subscribed to.",
}

impl EventKind {
    /// Whether an endpoint may subscribe to it (every kind but the test event).
    pub fn subscribable(self) -> bool {
        self != Self::WebhookTest
    }

    /// Whether an endpoint of a renter (rather than of an organisation) hears of it.
    pub fn reaches_renters(self) -> bool {
        self.as_str().starts_with("booking.") || self.as_str().starts_with("budget.")
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

/// The shortest an attempt's timeout becomes after attempts that got no answer in time.
pub const MIN_TIMEOUT_MS: u64 = 1_000;

/// An attempt's timeout after `streak` attempts in a row got no answer in time: `base_ms`
/// halved for each (at most four times), never below [`MIN_TIMEOUT_MS`] (nor above
/// `base_ms`). A receiver that never answers then holds a sender a sixteenth as long.
pub fn attempt_timeout_ms(base_ms: u64, streak: u32) -> u64 {
    (base_ms >> streak.min(4)).max(MIN_TIMEOUT_MS.min(base_ms))
}

/// An endpoint with deliveries due, as a claim decides on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DueEndpoint<K> {
    pub endpoint: K,
    pub owner: K,
    /// Deliveries due now.
    pub due: u64,
    /// Its deliveries being sent now (by any worker).
    pub in_flight: u64,
}

/// How many of each endpoint's due deliveries to claim now (one count per entry of `due`,
/// which comes oldest due first): at most `room` in all, one at a time to each owner in turn
/// (in the order their oldest due delivery comes) and, within an owner, to each of its
/// endpoints in turn; never more than `per_endpoint` in flight to an endpoint nor
/// `per_owner` to an owner (`owner_in_flight`: what each has in flight already). So one
/// owner's backlog, or one receiver that never answers, cannot take the places another
/// owner's deliveries need.
pub fn fair_claims<K: Copy + Eq>(
    due: &[DueEndpoint<K>],
    owner_in_flight: impl Fn(K) -> u64,
    (per_endpoint, per_owner): (u64, u64),
    mut room: u64,
) -> Vec<u64> {
    let mut owners: Vec<(K, Vec<usize>, usize, u64)> = Vec::new();
    for (i, d) in due.iter().enumerate() {
        match owners.iter_mut().find(|(owner, ..)| *owner == d.owner) {
            Some((_, endpoints, ..)) => endpoints.push(i),
            None => owners.push((d.owner, vec![i], 0, owner_in_flight(d.owner))),
        }
    }
    let mut claims = vec![0u64; due.len()];
    let mut progress = true;
    while room > 0 && progress {
        progress = false;
        for (_, endpoints, cursor, busy) in &mut owners {
            if room == 0 {
                break;
            }
            if *busy >= per_owner {
                continue;
            }
            // The owner's next endpoint in turn that may take one more.
            let open = (0..endpoints.len())
                .map(|step| (*cursor + step) % endpoints.len())
                .find(|&at| {
                    let i = endpoints[at];
                    claims[i] < due[i].due && due[i].in_flight + claims[i] < per_endpoint
                });
            if let Some(at) = open {
                claims[endpoints[at]] += 1;
                *cursor = at + 1;
                *busy += 1;
                room -= 1;
                progress = true;
            }
        }
    }
    claims
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_timeouts_shorten_the_next_one_to_a_floor() {
        assert_eq!(attempt_timeout_ms(10_000, 0), 10_000);
        assert_eq!(attempt_timeout_ms(10_000, 1), 5_000);
        assert_eq!(attempt_timeout_ms(10_000, 3), 1_250);
        assert_eq!(attempt_timeout_ms(10_000, 4), 1_000);
        assert_eq!(attempt_timeout_ms(10_000, 40), 1_000);
        assert_eq!(attempt_timeout_ms(500, 3), 500, "never above the base");
    }

    #[test]
    fn one_owners_backlog_leaves_room_for_everyone_else() {
        let due = |endpoint, owner, due, in_flight| DueEndpoint {
            endpoint,
            owner,
            due,
            in_flight,
        };
        // Owner 1's endpoint has 500 due and two in flight already (a receiver that never
        // answers); owner 2 has one due; owner 3 two endpoints with three due each.
        let backlog = [
            due(10, 1, 500, 2),
            due(20, 2, 1, 0),
            due(30, 3, 3, 0),
            due(31, 3, 3, 0),
        ];
        let claims = fair_claims(&backlog, |_| 2, (2, 8), 32);
        assert_eq!(claims, [0, 1, 2, 2], "each endpoint at most two in flight");
        // An owner's budget spans its endpoints, shared in turn.
        let claims = fair_claims(&backlog, |o| if o == 3 { 5 } else { 0 }, (4, 8), 32);
        assert_eq!(claims[2] + claims[3], 3);
        assert!(claims[2].abs_diff(claims[3]) <= 1);
        // Room is handed out one owner at a time: the first owners in line get theirs.
        let claims = fair_claims(&backlog, |_| 0, (2, 8), 2);
        assert_eq!(claims, [0, 1, 1, 0]);
    }

    proptest::proptest! {
        /// Whatever is due, claims never exceed the room, what is due, or either budget.
        #[test]
        fn claims_stay_within_every_budget(
            endpoints in proptest::collection::vec((0u8..4, 0u64..20, 0u64..4), 0..12),
            room in 0u64..40,
            per_endpoint in 1u64..5,
            per_owner in 1u64..9,
        ) {
            let due: Vec<DueEndpoint<u8>> = endpoints
                .iter()
                .enumerate()
                .map(|(i, &(owner, due, in_flight))| DueEndpoint {
                    endpoint: 100 + i as u8,
                    owner,
                    due,
                    in_flight,
                })
                .collect();
            let claims = fair_claims(&due, |_| 0, (per_endpoint, per_owner), room);
            proptest::prop_assert!(claims.iter().sum::<u64>() <= room);
            for (d, c) in due.iter().zip(&claims) {
                proptest::prop_assert!(*c <= d.due);
                proptest::prop_assert!(*c == 0 || d.in_flight + c <= per_endpoint);
            }
            for owner in 0u8..4 {
                let taken: u64 = due
                    .iter()
                    .zip(&claims)
                    .filter(|(d, _)| d.owner == owner)
                    .map(|(_, c)| c)
                    .sum();
                proptest::prop_assert!(taken <= per_owner);
            }
        }
    }

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
    fn a_person_subscribes_to_their_bookings_and_budget_events_only() {
        let mine = subscription(&["*".into()], true).unwrap();
        assert!(
            mine.iter()
                .all(|k| k.as_str().starts_with("booking.") || k.as_str().starts_with("budget."))
        );
        assert_eq!(mine.len(), 9);
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
