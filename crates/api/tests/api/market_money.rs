//! Money stays exact in the market (issue 59): rounds of racing requests — on-demand and
//! interruptible bookings at random bids (some started, some gateway-only asking to end when
//! idle), each paid through Stripe's webhook, bid raises (most paid at once, refunds then split
//! across the booking's PaymentIntents), cancellations, idle stops and sweeps, then every
//! booking cancelled at once — and after every round: the machine is never over capacity at any instant; every booking's charge is
//! one whole charge in the ledger and its refunds never exceed it (and equal what its
//! cancellation or displacement recorded, once made); every displaced booking that had started
//! kept its access for the whole notice, and every other one had not started; no 5xx.

use chrono::{Duration, Utc};
use serde_json::{Value, json};

use crate::helpers::Session;
use crate::payments::{
    deliver_signed, enable_payouts_of, event, intent_object, market_configured, raise_intent,
};

on_backends!(money_stays_exact_while_bids_bookings_cancellations_and_sweeps_race);

/// A small deterministic generator (xorshift64*), so a failing round can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

const NOTICE_SECS: i64 = 1;

async fn money_stays_exact_while_bids_bookings_cancellations_and_sweeps_race(
    backend: store::Backend,
) {
    let m = market_configured(backend, |c| {
        c.payments.interrupt_notice_secs = NOTICE_SECS as u64;
        c.limits.max_open_bookings = 1000;
        c.limits.pending_bookings_per_renter = 1000;
    })
    .await;
    enable_payouts_of(&m.app, &m.org, &m.admin).await;
    let listing: Value = m
        .app
        .post(
            "/v1/listings",
            Some(&m.admin.access_token),
            json!({
                "org_id": m.org, "title": "L4 x3", "region": "eu",
                "hardware": {"gpu_model": "L4", "gpu_count": 3, "vram_gb": 24, "cpu_model": "x", "ram_gb": 64},
                "price": {"amount_per_gpu_hour": 200, "currency": "USD", "min_bid_per_gpu_hour": 50},
                "engine": {"base_url": "http://127.0.0.1:9", "model": "m"},
            }),
        )
        .await
        .json()
        .await
        .unwrap();
    let listing = listing["id"].as_str().unwrap().to_owned();
    let mut renters = vec![m.renter.clone()];
    for i in 0..3 {
        renters.push(m.app.register(&format!("racer{i}@example.com")).await);
    }
    let seed = 0x5eed_0059_u64 ^ u64::from(backend == store::Backend::Postgres);
    let mut rng = Rng(seed);
    let mut made: Vec<(usize, String)> = Vec::new();
    // First, for certain: a started bid displaced with notice by an on-demand booking, which
    // its renter then cancels.
    let book = |who, bid, start, gpus, key: &str| Op::Book {
        who,
        bid,
        start,
        minutes: 120,
        gpus,
        idle: false,
        key: key.to_owned(),
    };
    for op in [
        book(1, Some(55), 0, 2, "first_bid"),
        book(0, None, 2, 3, "first_demand"),
    ] {
        let (status, booked) = run(&m.app, &renters, &listing, &op).await;
        assert_eq!(status, 201);
        made.extend(booked);
    }
    let (who, id) = made[1].clone();
    assert_eq!(
        run(&m.app, &renters, &listing, &Op::Cancel { who, id })
            .await
            .0,
        200
    );
    // A bid from an hour on, raised and paid for: what the rounds do to it is refunded from
    // the raise's PaymentIntent first.
    let (status, raised) = run(
        &m.app,
        &renters,
        &listing,
        &book(2, Some(60), 3600, 1, "first_raised"),
    )
    .await;
    assert_eq!(status, 201);
    let (who, id) = raised.unwrap();
    let raise = Op::Raise {
        who,
        id: id.clone(),
        bid: 90,
        pay: true,
        key: "first_raise".to_owned(),
    };
    assert_eq!(run(&m.app, &renters, &listing, &raise).await.0, 200);
    made.push((who, id));
    check(&m.app, &listing, 0, seed).await;
    // Interruptible bookings, whose bids the rounds raise.
    let mut bidding: Vec<(usize, String)> = vec![made[0].clone(), made[2].clone()];
    let mut key = 0;
    for round in 0..8 {
        let mut ops = Vec::new();
        for _ in 0..12 {
            key += 1;
            let op = match rng.below(12) {
                0..=5 => {
                    let who = rng.below(renters.len() as u64) as usize;
                    let bid =
                        [None, Some(55), Some(70), Some(90), Some(120)][rng.below(5) as usize];
                    // Bids from now (started at once) or later; on demand from just past the
                    // notice, so that it displaces started bids.
                    let start = match bid {
                        None => 2,
                        Some(_) => [0, 0, 3600][rng.below(3) as usize],
                    };
                    let minutes = [30, 120][rng.below(2) as usize];
                    let gpus = 1 + rng.below(2);
                    let idle = rng.below(4) == 0;
                    Op::Book {
                        who,
                        bid,
                        start,
                        minutes,
                        gpus,
                        idle,
                        key: format!("race_{key}"),
                    }
                }
                6..=7 if !made.is_empty() => {
                    let (who, id) = made[rng.below(made.len() as u64) as usize].clone();
                    Op::Cancel { who, id }
                }
                8..=9 if !bidding.is_empty() => {
                    // One of the latest: most earlier ones have given way by now.
                    let latest = bidding.len().min(4);
                    let pick = bidding.len() - 1 - rng.below(latest as u64) as usize;
                    let (who, id) = bidding[pick].clone();
                    let bid = [60, 80, 100, 130, 160][rng.below(5) as usize];
                    Op::Raise {
                        who,
                        id,
                        bid,
                        pay: rng.below(4) != 0,
                        key: format!("raise_{key}"),
                    }
                }
                10 => Op::StopIdle,
                _ => Op::Sweep,
            };
            ops.push(op);
        }
        let outcomes = futures_util::future::join_all(
            ops.iter().map(|op| run(&m.app, &renters, &listing, op)),
        )
        .await;
        for (op, (status, booked)) in ops.iter().zip(outcomes) {
            assert!(status < 500, "round {round} (seed {seed}): {status}");
            if let (Op::Book { bid: Some(_), .. }, Some(booked)) = (op, &booked) {
                bidding.push(booked.clone());
            }
            made.extend(booked);
        }
        m.app.app.sweep_bookings().await.unwrap();
        check(&m.app, &listing, round, seed).await;
    }
    // Last, every booking cancelled at once (those still holding are refunded, raised ones
    // from the raise's PaymentIntent first).
    let last = made
        .iter()
        .map(|(who, id)| Op::Cancel {
            who: *who,
            id: id.clone(),
        })
        .collect::<Vec<_>>();
    for (status, _) in
        futures_util::future::join_all(last.iter().map(|op| run(&m.app, &renters, &listing, op)))
            .await
    {
        assert!(status < 500, "the last round (seed {seed}): {status}");
    }
    m.app.app.sweep_bookings().await.unwrap();
    check(&m.app, &listing, 8, seed).await;
    assert!(made.len() > 5, "the rounds made bookings: {}", made.len());
    // The rounds did what they are for: bookings displaced (after their start too), cancelled
    // and stopped when idle.
    let id: uuid::Uuid = listing.parse().unwrap();
    let all = m
        .app
        .app
        .db()
        .bookings_of_listing(id, None, 10_000)
        .await
        .unwrap();
    let count = |f: &dyn Fn(&store::BookingRecord) -> bool| all.iter().filter(|b| f(b)).count();
    let displaced = count(&|b| b.interrupted_at.is_some());
    let noticed = count(&|b| b.booked_ends_at.is_some());
    let cancelled = count(&|b| *b.status == domain::BookingStatus::Cancelled);
    // Raises paid, and of the bookings raised those refunded since (from more than one
    // PaymentIntent where the refund was more than the raise).
    let (mut raised, mut raised_refunded) = (0, 0);
    for b in &all {
        let db = m.app.app.db();
        let paid = db
            .bid_raises_of(b.id)
            .await
            .unwrap()
            .iter()
            .filter(|r| r.status == store::raise_status::PAID)
            .count();
        raised += paid;
        if paid > 0 && b.refund_amount.unwrap_or(0) > 0 {
            raised_refunded += 1;
        }
    }
    println!(
        "seed {seed}: {} bookings, {displaced} displaced ({noticed} with notice), {cancelled} cancelled, {raised} raises paid ({raised_refunded} raised bookings refunded)",
        all.len()
    );
    assert!(
        displaced > 0 && noticed > 0 && cancelled > 0 && raised > 0 && raised_refunded > 0,
        "seed {seed}: {displaced} {noticed} {cancelled} {raised} {raised_refunded}"
    );
}

enum Op {
    Book {
        who: usize,
        bid: Option<i64>,
        /// Seconds from now.
        start: i64,
        minutes: i64,
        gpus: u64,
        /// Gateway-only, ending after 60 s without a request.
        idle: bool,
        key: String,
    },
    Cancel {
        who: usize,
        id: String,
    },
    /// Raises a booking's bid, paying for it at once unless `pay` is false.
    Raise {
        who: usize,
        id: String,
        bid: i64,
        pay: bool,
        key: String,
    },
    StopIdle,
    Sweep,
}

/// Runs one operation: its answer's status, and the booking it made (paid at once).
async fn run(
    app: &crate::helpers::TestApp,
    renters: &[Session],
    listing: &str,
    op: &Op,
) -> (u16, Option<(usize, String)>) {
    match op {
        Op::Book {
            who,
            bid,
            start,
            minutes,
            gpus,
            idle,
            key,
        } => {
            let from = Utc::now() + Duration::seconds(*start);
            let mut body = json!({
                "listing_id": listing, "gpu_count": gpus,
                "starts_at": from, "ends_at": from + Duration::minutes(*minutes),
            });
            if let Some(bid) = bid {
                body["tier"] = json!("interruptible");
                body["bid_per_gpu_hour"] = json!(bid);
            }
            if *idle {
                body["direct_access"] = json!(false);
                body["stop_when_idle_secs"] = json!(60);
            }
            let answer = app
                .client
                .post(app.url("/v1/bookings"))
                .bearer_auth(&renters[*who].access_token)
                .header("Idempotency-Key", key)
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = answer.status().as_u16();
            if status != 201 {
                return (status, None);
            }
            let booked: Value = answer.json().await.unwrap();
            let id = booked["id"].as_str().unwrap().to_owned();
            let paid = event(
                &format!("evt_{key}"),
                "payment_intent.succeeded",
                intent_object(&booked, "succeeded"),
            );
            deliver_signed(app, &paid).await;
            (status, Some((*who, id)))
        }
        Op::Cancel { who, id } => {
            let answer = app
                .post(
                    &format!("/v1/bookings/{id}/cancel"),
                    Some(&renters[*who].access_token),
                    json!({}),
                )
                .await;
            (answer.status().as_u16(), None)
        }
        Op::Raise {
            who,
            id,
            bid,
            pay,
            key,
        } => {
            let answer = app
                .call(
                    reqwest::Method::PATCH,
                    &format!("/v1/bookings/{id}"),
                    Some(&renters[*who].access_token),
                    Some(json!({"bid_per_gpu_hour": bid})),
                )
                .await;
            let status = answer.status().as_u16();
            if status != 200 || !pay {
                return (status, None);
            }
            let raised: Value = answer.json().await.unwrap();
            let intent = raise_intent(&raised, "succeeded");
            let paid = event(&format!("evt_{key}"), "payment_intent.succeeded", intent);
            deliver_signed(app, &paid).await;
            (status, None)
        }
        Op::StopIdle => {
            // As the sweeper would two hours on: every gateway-only booking asking to is idle.
            app.app
                .stop_idle_bookings(Utc::now() + Duration::hours(2))
                .await
                .unwrap();
            (200, None)
        }
        Op::Sweep => {
            app.app.sweep_bookings().await.unwrap();
            (200, None)
        }
    }
}

/// The round's invariants, read from the store.
async fn check(app: &crate::helpers::TestApp, listing: &str, round: usize, seed: u64) {
    let db = app.app.db();
    let id: uuid::Uuid = listing.parse().unwrap();
    let now = Utc::now();
    let (from, until) = (now - Duration::days(1), now + Duration::days(1));
    let holdings: Vec<_> = db
        .holding_bookings(&[id], from, until, now)
        .await
        .unwrap()
        .into_iter()
        .map(|(_, h)| h)
        .collect();
    let peak = domain::booking::peak_usage(&holdings, from, until);
    assert!(
        peak <= 3,
        "round {round} (seed {seed}): {peak} GPUs of 3 held at once"
    );
    let notice = Duration::seconds(NOTICE_SECS);
    for b in db.bookings_of_listing(id, None, 10_000).await.unwrap() {
        let what = format!("round {round} (seed {seed}), booking {}", b.id);
        let rows = db.ledger_of_booking(b.id).await.unwrap();
        let sum = |kind: &str| -> i64 {
            rows.iter()
                .filter(|r| r.kind == kind)
                .map(|r| r.amount)
                .sum()
        };
        // A bid raise paid once it could no longer hold is charged and refunded whole.
        let raises = db.bid_raises_of(b.id).await.unwrap();
        let late: i64 = raises
            .iter()
            .filter(|r| r.status == store::raise_status::REFUNDED)
            .map(|r| r.amount)
            .sum();
        let (charged, refunded) = (sum("charge") - late, -sum("refund") - late);
        let told = || {
            let raises: Vec<_> = raises
                .iter()
                .map(|r| (&r.status, r.amount, r.price_amount, &r.payment_intent_id))
                .collect();
            let rows: Vec<_> = rows
                .iter()
                .map(|r| (&r.kind, r.amount, &r.stripe_object_id))
                .collect();
            format!("{:?} {raises:?} {rows:?}", *b.status)
        };
        assert!(
            charged == 0 || charged == b.price_amount,
            "{what}: charged {charged} of {}: {}",
            b.price_amount,
            told()
        );
        assert!(
            refunded >= 0 && refunded <= charged,
            "{what}: refunded {refunded} of {charged}"
        );
        let recorded = b.refund_amount.unwrap_or(0);
        assert!(
            recorded <= b.price_amount,
            "{what}: refund {recorded} above its price"
        );
        // After the sweep every displaced, paid booking has been given back what it is owed
        // (a refund the payment provider refused — more than an intent has left — stays owed).
        if b.interrupted_at.is_some() && charged > 0 && recorded > 0 {
            assert!(
                b.interruption_refunded_at.is_some(),
                "{what}: its displacement refund of {recorded} is still owed"
            );
        }
        let made = match *b.status {
            domain::BookingStatus::Cancelled => charged > 0,
            domain::BookingStatus::Interrupting | domain::BookingStatus::Interrupted => {
                b.interruption_refunded_at.is_some() && charged > 0
            }
            _ => false,
        };
        // What was recorded is what the ledger gave back — or, ended while its payment was
        // still awaited (nothing recorded), the whole payment that came after.
        if made {
            assert!(
                refunded == recorded || (recorded == 0 && refunded == charged),
                "{what}: refunded {refunded}, recorded {recorded}, charged {charged}"
            );
        }
        if let Some(at) = b.interrupted_at {
            match b.booked_ends_at {
                // Displaced after its start: access for the whole notice.
                Some(booked) => {
                    assert!(b.starts_at <= at, "{what}: had started");
                    assert_eq!(b.ends_at, at + notice, "{what}: its notice");
                    assert!(b.ends_at < booked, "{what}: cut short");
                }
                // Displaced before its start, or while its payment was awaited (no access
                // to end): nothing recorded for one unpaid.
                None => assert!(
                    b.starts_at > at || recorded == 0,
                    "{what}: had not started, or was unpaid"
                ),
            }
        }
    }
}
