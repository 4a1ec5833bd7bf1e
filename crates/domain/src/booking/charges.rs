//! What a booking costs and gives back: its price, a cancellation's refund, and the share a
//! maintenance window takes.

use chrono::{DateTime, Duration, Utc};

use super::Interval;
use crate::money::Money;

/// The price of `gpus` GPUs over `interval` at `per_gpu_hour`, rounded up to a whole minor
/// unit of its currency (a cent; for the yen, a yen).
pub fn price(per_gpu_hour: Money, gpus: i32, interval: &Interval) -> Money {
    let numerator =
        i128::from(per_gpu_hour.minor()) * i128::from(gpus) * i128::from(interval.seconds());
    let amount = (numerator + 3599) / 3600;
    per_gpu_hour.with_minor(i64::try_from(amount).unwrap_or(i64::MAX))
}

/// What a cancellation at `at` gives back of `paid`: everything before the start, the unused
/// share (rounded down) after it, nothing once the booking has ended — leaving out the time
/// maintenance windows took (`interrupted`, half-open intervals), which their own refunds
/// ([`interruption`]) give back. So a booking's refunds together never exceed what was paid.
pub fn refund(
    paid: Money,
    interval: &Interval,
    at: DateTime<Utc>,
    interrupted: &[(DateTime<Utc>, DateTime<Utc>)],
) -> Money {
    let unused_from = at.max(interval.starts_at);
    if unused_from >= interval.ends_at {
        return paid.with_minor(0);
    }
    let unused = seconds_not_covered(unused_from, interval.ends_at, interrupted);
    share_of(paid, unused, interval.seconds())
}

/// `seconds` of `total` of `paid`, rounded down; all of it when `seconds` is the whole.
fn share_of(paid: Money, seconds: i64, total: i64) -> Money {
    if seconds >= total {
        return paid;
    }
    let share = i128::from(paid.minor()) * i128::from(seconds.max(0)) / i128::from(total.max(1));
    paid.with_minor(i64::try_from(share).unwrap_or(0))
}

/// Whole seconds of `[from, until)` that none of `covered` (half-open, in any order,
/// overlapping or not) covers.
pub fn seconds_not_covered(
    from: DateTime<Utc>,
    until: DateTime<Utc>,
    covered: &[(DateTime<Utc>, DateTime<Utc>)],
) -> i64 {
    let mut clipped: Vec<(DateTime<Utc>, DateTime<Utc>)> = covered
        .iter()
        .map(|&(a, b)| (a.max(from), b.min(until)))
        .filter(|(a, b)| a < b)
        .collect();
    clipped.sort();
    let (mut taken, mut reach) = (Duration::zero(), from);
    for (a, b) in clipped {
        let a = a.max(reach);
        if a < b {
            taken += b - a;
            reach = b;
        }
    }
    ((until - from) - taken).num_seconds().max(0)
}

/// What a maintenance window does to a booking it overlaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interruption {
    /// The window's part of the booking, `[from, until)`: no access over it.
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    /// Seconds of it that no earlier window of the booking took.
    pub seconds: i64,
    /// Their share of the price, rounded down: given back.
    pub refund: Money,
}

/// What a window over `[from, until)` does to a booking over `interval` that cost `paid`,
/// whose earlier windows took `earlier`: the part of the booking it takes, and the share of
/// the price for the time no earlier window took. `None` when they do not overlap.
pub fn interruption(
    paid: Money,
    interval: &Interval,
    (from, until): (DateTime<Utc>, DateTime<Utc>),
    earlier: &[(DateTime<Utc>, DateTime<Utc>)],
) -> Option<Interruption> {
    let (from, until) = (from.max(interval.starts_at), until.min(interval.ends_at));
    if from >= until {
        return None;
    }
    let seconds = seconds_not_covered(from, until, earlier);
    Some(Interruption {
        from,
        until,
        seconds,
        refund: share_of(paid, seconds, interval.seconds()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(hours: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_900_000_000, 0).unwrap() + Duration::hours(hours)
    }

    #[test]
    fn prices_and_refunds() {
        use crate::money::Currency;
        let usd = |minor| Money::new(minor, Currency::Usd);
        let interval = Interval::new(t(1), t(5), t(0)).unwrap();
        // 4 hours, 1 GPU, 150 cents per GPU-hour.
        assert_eq!(price(usd(150), 1, &interval), usd(600));
        assert_eq!(price(usd(150), 2, &interval), usd(1200));
        let odd = Interval::new(t(1), t(1) + Duration::seconds(1), t(0)).unwrap();
        assert_eq!(price(usd(150), 1, &odd), usd(1), "rounded up");
        assert_eq!(
            refund(usd(600), &interval, t(0), &[]),
            usd(600),
            "full before the start"
        );
        assert_eq!(
            refund(usd(600), &interval, t(2), &[]),
            usd(450),
            "three of four hours left"
        );
        assert_eq!(refund(usd(600), &interval, t(5), &[]), usd(0));
        // The yen has no minor unit: ¥1,500 per GPU-hour for 4 hours is ¥6,000.
        let yen = Money::new(1500, Currency::Jpy);
        assert_eq!(price(yen, 1, &interval), Money::new(6000, Currency::Jpy));
        assert_eq!(price(yen, 1, &interval).to_string(), "6000 JPY");
    }

    #[test]
    fn a_window_gives_back_the_share_it_takes_and_a_cancellation_the_rest() {
        use crate::money::Currency;
        let usd = |minor| Money::new(minor, Currency::Usd);
        // 4 hours for 600 cents; a window over hours 2–3 (and past the end: clipped).
        let interval = Interval::new(t(1), t(5), t(0)).unwrap();
        let first = interruption(usd(600), &interval, (t(2), t(3)), &[]).unwrap();
        assert_eq!((first.from, first.until, first.seconds), (t(2), t(3), 3600));
        assert_eq!(first.refund, usd(150));
        // A second window over hours 2.5–6 pays only for what the first did not take.
        let later = interruption(
            usd(600),
            &interval,
            (t(2) + Duration::minutes(30), t(6)),
            &[(t(2), t(3))],
        )
        .unwrap();
        assert_eq!((later.until, later.seconds), (t(5), 2 * 3600));
        assert_eq!(later.refund, usd(300));
        assert!(interruption(usd(600), &interval, (t(5), t(6)), &[]).is_none());
        // Cancelling at hour 1.5 gives back the unused time the windows did not take.
        let taken = [(t(2), t(3)), (t(2) + Duration::minutes(30), t(5))];
        let at = t(1) + Duration::minutes(30);
        assert_eq!(refund(usd(600), &interval, at, &taken), usd(75));
        assert_eq!(
            refund(usd(600), &interval, at, &taken).minor()
                + first.refund.minor()
                + later.refund.minor(),
            600 - 75,
            "the half hour used is all that is kept"
        );
        // Before the start, everything the windows did not take.
        assert_eq!(refund(usd(600), &interval, t(0), &taken), usd(150));
        // A window over the whole booking gives all of it back.
        let whole = interruption(usd(601), &interval, (t(0), t(9)), &[]).unwrap();
        assert_eq!(whole.refund, usd(601));
    }

    proptest::proptest! {
        /// However windows and a cancellation fall, a booking's refunds together never
        /// exceed its price.
        #[test]
        fn refunds_never_exceed_the_price(
            paid in 0i64..1_000_000,
            windows in proptest::collection::vec((0i64..600, 1i64..300), 0..5),
            cancel_at in -60i64..700,
        ) {
            use crate::money::Currency;
            let minute = |m: i64| t(0) + Duration::minutes(m);
            let interval = Interval::new(minute(60), minute(540), t(0)).unwrap();
            let paid = Money::new(paid, Currency::Usd);
            let mut taken = Vec::new();
            let mut total = 0;
            for (from, len) in windows {
                let window = (minute(from), minute(from + len));
                if let Some(i) = interruption(paid, &interval, window, &taken) {
                    total += i.refund.minor();
                    taken.push((i.from, i.until));
                }
            }
            total += refund(paid, &interval, minute(cancel_at), &taken).minor();
            proptest::prop_assert!(total <= paid.minor(), "{total} > {}", paid.minor());
        }
    }
}
