//! Properties of the booking and money rules over random sequences: capacity is never
//! exceeded, free GPUs are what the bookings leave, and every refund's fee and transfer
//! shares add up without ever giving back more than was paid.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use chrono::{DateTime, Duration, Utc};
use domain::booking::{Holding, Interval, Machine, admit, free_segments, peak_usage, refund};
use domain::ledger::{charge_rows, refund_rows};
use domain::{Currency, ListingStatus, Money};
use proptest::prelude::*;

mod guarantee;
mod ssh_keys;
mod webhook_events;

fn t(minutes: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(1_900_000_000, 0).unwrap() + Duration::minutes(minutes)
}

/// One step of a machine's life: someone books, cancels, or time passes (the sweeper ends
/// what is over).
#[derive(Debug, Clone)]
enum Step {
    Book { start: i64, length: i64, gpus: i32 },
    Cancel { which: usize },
    Pass { minutes: i64 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0i64..600, 1i64..240, 1i32..5).prop_map(|(start, length, gpus)| Step::Book { start, length, gpus }),
        1 => (0usize..64).prop_map(|which| Step::Cancel { which }),
        1 => (1i64..120).prop_map(|minutes| Step::Pass { minutes }),
    ]
}

/// GPUs in use at one instant, counted the slow way.
fn used_at(bookings: &[Holding], at: DateTime<Utc>) -> i32 {
    bookings
        .iter()
        .filter(|h| h.starts_at <= at && at < h.ends_at)
        .map(|h| h.gpus)
        .sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bookings_cancels_and_sweeps_never_exceed_capacity(
        capacity in 1i32..6,
        steps in proptest::collection::vec(step(), 1..80),
    ) {
        let mut now = 0i64;
        let mut holding: Vec<Holding> = Vec::new();
        for step in steps {
            match step {
                Step::Book { start, length, gpus } => {
                    let Ok(interval) = Interval::new(t(now + start), t(now + start + length), t(now)) else {
                        continue;
                    };
                    let machine = Machine {
                        status: ListingStatus::Active,
                        window: (None, None),
                        capacity,
                        holding: holding.clone(),
                        renter_open: Default::default(),
                        maintenance: vec![],
                        price_per_gpu_hour: None,
                        min_bid_per_gpu_hour: None,
                    };
                    if admit(&machine, &interval, gpus).is_ok() {
                        let span = (interval.starts_at(), interval.ends_at());
                        let id = uuid::Uuid::now_v7().into();
                        holding.push(Holding::booking(id, span, gpus));
                    } else {
                        // Refused only when it really would not fit.
                        let peak = peak_usage(&holding, interval.starts_at(), interval.ends_at());
                        prop_assert!(peak + gpus > capacity);
                    }
                }
                Step::Cancel { which } => {
                    if !holding.is_empty() {
                        holding.remove(which % holding.len());
                    }
                }
                Step::Pass { minutes } => {
                    now += minutes;
                    holding.retain(|h| h.ends_at > t(now));
                }
            }
            // At every instant the bookings fit, and the free segments say exactly that.
            let (from, to) = (t(now), t(now + 1000));
            let segments = free_segments(capacity, (None, None), &holding, from, to);
            prop_assert_eq!(segments.first().map(|s| s.0), Some(from));
            prop_assert_eq!(segments.last().map(|s| s.1), Some(to));
            for pair in segments.windows(2) {
                prop_assert_eq!(pair[0].1, pair[1].0, "contiguous");
                prop_assert_ne!(pair[0].2, pair[1].2, "merged");
            }
            for (start, end, free) in segments {
                prop_assert!(free >= 0);
                prop_assert_eq!(free, capacity - used_at(&holding, start));
                prop_assert_eq!(free, capacity - used_at(&holding, end - Duration::seconds(1)));
            }
        }
    }

    #[test]
    fn refunds_give_back_in_proportion_and_never_more_than_was_paid(
        paid in 1i64..10_000_000,
        fee_bps in 0i64..3_000,
        booked_minutes in 1i64..10_000,
        cancelled_after in -100i64..12_000,
    ) {
        let paid = Money::new(paid, Currency::Usd);
        let fee = paid.share(fee_bps, 10_000);
        let charge = charge_rows(paid, fee);
        let charged: i64 = charge.iter().skip(1).map(|(_, m)| m.minor()).sum();
        prop_assert_eq!(charged, paid.minor(), "the fee and the transfer are the charge");
        let interval = Interval::new(t(0), t(booked_minutes), t(0)).unwrap();
        let back = refund(paid, &interval, t(cancelled_after), &[]);
        prop_assert!(back.minor() >= 0 && back.minor() <= paid.minor());
        let rows = refund_rows(paid, fee, back);
        let (refunded, fee_back, transfer_back) = (-rows[0].1.minor(), -rows[1].1.minor(), -rows[2].1.minor());
        prop_assert_eq!(refunded, back.minor());
        prop_assert!(fee_back <= fee.minor() && transfer_back <= paid.minor() - fee.minor());
        // Rounded down each, so together at most what was refunded, and short by under 2.
        prop_assert!(fee_back + transfer_back <= refunded);
        prop_assert!(refunded - (fee_back + transfer_back) < 2);
    }
}
