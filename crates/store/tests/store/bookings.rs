//! Capacity under real concurrency: many transactions booking one machine at the same time,
//! straight against the store (no HTTP in between to space them out).

use std::sync::Arc;

use chrono::{Duration, Utc};
use domain::{DisplayName, Email, OrgId, OrgName, UserId};
use store::testing::TestDatabase;
use store::{Backend, BookingError, BookingRecord, Db, NewListing, booking_status};
use uuid::Uuid;

async fn racing_bookings_never_exceed_capacity(backend: Backend) {
    let database = TestDatabase::new(backend).await.unwrap();
    let db = Arc::new(Db::connect(database.url()).await.unwrap());
    let now = Utc::now();
    let user = UserId::new();
    db.insert_user(
        user,
        &Email::parse("r@example.com").unwrap(),
        &DisplayName::parse("R").unwrap(),
        "x".into(),
        now,
    )
    .await
    .unwrap();
    let org = db
        .create_org(OrgId::new(), &OrgName::parse("P").unwrap(), user, now)
        .await
        .unwrap();
    let listing = db
        .insert_listing(NewListing {
            id: Uuid::now_v7(),
            org_id: org.id,
            title: "t".into(),
            gpu_model: "g".into(),
            gpu_count: 2,
            vram_gb: 1,
            cpu_model: "c".into(),
            ram_gb: 1,
            region: "r".into(),
            price_amount: 1,
            currency: "USD".into(),
            engine_base_url: "http://x".into(),
            engine_model: "m".into(),
            now,
        })
        .await
        .unwrap();
    // Open the pool's connections first: with one connection the transactions would queue
    // for it and never meet.
    for _ in 0..3 {
        let warm = (0..32).map(|_| {
            let db = Arc::clone(&db);
            tokio::spawn(async move { db.listing_by_id(listing.id).await })
        });
        futures_util::future::join_all(warm).await;
    }
    let (start, end) = (now + Duration::hours(1), now + Duration::hours(2));
    let attempts = (0..40).map(|i| {
        let db = Arc::clone(&db);
        tokio::spawn(async move {
            let booking = BookingRecord {
                id: Uuid::now_v7(),
                listing_id: listing.id,
                renter_id: user.as_uuid(),
                gpu_count: 1,
                starts_at: start,
                ends_at: end,
                status: booking_status::CONFIRMED.into(),
                price_amount: 1,
                currency: "USD".into(),
                idempotency_key: format!("k{i}"),
                request_hash: "h".into(),
                hold_expires_at: None,
                cancelled_at: None,
                refund_amount: None,
                created_at: now,
            };
            db.book(booking, now, |overlapping, capacity| {
                domain::booking::peak_usage(overlapping, start, end) < capacity
            })
            .await
        })
    });
    let mut booked = 0;
    let mut refused = 0;
    for attempt in futures_util::future::join_all(attempts).await {
        match attempt.unwrap() {
            Ok(_) => booked += 1,
            Err(BookingError::Capacity) => refused += 1,
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
