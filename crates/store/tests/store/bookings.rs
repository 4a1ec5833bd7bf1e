//! Capacity under real concurrency: many transactions booking one machine at the same time,
//! straight against the store (no HTTP in between to space them out).

use std::sync::Arc;

use chrono::{Duration, Utc};
use domain::UserId;
use store::tools::testing::TestDatabase;
use store::{Backend, BookingError, BookingRecord, Db, booking_status};
use uuid::Uuid;

/// A database with one renter and one 2-GPU listing of the renter's own organisation.
async fn marketplace(backend: Backend) -> (TestDatabase, Arc<Db>, UserId, Uuid) {
    let (database, db, user, listings) = crate::organisation(backend, 2, 1).await;
    (database, db, user, listings[0].id)
}

pub(crate) fn booking(
    listing: Uuid,
    renter: UserId,
    key: &str,
    status: &str,
    (start, end): (chrono::DateTime<Utc>, chrono::DateTime<Utc>),
) -> BookingRecord {
    BookingRecord {
        id: Uuid::now_v7(),
        listing_id: listing,
        renter_id: renter.as_uuid(),
        gpu_count: 1,
        starts_at: start,
        ends_at: end,
        status: status.parse::<domain::BookingStatus>().unwrap().into(),
        price_amount: 1,
        currency: "USD".into(),
        idempotency_key: key.into(),
        request_hash: "h".into(),
        hold_expires_at: None,
        cancelled_at: None,
        refund_amount: None,
        created_at: Utc::now(),
        payment_provider: None,
        payment_intent_id: None,
        client_secret: None,
        platform_fee_amount: None,
        payment_error: None,
        cancel_requested_at: None,
        cancel_claimed_until: None,
        plan_id: None,
        direct_access: true,
        no_guarantee_reason: None,
        container: None,
        stop_when_idle_secs: None,
        tier: "on_demand".into(),
        bid_per_gpu_hour: None,
        amount_per_gpu_hour: None,
        interrupted_at: None,
        booked_ends_at: None,
        interruption_refunded_at: None,
        interruption_refund_id: None,
    }
}

async fn racing_bookings_never_exceed_capacity(backend: Backend) {
    let (_database, db, user, listing_id) = marketplace(backend).await;
    let now = Utc::now();
    // Open the pool's connections first: with one connection the transactions would queue
    // for it and never meet.
    for _ in 0..3 {
        let warm = (0..32).map(|_| {
            let db = Arc::clone(&db);
            tokio::spawn(async move { db.listing_by_id(listing_id).await })
        });
        futures_util::future::join_all(warm).await;
    }
    let (start, end) = (now + Duration::hours(1), now + Duration::hours(2));
    let attempts = (0..40).map(|i| {
        let db = Arc::clone(&db);
        tokio::spawn(async move {
            let booking = booking(
                listing_id,
                user,
                &format!("k{i}"),
                booking_status::CONFIRMED,
                (start, end),
            );
            let interval = domain::booking::Interval::new(start, end, now).unwrap();
            db.book(booking, now, |machine| {
                domain::booking::admit(machine, &interval, 1).map(|()| Vec::new())
            })
            .await
        })
    });
    let mut booked = 0;
    let mut refused = 0;
    for attempt in futures_util::future::join_all(attempts).await {
        match attempt.unwrap() {
            Ok(_) => booked += 1,
            Err(BookingError::Refused(domain::booking::Refusal::Capacity)) => refused += 1,
            Err(other) => panic!("{other}"),
        }
    }
    assert_eq!((booked, refused), (2, 38));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_bookings_never_exceed_capacity_on_sqlite() {
    racing_bookings_never_exceed_capacity(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_bookings_never_exceed_capacity_on_postgres() {
    racing_bookings_never_exceed_capacity(Backend::Postgres).await;
}

/// The sweeper moves bookings with the clock, and only those due.
async fn the_sweeper_moves_bookings_on_time(backend: Backend) {
    let (_database, db, user, listing) = marketplace(backend).await;
    let now = Utc::now();
    let h = Duration::hours;
    let fits = |_: &domain::booking::Machine| Ok(Vec::new());
    let mut held = booking(
        listing,
        user,
        "held",
        booking_status::PENDING_PAYMENT,
        (now + h(1), now + h(2)),
    );
    held.hold_expires_at = Some(now - Duration::seconds(1));
    let mut holding = booking(
        listing,
        user,
        "holding",
        booking_status::PENDING_PAYMENT,
        (now + h(1), now + h(2)),
    );
    holding.hold_expires_at = Some(now + Duration::minutes(10));
    let started = booking(
        listing,
        user,
        "started",
        booking_status::CONFIRMED,
        (now - h(1), now + h(1)),
    );
    let ended = booking(
        listing,
        user,
        "ended",
        booking_status::ACTIVE,
        (now - h(2), now - h(1)),
    );
    let future = booking(
        listing,
        user,
        "future",
        booking_status::CONFIRMED,
        (now + h(3), now + h(4)),
    );
    let mut ids = Vec::new();
    for b in [held, holding, started, ended, future] {
        ids.push(db.book(b, now - h(3), fits).await.unwrap().0.id);
    }
    let sweep = db.sweep_bookings(now).await.unwrap();
    assert_eq!(sweep.expired, vec![ids[0]]);
    assert_eq!((sweep.activated, sweep.completed), (1, 1));
    // Each move wrote its webhook event with it: the two booked confirmed, one started, one
    // ended.
    let events = |kind: &'static str| {
        let db = Arc::clone(&db);
        async move {
            db.webhook_events_of_kind(kind)
                .await
                .unwrap()
                .iter()
                .map(|e| e.data.clone())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(events("booking.confirmed").await.len(), 2);
    let started = events("booking.started").await;
    assert!(started.len() == 1 && started[0].contains(&ids[2].to_string()));
    let ended = events("booking.ended").await;
    assert!(ended.len() == 1 && ended[0].contains(&ids[3].to_string()));
    let mut statuses = Vec::new();
    for id in &ids {
        statuses.push(
            db.booking_by_id(*id)
                .await
                .unwrap()
                .unwrap()
                .status
                .as_str(),
        );
    }
    assert_eq!(
        statuses,
        [
            "expired",
            "pending_payment",
            "active",
            "completed",
            "confirmed"
        ]
    );
    // An expired hold no longer holds capacity; a live hold still does.
    let holding = db
        .holding_bookings(&[listing], now + h(1), now + h(2), now)
        .await
        .unwrap();
    assert_eq!(holding.len(), 1, "only the live hold: {holding:?}");
    assert_eq!(
        db.sweep_bookings(now).await.unwrap(),
        store::Sweep::default(),
        "a second sweep finds nothing to do"
    );
    assert_eq!(
        events("booking.started").await.len(),
        1,
        "and tells nothing"
    );
}

#[tokio::test]
async fn the_sweeper_moves_bookings_on_time_on_sqlite() {
    the_sweeper_moves_bookings_on_time(Backend::Sqlite).await;
}

#[tokio::test]
async fn the_sweeper_moves_bookings_on_time_on_postgres() {
    the_sweeper_moves_bookings_on_time(Backend::Postgres).await;
}

/// A booking a window announced before windows interrupted bookings cancels with a full
/// refund stays open past its end while that cancellation has not been made (its refund kept
/// failing): the sweep keeps finding it and does not complete it, so the refund can still be
/// made. Another booking ends as usual.
async fn a_booking_maintenance_owes_stays_open_until_it_is_cancelled(backend: Backend) {
    let (_database, db, user, listing) = marketplace(backend).await;
    let now = Utc::now();
    let h = Duration::hours;
    let fits = |_: &domain::booking::Machine| Ok(Vec::new());
    let owed = booking(
        listing,
        user,
        "owed",
        booking_status::ACTIVE,
        (now - h(1), now + h(1)),
    );
    let owed = db.book(owed, now, fits).await.unwrap().0.id;
    let before = booking(
        listing,
        user,
        "before",
        booking_status::ACTIVE,
        (now - h(3), now - h(2)),
    );
    let before = db.book(before, now - h(3), fits).await.unwrap().0.id;
    db.insert_window_as_stored(store::WindowRecord {
        id: Uuid::now_v7(),
        listing_id: listing,
        starts_at: now + Duration::minutes(10),
        ends_at: now + Duration::minutes(50),
        reason: "PSU swap".into(),
        created_by: user.as_uuid(),
        created_at: Utc::now() + Duration::seconds(1),
        cancel_overlapping: true,
        cancelled_bookings: 1,
        interrupted_bookings: 0,
    })
    .await
    .unwrap();
    // Its cancellation failed (say, Stripe was down) until after both bookings ended.
    let later = now + h(2);
    let sweep = db.sweep_bookings(later).await.unwrap();
    assert_eq!(
        sweep.completed, 1,
        "only the booking the window does not owe"
    );
    let status = |id| {
        let db = Arc::clone(&db);
        async move { db.booking_by_id(id).await.unwrap().unwrap().status.as_str() }
    };
    assert_eq!(status(before).await, "completed");
    assert_eq!(status(owed).await, "active", "still owed its refund");
    let found = db.bookings_in_maintenance().await.unwrap();
    assert_eq!(found.iter().map(|b| b.id).collect::<Vec<_>>(), [owed]);
    // The refund is made at last: the booking is cancelled, and nothing is owed any more.
    assert!(db.cancel_booking(owed, 1, later).await.unwrap());
    assert_eq!(status(owed).await, "cancelled");
    assert!(db.bookings_in_maintenance().await.unwrap().is_empty());
    assert_eq!(
        db.sweep_bookings(later).await.unwrap(),
        store::Sweep::default()
    );
}

/// A window over bookings interrupts each, never cancels it: the booking keeps its interval
/// and status, and the share of its price the window takes is owed until recorded given back
/// (once, however often that is recorded). A second window over the same time owes only what
/// the first did not take; the booking completes at its end as usual; a window that
/// interrupted bookings cannot be deleted.
async fn a_window_interrupts_what_it_overlaps_and_owes_each_its_share(backend: Backend) {
    let (_database, db, user, listing) = marketplace(backend).await;
    let now = Utc::now();
    let h = Duration::hours;
    let fits = |_: &domain::booking::Machine| Ok(Vec::new());
    let mut four_hours = booking(
        listing,
        user,
        "four",
        booking_status::CONFIRMED,
        (now + h(1), now + h(5)),
    );
    four_hours.price_amount = 600;
    let booked = db.book(four_hours, now, fits).await.unwrap().0;
    let window = |from, until| store::WindowRecord {
        id: Uuid::now_v7(),
        listing_id: listing,
        starts_at: from,
        ends_at: until,
        reason: "PSU swap".into(),
        created_by: user.as_uuid(),
        created_at: now,
        cancel_overlapping: true,
        cancelled_bookings: 0,
        interrupted_bookings: 0,
    };
    let (first, interrupted) = db
        .add_maintenance_window(window(now + h(2), now + h(3)), now, None)
        .await
        .unwrap();
    assert_eq!(
        (first.interrupted_bookings, first.cancelled_bookings),
        (1, 0)
    );
    let [taken] = interrupted.as_slice() else {
        panic!("{interrupted:?}")
    };
    assert_eq!(taken.booking.id, booked.id);
    assert_eq!(taken.interruption.refund_amount, 150, "one hour of four");
    assert_eq!(taken.interruption.seconds, 3600);
    let kept = db.booking_by_id(booked.id).await.unwrap().unwrap();
    assert_eq!(
        (kept.status.as_str(), kept.starts_at, kept.ends_at),
        ("confirmed", booked.starts_at, booked.ends_at)
    );
    // Booked without a payment provider: owed at once.
    let owed = db.owed_interruptions(10).await.unwrap();
    assert_eq!(owed.len(), 1);
    assert!(
        db.interruption_refunded(taken.interruption.id, None, &[], now)
            .await
            .unwrap()
    );
    assert!(
        !db.interruption_refunded(taken.interruption.id, None, &[], now)
            .await
            .unwrap(),
        "given back once"
    );
    assert!(db.owed_interruptions(10).await.unwrap().is_empty());

    // Hours 2.5 to 6: only hours 3 to 5 are new to the booking.
    let (_, again) = db
        .add_maintenance_window(
            window(now + h(2) + Duration::minutes(30), now + h(6)),
            now,
            None,
        )
        .await
        .unwrap();
    assert_eq!(again[0].interruption.seconds, 2 * 3600);
    assert_eq!(again[0].interruption.refund_amount, 300);
    assert_eq!(again[0].interruption.ends_at, booked.ends_at, "clipped");
    assert_eq!(db.interruptions_of(booked.id).await.unwrap().len(), 2);
    let figures = db
        .interruption_figures(listing, now, now + h(24))
        .await
        .unwrap();
    assert_eq!((figures.windows, figures.bookings), (2, 2));
    assert!((figures.gpu_hours - 3.5).abs() < 1e-9, "{figures:?}");

    assert_eq!(
        db.delete_maintenance_window(listing, first.id, now, None)
            .await
            .unwrap(),
        store::WindowDeleted::TookBookings
    );
    let sweep = db.sweep_bookings(now + h(6)).await.unwrap();
    assert_eq!(
        sweep.completed, 1,
        "nothing holds an interrupted booking open"
    );
}

#[tokio::test]
async fn a_window_interrupts_what_it_overlaps_and_owes_each_its_share_on_sqlite() {
    a_window_interrupts_what_it_overlaps_and_owes_each_its_share(Backend::Sqlite).await;
}

#[tokio::test]
async fn a_window_interrupts_what_it_overlaps_and_owes_each_its_share_on_postgres() {
    a_window_interrupts_what_it_overlaps_and_owes_each_its_share(Backend::Postgres).await;
}

#[tokio::test]
async fn a_booking_maintenance_owes_stays_open_until_it_is_cancelled_on_sqlite() {
    a_booking_maintenance_owes_stays_open_until_it_is_cancelled(Backend::Sqlite).await;
}

#[tokio::test]
async fn a_booking_maintenance_owes_stays_open_until_it_is_cancelled_on_postgres() {
    a_booking_maintenance_owes_stays_open_until_it_is_cancelled(Backend::Postgres).await;
}

/// A request that waited on its renter's lock while the renter's account was erased books
/// nothing: the lock is taken only on an account that still exists.
async fn an_erased_renter_books_nothing(backend: Backend) {
    let (_database, db, _, listing_id) = marketplace(backend).await;
    let now = Utc::now();
    let renter = crate::new_user(&db, "renter@example.com").await;
    assert!(matches!(
        db.erase_person(renter, now).await.unwrap(),
        store::Erasure::Erased { .. }
    ));
    let (start, end) = (now + Duration::hours(1), now + Duration::hours(2));
    let interval = domain::booking::Interval::new(start, end, now).unwrap();
    let made = db
        .book(
            booking(
                listing_id,
                renter,
                "k",
                booking_status::CONFIRMED,
                (start, end),
            ),
            now,
            |machine| domain::booking::admit(machine, &interval, 1).map(|()| Vec::new()),
        )
        .await;
    assert!(
        matches!(
            made,
            Err(BookingError::Store(store::StoreError::AccountErased))
        ),
        "{made:?}"
    );
    assert_eq!(
        db.erase_person(renter, now).await.unwrap(),
        store::Erasure::Unknown,
        "erased once"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_erased_renter_books_nothing_on_sqlite() {
    an_erased_renter_books_nothing(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_erased_renter_books_nothing_on_postgres() {
    an_erased_renter_books_nothing(Backend::Postgres).await;
}
