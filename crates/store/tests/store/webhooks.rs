//! The webhook outbox: each change writes its event in its own transaction (and a change
//! that did not happen writes none); events fan out to the endpoints that hear of them once,
//! and each due delivery is claimed by one worker, however many race.

use std::sync::Arc;

use chrono::{Duration, Utc};
use store::tools::testing::{TestDatabase, decode_cell, verified_report};
use store::{Backend, Db, WebhookEndpointRecord};
use uuid::Uuid;

async fn kinds(db: &Db, kind: &str) -> usize {
    db.webhook_events_of_kind(kind).await.unwrap().len()
}

fn endpoint(
    user: Option<Uuid>,
    org: Option<Uuid>,
    events: &str,
    enabled: bool,
) -> WebhookEndpointRecord {
    WebhookEndpointRecord {
        id: Uuid::now_v7(),
        owner_user_id: user,
        owner_org_id: org,
        url: "https://hooks.example/x".into(),
        events: events.into(),
        secret: "sealed".into(),
        previous_secret: None,
        previous_secret_until: None,
        enabled,
        failing_since: None,
        disabled_at: None,
        disabled_reason: None,
        created_by: user.unwrap_or_else(Uuid::now_v7),
        created_at: Utc::now(),
        timeout_streak: 0,
    }
}

/// Budgets wider than any test here needs.
const ROOMY: store::ClaimBudget = store::ClaimBudget {
    per_endpoint: 100,
    per_owner: 100,
    manual_per_owner: 100,
};

async fn changes_write_their_events(backend: Backend) {
    let (_database, db, _user, listings): (TestDatabase, Arc<Db>, _, _) =
        crate::organisation(backend, 1, 1).await;
    let listing = listings[0].id;
    let now = Utc::now();
    let judging = (Duration::seconds(900), Duration::hours(24));
    // Liveness: an event when the state changes, none while it holds.
    db.record_liveness(listing, true, now, judging)
        .await
        .unwrap();
    db.record_liveness(listing, true, now + Duration::seconds(300), judging)
        .await
        .unwrap();
    db.record_liveness(listing, false, now + Duration::seconds(600), judging)
        .await
        .unwrap();
    assert_eq!(kinds(&db, "listing.up").await, 1);
    assert_eq!(kinds(&db, "listing.down").await, 1);
    let down = &db.webhook_events_of_kind("listing.down").await.unwrap()[0];
    assert_eq!(down.org_id, Some(listings[0].org_id));
    assert_eq!(down.renter_id, None);
    assert!(down.data.contains(&listing.to_string()), "{}", down.data);
    // A compliant report: published, and the listing verified; expired a month later.
    verified_report(&db, listing, vec![decode_cell(1024, 1, 10.0)])
        .await
        .unwrap();
    assert_eq!(kinds(&db, "report.published").await, 1);
    assert_eq!(kinds(&db, "listing.verified").await, 1);
    let expired = db
        .expire_badges(now + Duration::days(31), Duration::days(30))
        .await
        .unwrap();
    assert_eq!(expired, [listing]);
    assert_eq!(kinds(&db, "listing.expired").await, 1);
    // Nothing to expire: no event.
    db.expire_badges(now + Duration::days(32), Duration::days(30))
        .await
        .unwrap();
    assert_eq!(kinds(&db, "listing.expired").await, 1);
}

async fn events_fan_out_and_are_claimed_once(backend: Backend) {
    let (_database, db, user, listings) = crate::organisation(backend, 1, 1).await;
    let listing = &listings[0];
    let org = listing.org_id;
    let renter = crate::new_user(&db, "renter@example.com").await;
    let hears_up = endpoint(None, Some(org), "listing.up listing.down", true);
    let hears_all = endpoint(None, Some(org), "listing.up", true);
    let disabled = endpoint(None, Some(org), "listing.up", false);
    let other_org_user = endpoint(Some(user.as_uuid()), None, "booking.confirmed", true);
    let renters = endpoint(Some(renter.as_uuid()), None, "booking.confirmed", true);
    for e in [&hears_up, &hears_all, &disabled, &other_org_user, &renters] {
        assert!(
            db.insert_webhook_endpoint(e.clone(), 3, None)
                .await
                .unwrap()
        );
    }
    let now = Utc::now();
    let judging = (Duration::seconds(900), Duration::hours(24));
    db.record_liveness(listing.id, true, now, judging)
        .await
        .unwrap();
    // A booking of the renter's, confirmed at once.
    let start = now + Duration::hours(1);
    let booking = crate::bookings::booking(
        listing.id,
        renter,
        "k",
        store::booking_status::CONFIRMED,
        (start, start + Duration::hours(1)),
    );
    db.book(booking, now, |_| Ok(Vec::new())).await.unwrap();

    // Four workers fan out at once: each event's deliveries are made once.
    let fan_outs = (0..4).map(|_| {
        let db = Arc::clone(&db);
        tokio::spawn(async move { db.fan_out_webhook_events(now, 100).await.unwrap() })
    });
    futures_util::future::join_all(fan_outs).await;
    // Four workers claim at once: each delivery is claimed by one.
    let claims = (0..4).map(|_| {
        let db = Arc::clone(&db);
        tokio::spawn(async move {
            db.claim_webhook_deliveries(Utc::now(), |_| Duration::seconds(60), 100, ROOMY)
                .await
                .unwrap()
        })
    });
    let first_claims: Vec<store::DeliveryClaim> = futures_util::future::join_all(claims)
        .await
        .into_iter()
        .flat_map(|c| c.unwrap())
        .collect();
    let mut claimed: Vec<(Uuid, String)> = first_claims
        .iter()
        .map(|c| (c.endpoint.id, c.event.kind.clone()))
        .collect();
    claimed.sort();
    let mut expected = vec![
        (hears_up.id, "listing.up".to_owned()),
        (hears_all.id, "listing.up".to_owned()),
        // The renter's own endpoint hears of their booking; the organisation's owner's
        // personal endpoint does not (it is not their booking).
        (renters.id, "booking.confirmed".to_owned()),
    ];
    expected.sort();
    assert_eq!(claimed, expected);
    // Claimed: none is due again until the lease ends.
    assert!(
        db.claim_webhook_deliveries(Utc::now(), |_| Duration::seconds(60), 100, ROOMY)
            .await
            .unwrap()
            .is_empty()
    );
    let later = Utc::now() + Duration::seconds(61);
    let second_claims = db
        .claim_webhook_deliveries(later, |_| Duration::seconds(60), 100, ROOMY)
        .await
        .unwrap();
    assert_eq!(
        second_claims.len(),
        3,
        "a lease that ran out (its worker died mid-send) is claimed again"
    );
    // The first worker, late, records its attempt: it is listed, and changes nothing else.
    let delivered = |ms| store::AttemptOutcome {
        status_code: Some(200),
        answer: None,
        error: None,
        duration_ms: ms,
        delivered: true,
        timed_out: false,
    };
    let gap = Duration::days(3);
    let stale = &first_claims[0];
    db.record_webhook_attempt(stale, delivered(1), (later, None), gap)
        .await
        .unwrap();
    let shown = db
        .webhook_deliveries(stale.endpoint.id, None, 10)
        .await
        .unwrap();
    assert_eq!(shown[0].attempts.len(), 1);
    assert_eq!(shown[0].status, "pending", "a stale claim delivers nothing");
    let current = second_claims
        .iter()
        .find(|c| c.delivery == stale.delivery)
        .unwrap();
    db.record_webhook_attempt(current, delivered(2), (later, None), gap)
        .await
        .unwrap();
    let shown = db
        .webhook_deliveries(stale.endpoint.id, None, 10)
        .await
        .unwrap();
    assert_eq!(
        (shown[0].status.as_str(), shown[0].attempts.len()),
        ("delivered", 2)
    );
}

#[tokio::test]
async fn changes_write_their_events_on_sqlite() {
    changes_write_their_events(Backend::Sqlite).await;
}

#[tokio::test]
async fn changes_write_their_events_on_postgres() {
    changes_write_their_events(Backend::Postgres).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn events_fan_out_and_are_claimed_once_on_sqlite() {
    events_fan_out_and_are_claimed_once(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn events_fan_out_and_are_claimed_once_on_postgres() {
    events_fan_out_and_are_claimed_once(Backend::Postgres).await;
}

/// Sends in flight are counted from the database, per endpoint and per owner: a second claim
/// takes nothing more of an endpoint at its budget while another owner's delivery is taken
/// at once. Attempts without an answer in time lengthen the endpoint's timeout streak (the
/// claim's lease follows it); an answer ends it.
async fn sends_in_flight_are_budgeted_and_timeouts_shorten(backend: Backend) {
    let (_database, db, user, _) = crate::organisation(backend, 1, 1).await;
    let other = crate::new_user(&db, "other@example.com").await;
    let stuck = endpoint(Some(user.as_uuid()), None, "booking.confirmed", true);
    let fine = endpoint(Some(other.as_uuid()), None, "booking.confirmed", true);
    for e in [&stuck, &fine] {
        assert!(
            db.insert_webhook_endpoint(e.clone(), 3, None)
                .await
                .unwrap()
        );
    }
    let kind = domain::webhook::EventKind::BookingConfirmed;
    db.emit_events(kind, (Some(user.as_uuid()), None), 10)
        .await
        .unwrap();
    db.fan_out_webhook_events(Utc::now(), 100).await.unwrap();
    let budget = store::ClaimBudget {
        per_endpoint: 2,
        per_owner: 2,
        manual_per_owner: 1,
    };
    let lease = |e: &WebhookEndpointRecord| Duration::seconds(10 + i64::from(e.timeout_streak));
    let first = db
        .claim_webhook_deliveries(Utc::now(), lease, 100, budget)
        .await
        .unwrap();
    assert_eq!(first.len(), 2, "two of the ten: the endpoint's budget");
    // Another worker (or pass) while those are in flight: nothing more of the stuck
    // endpoint, the other owner's new delivery at once.
    db.emit_events(kind, (Some(other.as_uuid()), None), 1)
        .await
        .unwrap();
    db.fan_out_webhook_events(Utc::now(), 100).await.unwrap();
    let second = db
        .claim_webhook_deliveries(Utc::now(), lease, 100, budget)
        .await
        .unwrap();
    assert_eq!(
        second.iter().map(|c| c.endpoint.id).collect::<Vec<_>>(),
        [fine.id]
    );
    // The first attempt got no answer in time: the streak grows, one place frees up.
    let timed_out = store::AttemptOutcome {
        status_code: None,
        answer: None,
        error: Some("no answer".into()),
        duration_ms: 10_000,
        delivered: false,
        timed_out: true,
    };
    let retry = Utc::now() + Duration::hours(1);
    db.record_webhook_attempt(
        &first[0],
        timed_out,
        (Utc::now(), Some(retry)),
        Duration::days(3),
    )
    .await
    .unwrap();
    let owner = store::WebhookOwner::User(user.as_uuid());
    let streak = |db: Arc<Db>| async move {
        db.webhook_endpoint(owner, stuck.id)
            .await
            .unwrap()
            .unwrap()
            .timeout_streak
    };
    assert_eq!(streak(Arc::clone(&db)).await, 1);
    let third = db
        .claim_webhook_deliveries(Utc::now(), lease, 100, budget)
        .await
        .unwrap();
    assert_eq!(third.len(), 1, "one place freed");
    assert_eq!(third[0].endpoint.timeout_streak, 1);
    // An answer (even a refusal) ends the streak.
    let answered = store::AttemptOutcome {
        status_code: Some(500),
        answer: None,
        error: None,
        duration_ms: 3,
        delivered: false,
        timed_out: false,
    };
    db.record_webhook_attempt(
        &third[0],
        answered,
        (Utc::now(), Some(retry)),
        Duration::days(3),
    )
    .await
    .unwrap();
    assert_eq!(streak(Arc::clone(&db)).await, 0);
}

#[tokio::test]
async fn sends_in_flight_are_budgeted_and_timeouts_shorten_on_sqlite() {
    sends_in_flight_are_budgeted_and_timeouts_shorten(Backend::Sqlite).await;
}

#[tokio::test]
async fn sends_in_flight_are_budgeted_and_timeouts_shorten_on_postgres() {
    sends_in_flight_are_budgeted_and_timeouts_shorten(Backend::Postgres).await;
}
