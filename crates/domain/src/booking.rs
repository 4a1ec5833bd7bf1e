//! Bookings: intervals, the capacity rule, prices and refunds. Pure arithmetic on values.

use chrono::{DateTime, Duration, Utc};

use crate::money::Money;
use crate::{BookingId, BookingStatus, GpuHold, ValidationError};

/// The longest booking accepted.
pub const MAX_BOOKING_DAYS: i64 = 366;

/// A half-open interval `[starts_at, ends_at)` that is not empty, not reversed, does not
/// start in the past and is at most [`MAX_BOOKING_DAYS`] long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    starts_at: DateTime<Utc>,
    ends_at: DateTime<Utc>,
}

impl Interval {
    pub fn new(
        starts_at: DateTime<Utc>,
        ends_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Self, ValidationError> {
        if ends_at <= starts_at {
            return Err(ValidationError::new("ends_at", "must be after starts_at"));
        }
        // A minute of grace for clocks and latency.
        if starts_at < now - Duration::minutes(1) {
            return Err(ValidationError::new("starts_at", "must not be in the past"));
        }
        if ends_at - starts_at > Duration::days(MAX_BOOKING_DAYS) {
            return Err(ValidationError::new(
                "ends_at",
                format!("a booking may last at most {MAX_BOOKING_DAYS} days"),
            ));
        }
        Ok(Self { starts_at, ends_at })
    }

    pub fn starts_at(&self) -> DateTime<Utc> {
        self.starts_at
    }

    pub fn ends_at(&self) -> DateTime<Utc> {
        self.ends_at
    }

    pub fn seconds(&self) -> i64 {
        (self.ends_at - self.starts_at).num_seconds()
    }
}

/// Whether a booking in `status` whose hold (if it has one) expires at `hold_expires_at` holds
/// its GPUs at `now`: confirmed and active ones do, one awaiting its payment does until its
/// hold expires, the others never. The one rule the booking transaction's SQL
/// (`store::capacity::holds_capacity`) and search from memory both follow.
pub fn holds_gpus(
    status: BookingStatus,
    hold_expires_at: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> bool {
    match status.gpu_hold() {
        GpuHold::Always => true,
        GpuHold::UntilHoldExpires => hold_expires_at.is_some_and(|at| at > now),
        GpuHold::Never => false,
    }
}

/// What holds a machine's GPUs: a booking, or a maintenance window (every GPU).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldBy {
    Booking(BookingId),
    Window(uuid::Uuid),
}

/// How a booking holds its GPUs against others: every booking is on demand until the market
/// brings tiers that may be displaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tier {
    #[default]
    OnDemand,
}

/// GPUs held over `[starts_at, ends_at)`: so a capacity decision can name what it decides on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Holding {
    pub by: HeldBy,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub gpus: i32,
    pub tier: Tier,
}

impl Holding {
    /// A booking's GPUs, on demand.
    pub fn booking(id: BookingId, (starts_at, ends_at): Span, gpus: i32) -> Self {
        Self {
            by: HeldBy::Booking(id),
            starts_at,
            ends_at,
            gpus,
            tier: Tier::OnDemand,
        }
    }

    /// A maintenance window over a machine of `gpus` GPUs.
    pub fn window(id: uuid::Uuid, (starts_at, ends_at): Span, gpus: i32) -> Self {
        Self {
            by: HeldBy::Window(id),
            starts_at,
            ends_at,
            gpus,
            tier: Tier::OnDemand,
        }
    }
}

/// A half-open span of time `[from, until)`.
pub type Span = (DateTime<Utc>, DateTime<Utc>);

/// The most GPUs in use at any instant of `[start, end)` by `holdings` (half-open).
pub fn peak_usage(holdings: &[Holding], start: DateTime<Utc>, end: DateTime<Utc>) -> i32 {
    let mut edges: Vec<(DateTime<Utc>, i32)> = Vec::with_capacity(holdings.len() * 2);
    for h in holdings {
        let (s, e, gpus) = (h.starts_at, h.ends_at, h.gpus);
        let (s, e) = (s.max(start), e.min(end));
        if s < e {
            edges.push((s, gpus));
            edges.push((e, -gpus));
        }
    }
    // At the same instant ends come before starts: half-open intervals that touch do not overlap.
    edges.sort_by_key(|&(at, delta)| (at, delta));
    let (mut current, mut peak) = (0, 0);
    for (_, delta) in edges {
        current += delta;
        peak = peak.max(current);
    }
    peak
}

/// Free GPUs over `[from, to)` as consecutive segments `(start, end, free)`: `capacity`
/// minus what `holdings` use, and none outside the availability window `[window_from,
/// window_until)`. Neighbouring segments always differ in `free`. One sweep over the
/// bookings' starts and ends in time order: O(n log n) in the number of bookings.
pub fn free_segments(
    capacity: i32,
    window: (Option<DateTime<Utc>>, Option<DateTime<Utc>>),
    holdings: &[Holding],
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Vec<(DateTime<Utc>, DateTime<Utc>, i32)> {
    // Each holding, clipped to the range, starts using its GPUs and later stops.
    let mut changes: Vec<(DateTime<Utc>, i32)> = Vec::with_capacity(holdings.len() * 2);
    for h in holdings {
        let (s, e, gpus) = (h.starts_at, h.ends_at, h.gpus);
        let (s, e) = (s.max(from), e.min(to));
        if s < e {
            changes.extend([(s, gpus), (e, -gpus)]);
        }
    }
    changes.sort_by_key(|&(at, _)| at);
    let mut edges: Vec<DateTime<Utc>> = changes.iter().map(|&(at, _)| at).collect();
    edges.extend([from, to]);
    edges.extend(window.0);
    edges.extend(window.1);
    edges.retain(|&at| at >= from && at <= to);
    edges.sort();
    edges.dedup();
    let mut segments: Vec<(DateTime<Utc>, DateTime<Utc>, i32)> = Vec::new();
    let (mut used, mut applied) = (0, 0);
    for pair in edges.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        // Everything that starts or ends by `a` holds over `[a, b)`.
        while applied < changes.len() && changes[applied].0 <= a {
            used += changes[applied].1;
            applied += 1;
        }
        let open = window.0.is_none_or(|w| a >= w) && window.1.is_none_or(|w| b <= w);
        let free = if open { (capacity - used).max(0) } else { 0 };
        match segments.last_mut() {
            Some(last) if last.2 == free => last.1 = b,
            _ => segments.push((a, b, free)),
        }
    }
    segments
}

/// A machine as read inside a booking's transaction: what the booking rules decide on.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    pub status: crate::ListingStatus,
    /// The availability window `[from, until)`, either end open.
    pub window: (Option<DateTime<Utc>>, Option<DateTime<Utc>>),
    /// Its GPUs.
    pub capacity: i32,
    /// The bookings that hold its GPUs and overlap the interval.
    pub holding: Vec<Holding>,
    /// The renter's own bookings on any machine that hold GPUs and have not ended, read
    /// under the renter's lock: what their quota is judged on.
    pub renter_open: RenterOpen,
    /// Its maintenance windows that overlap the interval, `[from, until)`: the whole machine
    /// is out of service over each.
    pub maintenance: Vec<(DateTime<Utc>, DateTime<Utc>)>,
    /// Its price per GPU-hour, as read under the lock (`None` where unknown).
    pub price_per_gpu_hour: Option<crate::Money>,
}

/// A renter's bookings that hold GPUs and have not ended, as read under the renter's lock.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RenterOpen {
    /// `(starts_at, ends_at, gpus)`; a plan's bookings as one (its GPUs summed over their
    /// shared interval): a plan is one booking against the quota, its GPU-hours in full.
    pub bookings: Vec<(DateTime<Utc>, DateTime<Utc>, i32)>,
    /// Those awaiting their payment, each booking of a plan counted, with when each hold
    /// expires.
    pub unpaid: Vec<DateTime<Utc>>,
    /// Their budget this month, when they set one.
    pub budget: Option<crate::budget::MonthBudget>,
}

/// What one renter may hold at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenterQuota {
    /// Bookings not yet ended (`max_open_bookings`).
    pub max_open: u32,
    /// GPU-hours booked ahead of now (`max_booked_gpu_hours`).
    pub max_gpu_hours: u32,
    /// Bookings awaiting their payment at once (`pending_bookings_per_renter`), where payments
    /// are taken (`None`: bookings are confirmed at once).
    pub max_unpaid: Option<u32>,
}

/// Which quota a booking would break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaKind {
    OpenBookings,
    GpuHours,
    /// Bookings awaiting their payment.
    Unpaid,
}

/// Why a machine cannot take a booking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the listing has been delisted")]
    Delisted,
    #[error("the interval is outside the listing's availability window")]
    OutsideWindow {
        from: Option<DateTime<Utc>>,
        until: Option<DateTime<Utc>>,
    },
    #[error("the machine does not have the GPUs free over the interval")]
    Capacity,
    /// Its provider takes the machine out of service over part of the interval.
    #[error("the machine is in maintenance over part of the interval")]
    Maintenance {
        from: DateTime<Utc>,
        until: DateTime<Utc>,
    },
    /// The renter holds their quota already; something frees at `frees_at` (the end of their
    /// earliest open booking).
    #[error("the renter holds as much as their quota allows")]
    Quota {
        kind: QuotaKind,
        limit: u32,
        frees_at: DateTime<Utc>,
    },
    /// The booking alone is more GPU-hours than any renter may hold.
    #[error("the booking alone is more GPU-hours than a renter may hold")]
    TooLarge { max_gpu_hours: u32 },
    /// The price is not the one the renter expected: what it is now (per GPU-hour).
    #[error("the price is not the one expected")]
    PriceChanged { now: crate::Money },
    /// It would cost more than is left of the renter's budget this month: what is left.
    #[error("the booking would exceed the renter's budget")]
    Budget { left: crate::Money },
}

/// The fewest and most seconds a booking may ask to be idle before it ends.
pub const STOP_WHEN_IDLE_SECS: std::ops::RangeInclusive<i64> = 60..=604_800;

/// A booking's `stop_when_idle_secs`, checked: within [`STOP_WHEN_IDLE_SECS`], and only for a
/// booking reached through the gateway alone (`direct_access: false`) — idleness is the
/// gateway's to see, and a renter with the machine's own access could be busy around it.
pub fn stop_when_idle(
    secs: Option<i64>,
    direct_access: bool,
) -> Result<Option<i32>, ValidationError> {
    let Some(secs) = secs else {
        return Ok(None);
    };
    if !STOP_WHEN_IDLE_SECS.contains(&secs) {
        return Err(ValidationError::new(
            "stop_when_idle_secs",
            format!(
                "must be {} to {} seconds",
                STOP_WHEN_IDLE_SECS.start(),
                STOP_WHEN_IDLE_SECS.end()
            ),
        ));
    }
    if direct_access {
        return Err(ValidationError::new(
            "stop_when_idle_secs",
            "only a booking reached through the gateway alone (direct_access: false) can end when idle: the gateway cannot see use of the machine's own access",
        ));
    }
    Ok(i32::try_from(secs).ok())
}

/// Whether a booking asking to stop after `idle_secs` without a gateway request is idle at
/// `now`: its access began, and neither its start nor its last request (`last_request`,
/// finished) is within the last `idle_secs`, with no stream of it open.
pub fn is_idle(
    (starts_at, idle_secs): (DateTime<Utc>, i32),
    last_request: Option<DateTime<Utc>>,
    open_streams: usize,
    now: DateTime<Utc>,
) -> bool {
    let active_since = last_request.map_or(starts_at, |last| last.max(starts_at));
    open_streams == 0 && now - active_since >= chrono::Duration::seconds(i64::from(idle_secs))
}

/// Refuses what costs `cost` when the renter's budget this month, read under their lock, does
/// not admit it (`crate::budget::MonthBudget::admits`). Without a budget, no check.
pub fn within_budget(renter: &RenterOpen, cost: crate::Money) -> Result<(), Refusal> {
    match &renter.budget {
        Some(month) if !month.admits(cost) => Err(Refusal::Budget { left: month.left() }),
        _ => Ok(()),
    }
}

/// Refuses a booking priced at `priced` per GPU-hour when the machine's price, read under its
/// lock, is another now (a provider's edit raced the booking): a booking is never made at a
/// price the listing no longer asks. Where either is unknown, no check.
pub fn price_as_expected(machine: &Machine, priced: Option<crate::Money>) -> Result<(), Refusal> {
    match (priced, machine.price_per_gpu_hour) {
        (Some(priced), Some(now)) if now != priced => Err(Refusal::PriceChanged { now }),
        _ => Ok(()),
    }
}

/// GPU-hours of `[starts_at, ends_at)` still ahead of `now`.
fn gpu_hours_ahead(
    starts_at: DateTime<Utc>,
    ends_at: DateTime<Utc>,
    gpus: i32,
    now: DateTime<Utc>,
) -> f64 {
    let seconds = (ends_at - starts_at.max(now)).num_seconds().max(0);
    f64::from(gpus) * seconds as f64 / 3600.0
}

/// The renter quota: with this booking (of `unpaid` bookings awaiting their payment: a plan's
/// each count), a renter holds at most `max_open` bookings not yet ended, `max_gpu_hours`
/// GPU-hours ahead of `now` and `max_unpaid` bookings awaiting payment, across every machine.
/// Decided on their open bookings as read under the lock that serialises the renter's
/// bookings, so racing requests cannot pass it together.
pub fn within_quota(
    renter: &RenterOpen,
    (interval, gpus, unpaid): (&Interval, i32, u32),
    now: DateTime<Utc>,
    quota: RenterQuota,
) -> Result<(), Refusal> {
    if let Some(max_unpaid) = quota.max_unpaid {
        let waiting: Vec<_> = renter.unpaid.iter().filter(|at| **at > now).collect();
        if waiting.len() as u64 + u64::from(unpaid) > u64::from(max_unpaid) {
            return Err(Refusal::Quota {
                kind: QuotaKind::Unpaid,
                limit: max_unpaid,
                frees_at: waiting.into_iter().min().copied().unwrap_or(now),
            });
        }
    }
    let open = &renter.bookings;
    let wanted = gpu_hours_ahead(interval.starts_at, interval.ends_at, gpus, now);
    if wanted > f64::from(quota.max_gpu_hours) {
        return Err(Refusal::TooLarge {
            max_gpu_hours: quota.max_gpu_hours,
        });
    }
    let open: Vec<_> = open.iter().filter(|&&(_, e, _)| e > now).collect();
    let frees_at = open.iter().map(|&&(_, e, _)| e).min().unwrap_or(now);
    if open.len() >= quota.max_open as usize {
        return Err(Refusal::Quota {
            kind: QuotaKind::OpenBookings,
            limit: quota.max_open,
            frees_at,
        });
    }
    let held: f64 = open
        .iter()
        .map(|&&(s, e, g)| gpu_hours_ahead(s, e, g, now))
        .sum();
    // A millionth of an hour of slack for rounding.
    if held + wanted > f64::from(quota.max_gpu_hours) + 1e-6 {
        return Err(Refusal::Quota {
            kind: QuotaKind::GpuHours,
            limit: quota.max_gpu_hours,
            frees_at,
        });
    }
    Ok(())
}

/// The booking rules: a machine takes `gpus` GPUs over `interval` only while it is listed,
/// when the interval lies inside its availability window and outside its maintenance
/// windows, and when at no instant of the
/// interval its bookings and this one need more GPUs than it has. Decided on the machine as
/// read under the lock that serialises its bookings, so racing requests never overbook.
pub fn admit(machine: &Machine, interval: &Interval, gpus: i32) -> Result<(), Refusal> {
    if machine.status != crate::ListingStatus::Active {
        return Err(Refusal::Delisted);
    }
    let (from, until) = machine.window;
    if !crate::listing::within_window(from, until, interval.starts_at, interval.ends_at) {
        return Err(Refusal::OutsideWindow { from, until });
    }
    if let Some(&(from, until)) = machine
        .maintenance
        .iter()
        .find(|&&(from, until)| from < interval.ends_at && interval.starts_at < until)
    {
        return Err(Refusal::Maintenance { from, until });
    }
    let peak = peak_usage(&machine.holding, interval.starts_at, interval.ends_at);
    if peak + gpus > machine.capacity {
        return Err(Refusal::Capacity);
    }
    Ok(())
}

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

    /// Bookings `(from, until, gpus)` in hours, as holdings.
    fn held(spans: &[(DateTime<Utc>, DateTime<Utc>, i32)]) -> Vec<Holding> {
        spans
            .iter()
            .map(|&(from, until, gpus)| {
                Holding::booking(uuid::Uuid::now_v7().into(), (from, until), gpus)
            })
            .collect()
    }

    #[test]
    fn intervals_are_checked() {
        let now = t(0);
        assert!(Interval::new(t(1), t(2), now).is_ok());
        assert_eq!(Interval::new(t(2), t(2), now).unwrap_err().field, "ends_at");
        assert_eq!(Interval::new(t(3), t(2), now).unwrap_err().field, "ends_at");
        assert_eq!(
            Interval::new(t(-2), t(2), now).unwrap_err().field,
            "starts_at"
        );
        assert_eq!(
            Interval::new(t(1), t(1 + 24 * 400), now).unwrap_err().field,
            "ends_at"
        );
    }

    #[test]
    fn peak_usage_counts_overlap_at_any_instant() {
        let bookings = held(&[(t(0), t(4), 1), (t(2), t(6), 1), (t(4), t(8), 1)]);
        assert_eq!(
            peak_usage(&bookings, t(0), t(8)),
            2,
            "touching bookings do not overlap"
        );
        assert_eq!(peak_usage(&bookings, t(0), t(1)), 1);
        assert_eq!(peak_usage(&bookings, t(8), t(9)), 0);
        assert_eq!(
            peak_usage(&held(&[(t(0), t(4), 2), (t(1), t(2), 3)]), t(0), t(4)),
            5
        );
    }

    #[test]
    fn free_segments_follow_bookings_and_the_window() {
        let bookings = held(&[(t(1), t(3), 1), (t(2), t(4), 1)]);
        assert_eq!(
            free_segments(2, (None, None), &bookings, t(0), t(5)),
            vec![
                (t(0), t(1), 2),
                (t(1), t(2), 1),
                (t(2), t(3), 0),
                (t(3), t(4), 1),
                (t(4), t(5), 2)
            ]
        );
        assert_eq!(
            free_segments(2, (Some(t(1)), Some(t(2))), &[], t(0), t(3)),
            vec![(t(0), t(1), 0), (t(1), t(2), 2), (t(2), t(3), 0)],
            "nothing is free outside the window"
        );
    }

    #[test]
    fn the_booking_rules_decide_in_order() {
        use crate::ListingStatus;
        let interval = Interval::new(t(2), t(4), t(0)).unwrap();
        let machine = Machine {
            status: ListingStatus::Active,
            window: (Some(t(1)), Some(t(10))),
            capacity: 2,
            holding: held(&[(t(1), t(3), 1)]),
            renter_open: RenterOpen::default(),
            maintenance: vec![(t(4), t(5))],
            price_per_gpu_hour: Some(crate::Money::new(150, crate::Currency::Eur)),
        };
        let eur = |minor| Some(crate::Money::new(minor, crate::Currency::Eur));
        assert_eq!(price_as_expected(&machine, None), Ok(()));
        assert_eq!(price_as_expected(&machine, eur(150)), Ok(()));
        let changed = Err(Refusal::PriceChanged {
            now: crate::Money::new(150, crate::Currency::Eur),
        });
        assert_eq!(price_as_expected(&machine, eur(149)), changed);
        let dollars = Some(crate::Money::new(150, crate::Currency::Usd));
        assert_eq!(price_as_expected(&machine, dollars), changed);
        assert_eq!(
            admit(&machine, &interval, 1),
            Ok(()),
            "a window that touches is no overlap"
        );
        assert_eq!(admit(&machine, &interval, 2), Err(Refusal::Capacity));
        let serviced = Machine {
            maintenance: vec![(t(3), t(5))],
            ..machine.clone()
        };
        assert_eq!(
            admit(&serviced, &interval, 1),
            Err(Refusal::Maintenance {
                from: t(3),
                until: t(5)
            })
        );
        let delisted = Machine {
            status: ListingStatus::Delisted,
            ..machine.clone()
        };
        assert_eq!(admit(&delisted, &interval, 1), Err(Refusal::Delisted));
        let narrow = Machine {
            window: (Some(t(3)), None),
            ..machine
        };
        assert_eq!(
            admit(&narrow, &interval, 1),
            Err(Refusal::OutsideWindow {
                from: Some(t(3)),
                until: None
            })
        );
    }

    fn open(bookings: &[(DateTime<Utc>, DateTime<Utc>, i32)]) -> RenterOpen {
        RenterOpen {
            bookings: bookings.to_vec(),
            unpaid: Vec::new(),
            budget: None,
        }
    }

    #[test]
    fn a_gateway_only_booking_may_end_when_idle_and_an_open_stream_is_never_idle() {
        assert_eq!(stop_when_idle(None, true), Ok(None));
        assert_eq!(stop_when_idle(Some(600), false), Ok(Some(600)));
        for (secs, direct) in [(600, true), (59, false), (604_801, false)] {
            assert_eq!(
                stop_when_idle(Some(secs), direct).unwrap_err().field,
                "stop_when_idle_secs"
            );
        }
        let start = t(0);
        let at = |minutes: i64| start + chrono::Duration::minutes(minutes);
        // Idle from its start when nothing was asked; from its last request otherwise.
        assert!(!is_idle((start, 120), None, 0, at(1)));
        assert!(is_idle((start, 120), None, 0, at(2)));
        assert!(!is_idle((start, 120), Some(at(1)), 0, at(2)));
        assert!(is_idle((start, 120), Some(at(1)), 0, at(3)));
        // A request before the start (a booking's earlier life) does not move it back.
        assert!(!is_idle((start, 120), Some(at(-10)), 0, at(1)));
        assert!(!is_idle((start, 120), None, 1, at(60)), "a stream is open");
    }

    #[test]
    fn a_renter_holds_at_most_their_quota() {
        let now = t(0);
        let quota = RenterQuota {
            max_open: 2,
            max_gpu_hours: 10,
            max_unpaid: None,
        };
        let interval = Interval::new(t(1), t(3), now).unwrap();
        let one = (&interval, 1, 0);
        assert_eq!(within_quota(&open(&[]), one, now, quota), Ok(()));
        // Two open: the third is refused until the earliest ends; an ended one counts not.
        let two = open(&[(t(-1), t(2), 1), (t(4), t(5), 1), (t(-5), t(-1), 8)]);
        assert_eq!(
            within_quota(&two, one, now, quota),
            Err(Refusal::Quota {
                kind: QuotaKind::OpenBookings,
                limit: 2,
                frees_at: t(2)
            })
        );
        // GPU-hours ahead: 2 (the first's rest) + 8 held, 2 more asked: 12 > 10.
        let held = open(&[(t(-1), t(2), 1), (t(4), t(6), 4)]);
        let quota = RenterQuota {
            max_open: 5,
            ..quota
        };
        assert!(matches!(
            within_quota(&held, one, now, quota),
            Err(Refusal::Quota {
                kind: QuotaKind::GpuHours,
                ..
            })
        ));
        // Exactly at the limit is allowed.
        let short = Interval::new(t(1), t(1) + Duration::minutes(30), now).unwrap();
        assert_eq!(within_quota(&held, (&short, 0, 0), now, quota), Ok(()));
        // One booking larger than the whole quota can never fit.
        let huge = Interval::new(t(1), t(12), now).unwrap();
        assert_eq!(
            within_quota(&open(&[]), (&huge, 1, 0), now, quota),
            Err(Refusal::TooLarge { max_gpu_hours: 10 })
        );
    }

    #[test]
    fn bookings_awaiting_payment_are_bounded_each_counted_until_its_hold_expires() {
        let now = t(0);
        let quota = RenterQuota {
            max_open: 10,
            max_gpu_hours: 100,
            max_unpaid: Some(2),
        };
        let interval = Interval::new(t(1), t(2), now).unwrap();
        // One waiting (its hold runs to t(1)), one whose hold expired: a plan of two more
        // would make three wait; one more fits.
        let renter = RenterOpen {
            bookings: vec![(t(1), t(2), 1)],
            unpaid: vec![t(1), t(-1)],
            budget: None,
        };
        assert_eq!(
            within_quota(&renter, (&interval, 2, 2), now, quota),
            Err(Refusal::Quota {
                kind: QuotaKind::Unpaid,
                limit: 2,
                frees_at: t(1)
            })
        );
        assert_eq!(within_quota(&renter, (&interval, 2, 1), now, quota), Ok(()));
        // Without payments nothing waits, however many.
        let free = RenterQuota {
            max_unpaid: None,
            ..quota
        };
        assert_eq!(within_quota(&renter, (&interval, 2, 9), now, free), Ok(()));
    }

    #[test]
    fn what_holds_gpus_is_one_rule_over_status_and_hold() {
        use BookingStatus::*;
        let now = t(0);
        assert!(holds_gpus(Confirmed, None, now) && holds_gpus(Active, Some(t(-1)), now));
        assert!(holds_gpus(PendingPayment, Some(t(1)), now));
        assert!(
            !holds_gpus(PendingPayment, Some(now), now),
            "expired at its instant"
        );
        assert!(!holds_gpus(PendingPayment, None, now));
        for over in [Completed, Cancelled, Expired] {
            assert!(!holds_gpus(over, Some(t(1)), now));
        }
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
