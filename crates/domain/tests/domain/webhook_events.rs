//! Every webhook event's payload is what the book documents: each event type is built here
//! (a match over every kind, so a new kind cannot be left out) and its JSON compared with the
//! example in `docs/src/api/webhooks.md`.

use chrono::{DateTime, Utc};
use domain::webhook::{
    BookingCancelled, BookingCredited, BookingFacts, BookingInterruption, BudgetAlerted, Event,
    EventKind, ListingDemoted, ListingExpired, ListingVerified, MaintenanceAnnounced,
    OrgReportPublished, ReportPublished, RunEnded, RunReportPublished, WebhookTest,
};
use domain::{BookingStatus, Currency, Money, RunStatus};
use uuid::Uuid;

fn id(n: u8) -> Uuid {
    format!("0193a1b2-0000-7000-8000-00000000000{n}")
        .parse()
        .unwrap()
}

fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn booking(status: BookingStatus) -> BookingFacts {
    BookingFacts {
        booking_id: id(1),
        listing_id: id(2),
        renter_id: id(9),
        status,
        gpu_count: 2,
        starts_at: at("2026-12-04T10:00:00Z"),
        ends_at: at("2026-12-04T14:00:00Z"),
    }
}

fn run(kind: &str, status: RunStatus) -> RunEnded {
    let succeeded = status == RunStatus::Succeeded;
    RunEnded {
        listing_id: id(2),
        run_id: id(3),
        kind: kind.to_owned(),
        status,
        report_id: succeeded.then(|| id(4)),
        failure_code: (!succeeded).then(|| "engine_unreachable".to_owned()),
    }
}

/// The documented examples of one event type.
fn examples(kind: EventKind) -> Vec<Event> {
    let usd = |minor| Money::new(minor, Currency::Usd);
    match kind {
        EventKind::BookingConfirmed => {
            vec![Event::BookingConfirmed(booking(BookingStatus::Confirmed))]
        }
        EventKind::BookingStarted => vec![Event::BookingStarted(booking(BookingStatus::Active))],
        EventKind::BookingEnded => vec![Event::BookingEnded(booking(BookingStatus::Completed))],
        EventKind::BookingCancelled => vec![Event::BookingCancelled(BookingCancelled {
            booking: booking(BookingStatus::Cancelled),
            refund: usd(1200),
        })],
        EventKind::BookingCredited => vec![Event::BookingCredited(BookingCredited {
            booking: booking(BookingStatus::Completed),
            credit: usd(150),
        })],
        EventKind::BookingInterrupting => {
            vec![Event::BookingInterrupting(BookingInterruption {
                booking: BookingFacts {
                    ends_at: at("2026-12-04T11:02:00Z"),
                    ..booking(BookingStatus::Interrupting)
                },
                access_until: Some(at("2026-12-04T11:02:00Z")),
                refund: usd(890),
            })]
        }
        EventKind::BookingInterrupted => {
            vec![Event::BookingInterrupted(BookingInterruption {
                booking: booking(BookingStatus::Interrupted),
                access_until: None,
                refund: usd(1200),
            })]
        }
        EventKind::VerificationFinished => {
            vec![Event::run_ended(run("verification", RunStatus::Succeeded))]
        }
        EventKind::VerificationFailed => {
            vec![Event::run_ended(run("spot_check", RunStatus::Failed))]
        }
        EventKind::ListingVerified => vec![Event::ListingVerified(ListingVerified {
            listing_id: id(2),
            report_id: id(4),
            verified_at: at("2026-12-04T10:30:00Z"),
        })],
        EventKind::ListingDemoted => vec![Event::ListingDemoted(ListingDemoted {
            listing_id: id(2),
            baseline_report_id: id(5),
            report_id: Some(id(4)),
        })],
        EventKind::ListingExpired => vec![Event::ListingExpired(ListingExpired {
            listing_id: id(2),
            report_id: Some(id(4)),
        })],
        EventKind::ListingDown => vec![Event::liveness(id(2), false, at("2026-12-04T10:05:00Z"))],
        EventKind::ListingUp => vec![Event::liveness(id(2), true, at("2026-12-04T10:05:00Z"))],
        EventKind::ListingMaintenance => vec![Event::ListingMaintenance(MaintenanceAnnounced {
            listing_id: id(2),
            window_id: id(6),
            from: at("2026-12-05T02:00:00Z"),
            until: at("2026-12-05T04:00:00Z"),
            interrupted_bookings: 1,
            cancelled_bookings: 0,
        })],
        EventKind::ReportPublished => vec![
            Event::ReportPublished(ReportPublished::Run(RunReportPublished {
                listing_id: id(2),
                report_id: id(4),
                run_id: id(3),
                kind: "verification".to_owned(),
                compliant: true,
                visibility: "public".to_owned(),
            })),
            Event::ReportPublished(ReportPublished::Organisation(OrgReportPublished::new(
                id(7),
                id(4),
            ))),
        ],
        EventKind::BudgetWarning => vec![Event::BudgetWarning(BudgetAlerted {
            user_id: id(9),
            month: "2026-12".to_owned(),
            amount_per_month: usd(50_000),
            spent: usd(41_000),
        })],
        EventKind::BudgetExhausted => vec![Event::BudgetExhausted(BudgetAlerted {
            user_id: id(9),
            month: "2026-12".to_owned(),
            amount_per_month: usd(50_000),
            spent: usd(50_000),
        })],
        EventKind::WebhookTest => vec![Event::WebhookTest(WebhookTest { endpoint_id: id(8) })],
    }
}

/// The book's examples: each "`type`:" line of the Payloads section and the JSON block after it.
fn documented() -> Vec<(String, serde_json::Value)> {
    let book = include_str!("../../../../docs/src/api/webhooks.md");
    let section = book
        .split("### Payloads")
        .nth(1)
        .expect("the webhooks page has a Payloads section");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut found = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        let Some(kind) = line.strip_prefix('`').and_then(|l| l.strip_suffix("`:")) else {
            continue;
        };
        let json: String = lines
            .by_ref()
            .skip_while(|l| !l.starts_with("```json"))
            .skip(1)
            .take_while(|l| !l.starts_with("```"))
            .collect();
        let value = serde_json::from_str(&json)
            .unwrap_or_else(|e| panic!("{kind}'s example is not JSON: {e}"));
        found.push((kind.to_owned(), value));
    }
    found
}

#[test]
fn every_event_serialises_to_the_books_example() {
    let built: Vec<(String, serde_json::Value)> = EventKind::ALL
        .iter()
        .flat_map(|&kind| {
            examples(kind).into_iter().map(move |event| {
                assert_eq!(
                    event.kind(),
                    kind,
                    "an example of {kind} is of another type"
                );
                (kind.to_string(), serde_json::to_value(&event).unwrap())
            })
        })
        .collect();
    let documented = documented();
    assert_eq!(
        documented.len(),
        built.len(),
        "the book documents {} payloads, the domain builds {}",
        documented.len(),
        built.len()
    );
    for ((kind, book), (built_kind, value)) in documented.iter().zip(&built) {
        assert_eq!(
            kind, built_kind,
            "the book's payloads follow the event types' order"
        );
        assert_eq!(
            book, value,
            "{kind}: the payload differs from the book's example"
        );
    }
}

#[test]
fn a_payload_never_carries_the_renter() {
    let event = Event::BookingConfirmed(booking(BookingStatus::Confirmed));
    let text = serde_json::to_string(&event).unwrap();
    assert!(!text.contains(&id(9).to_string()), "{text}");
    assert_eq!(
        event.audience(),
        domain::webhook::Audience::Booking {
            renter: id(9),
            listing: id(2)
        }
    );
}
