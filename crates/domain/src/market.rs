//! The market's price history: what one closed bucket of time (an hour or a day, UTC) rolls up
//! to, per GPU and currency — listings and GPUs listed, GPU-hours booked, the listed price per
//! GPU-hour's p10, median and p90, the lowest bid that held (the clearing bid) and the median
//! price per million tokens. Bookings made by a member of the listing's own organisation are
//! left out, so a provider cannot write the market's figures.

use chrono::{DateTime, Duration, DurationRound, Utc};
use uuid::Uuid;

use crate::{BookingStatus, Currency, Money, ValidationError};

/// The key of the rows that count every listing, whatever its GPU.
pub const ALL_GPUS: &str = "*";

/// A bucket of the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    Hour,
    Day,
}

impl Bucket {
    pub const ALL: [Bucket; 2] = [Bucket::Hour, Bucket::Day];

    pub fn parse(raw: &str) -> Result<Self, ValidationError> {
        match raw {
            "hour" => Ok(Self::Hour),
            "day" => Ok(Self::Day),
            other => Err(ValidationError::new(
                "bucket",
                format!("must be hour or day, not {other:?}"),
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hour => "hour",
            Self::Day => "day",
        }
    }

    pub fn length(self) -> Duration {
        match self {
            Self::Hour => Duration::hours(1),
            Self::Day => Duration::days(1),
        }
    }

    /// The start of the bucket `at` falls in.
    pub fn start_of(self, at: DateTime<Utc>) -> DateTime<Utc> {
        at.duration_trunc(self.length()).unwrap_or(at)
    }

    /// The most buckets one answer covers: 31 days of hours, 366 days.
    pub fn most_per_answer(self) -> i64 {
        match self {
            Self::Hour => 31 * 24,
            Self::Day => 366,
        }
    }
}

/// A listing as the bucket saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub listing: Uuid,
    pub org: Uuid,
    /// Its catalog GPU's id, when it names one (or its GPU model is one of the catalog's).
    pub gpu: Option<String>,
    pub gpus: i32,
    /// Per GPU-hour.
    pub price: Money,
    pub price_per_mtok: Option<f64>,
}

/// A booking's GPUs as held over part of the bucket.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Held {
    pub listing: Uuid,
    pub renter: Uuid,
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub gpus: i32,
    /// An interruptible booking's bid per GPU-hour.
    pub bid: Option<i64>,
}

/// When a stored booking held its GPUs: confirmed (or paid) from its start to its end — to
/// its cancellation when cancelled, to its notice's end when displaced after its start (its
/// `ends_at` then); never while it waited for a payment it did not get, nor when displaced
/// before its start. `None` when it held none.
pub fn held_span(
    status: BookingStatus,
    (starts_at, ends_at): (DateTime<Utc>, DateTime<Utc>),
    cancelled_at: Option<DateTime<Utc>>,
    interrupted_at: Option<DateTime<Utc>>,
) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let until = match status {
        BookingStatus::Confirmed
        | BookingStatus::Active
        | BookingStatus::Completed
        | BookingStatus::Interrupting => ends_at,
        BookingStatus::Cancelled => cancelled_at.map_or(ends_at, |at| at.min(ends_at)),
        BookingStatus::Interrupted => match interrupted_at {
            Some(at) if at < starts_at => return None,
            _ => ends_at,
        },
        BookingStatus::PendingPayment | BookingStatus::Expired => return None,
    };
    (starts_at < until).then_some((starts_at, until))
}

/// One row of the history: a bucket's figures for a GPU and a currency.
#[derive(Debug, Clone, PartialEq)]
pub struct Rollup {
    /// A catalog GPU's id, or [`ALL_GPUS`].
    pub gpu: String,
    pub currency: Currency,
    pub listings: i64,
    pub gpus_listed: i64,
    pub gpu_hours_booked: f64,
    /// The listed price per GPU-hour (minor units) at the 10th, 50th and 90th percentile of
    /// listings (nearest rank).
    pub price_p10: i64,
    pub price_median: i64,
    pub price_p90: i64,
    /// The lowest bid per GPU-hour of an interruptible booking that held GPUs in the bucket.
    pub clearing_bid: Option<i64>,
    pub price_per_mtok_median: Option<f64>,
}

/// The value at percentile `p` (0 to 1) of `sorted` by nearest rank: the smallest value with
/// at least `p` of them at or below it.
fn nearest_rank<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let rank = ((p * n as f64).ceil() as usize).clamp(1, n);
    Some(sorted[rank - 1])
}

/// Rolls one bucket `[from, until)` up: a row per GPU (and one of every listing, [`ALL_GPUS`])
/// and currency with a listing. `own(org, renter)`: the renter is a member of the listing's
/// organisation (their bookings are left out).
pub fn roll_up(
    (from, until): (DateTime<Utc>, DateTime<Utc>),
    listed: &[Listed],
    held: &[Held],
    own: impl Fn(Uuid, Uuid) -> bool,
) -> Vec<Rollup> {
    struct Group {
        gpu: String,
        currency: Currency,
        prices: Vec<i64>,
        per_mtok: Vec<f64>,
        gpus: i64,
        gpu_seconds: f64,
        clearing: Option<i64>,
    }
    let mut groups: Vec<Group> = Vec::new();
    let keys = |l: &Listed| {
        let mut keys = vec![ALL_GPUS.to_owned()];
        keys.extend(l.gpu.clone());
        keys
    };
    let mut group = |gpu: &str, currency: Currency| -> usize {
        match groups
            .iter()
            .position(|g| g.gpu == gpu && g.currency == currency)
        {
            Some(at) => at,
            None => {
                groups.push(Group {
                    gpu: gpu.to_owned(),
                    currency,
                    prices: Vec::new(),
                    per_mtok: Vec::new(),
                    gpus: 0,
                    gpu_seconds: 0.0,
                    clearing: None,
                });
                groups.len() - 1
            }
        }
    };
    let mut at: Vec<(usize, &Listed)> = Vec::new();
    for l in listed {
        for key in keys(l) {
            let g = group(&key, l.price.currency());
            at.push((g, l));
        }
    }
    for &(g, l) in &at {
        let group = &mut groups[g];
        group.prices.push(l.price.minor());
        group
            .per_mtok
            .extend(l.price_per_mtok.filter(|p| p.is_finite()));
        group.gpus += i64::from(l.gpus);
    }
    for h in held {
        let (a, b) = (h.from.max(from), h.until.min(until));
        if a >= b {
            continue;
        }
        for &(g, l) in at.iter().filter(|(_, l)| l.listing == h.listing) {
            if own(l.org, h.renter) {
                continue;
            }
            let group = &mut groups[g];
            group.gpu_seconds += f64::from(h.gpus) * (b - a).num_milliseconds() as f64 / 1000.0;
            if let Some(bid) = h.bid {
                group.clearing = Some(group.clearing.map_or(bid, |c| c.min(bid)));
            }
        }
    }
    groups
        .into_iter()
        .map(|mut g| {
            g.prices.sort_unstable();
            g.per_mtok.sort_by(f64::total_cmp);
            Rollup {
                listings: g.prices.len() as i64,
                gpus_listed: g.gpus,
                gpu_hours_booked: g.gpu_seconds / 3600.0,
                price_p10: nearest_rank(&g.prices, 0.1).unwrap_or_default(),
                price_median: nearest_rank(&g.prices, 0.5).unwrap_or_default(),
                price_p90: nearest_rank(&g.prices, 0.9).unwrap_or_default(),
                clearing_bid: g.clearing,
                price_per_mtok_median: nearest_rank(&g.per_mtok, 0.5),
                gpu: g.gpu,
                currency: g.currency,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(minutes: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_900_000_800, 0).unwrap() + Duration::minutes(minutes)
    }

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    fn listed(n: u128, gpu: Option<&str>, price: i64) -> Listed {
        Listed {
            listing: id(n),
            org: id(100 + n),
            gpu: gpu.map(str::to_owned),
            gpus: 2,
            price: Money::new(price, Currency::Usd),
            price_per_mtok: Some(price as f64 / 10.0),
        }
    }

    #[test]
    fn a_bucket_rolls_up_per_gpu_and_leaves_a_provider_s_own_bookings_out() {
        let listings: Vec<Listed> = (1..=10)
            .map(|n| listed(n, (n <= 4).then_some("l4"), 100 * n as i64))
            .collect();
        let booked = |listing, renter, (a, b), bid| Held {
            listing: id(listing),
            renter: id(renter),
            from: t(a),
            until: t(b),
            gpus: 1,
            bid,
        };
        let held = [
            // Half of the hour, on demand; a bid of 60 over the whole; one past the bucket.
            booked(1, 900, (30, 90), None),
            booked(2, 901, (-10, 70), Some(60)),
            booked(5, 902, (0, 60), Some(45)),
            booked(3, 903, (60, 120), Some(10)),
            // The provider's own member bids 5 on their own machine: left out.
            booked(4, 104, (0, 60), Some(5)),
        ];
        let own = |org: Uuid, renter: Uuid| org == id(104) && renter == id(104);
        let rows = roll_up((t(0), t(60)), &listings, &held, own);
        let all = rows.iter().find(|r| r.gpu == ALL_GPUS).unwrap();
        assert_eq!(
            (
                all.listings,
                all.gpus_listed,
                all.price_p10,
                all.price_median,
                all.price_p90
            ),
            (10, 20, 100, 500, 900)
        );
        assert!((all.gpu_hours_booked - 2.5).abs() < 1e-9, "{all:?}");
        assert_eq!(all.clearing_bid, Some(45));
        assert_eq!(all.price_per_mtok_median, Some(50.0));
        let l4 = rows.iter().find(|r| r.gpu == "l4").unwrap();
        assert_eq!(
            (l4.listings, l4.price_p10, l4.price_median, l4.price_p90),
            (4, 100, 200, 400)
        );
        assert!((l4.gpu_hours_booked - 1.5).abs() < 1e-9, "{l4:?}");
        assert_eq!(l4.clearing_bid, Some(60), "the own member's 5 is left out");
        assert_eq!(rows.len(), 2);
    }

    #[test]
    fn a_booking_holds_from_its_start_to_its_end_cancellation_or_notice() {
        use BookingStatus::*;
        let span = (t(0), t(60));
        assert_eq!(held_span(Completed, span, None, None), Some(span));
        assert_eq!(
            held_span(Cancelled, span, Some(t(20)), None),
            Some((t(0), t(20)))
        );
        assert_eq!(held_span(Cancelled, span, Some(t(-5)), None), None);
        assert_eq!(held_span(Interrupted, span, None, Some(t(-5))), None);
        assert_eq!(
            held_span(Interrupted, span, None, Some(t(10))),
            Some(span),
            "its ends_at is its notice's end"
        );
        assert_eq!(held_span(PendingPayment, span, None, None), None);
        assert_eq!(held_span(Expired, span, None, None), None);
    }

    #[test]
    fn buckets_are_whole_hours_and_days() {
        let at = DateTime::parse_from_rfc3339("2026-12-07T15:42:10Z")
            .unwrap()
            .to_utc();
        assert_eq!(
            Bucket::Hour.start_of(at).to_rfc3339(),
            "2026-12-07T15:00:00+00:00"
        );
        assert_eq!(
            Bucket::Day.start_of(at).to_rfc3339(),
            "2026-12-07T00:00:00+00:00"
        );
        assert_eq!(Bucket::parse("week").unwrap_err().field, "bucket");
    }
}
