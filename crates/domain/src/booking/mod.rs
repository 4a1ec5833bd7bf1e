//! Bookings: intervals, the capacity rule, and ending when idle; a renter's quota and budget
//! ([`renter`]); prices and refunds ([`charges`]). Pure arithmetic on values.

use chrono::{DateTime, Duration, Utc};

use crate::{BookingId, BookingStatus, GpuHold, ValidationError};

mod charges;
pub mod interruptible;
mod renter;

pub use charges::{Interruption, interruption, price, refund, seconds_not_covered};
pub use renter::{QuotaKind, RenterOpen, RenterQuota, within_budget, within_quota};

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

/// How a booking holds its GPUs against others: on demand for its whole interval, or
/// interruptible at a bid (minor units per GPU-hour) until an on-demand booking or a higher
/// bid needs them ([`interruptible`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tier {
    #[default]
    OnDemand,
    Interruptible {
        bid: i64,
    },
}

impl Tier {
    /// As stored: `on_demand`, or `interruptible` with its bid.
    pub fn of(tier: &str, bid: Option<i64>) -> Self {
        match (tier, bid) {
            ("interruptible", Some(bid)) => Self::Interruptible { bid },
            _ => Self::OnDemand,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::OnDemand => "on_demand",
            Self::Interruptible { .. } => "interruptible",
        }
    }
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

    /// Whether an on-demand booking may displace it: an interruptible booking's. Search and
    /// availability count such GPUs as free for on-demand.
    pub fn displaceable(&self) -> bool {
        matches!(self.tier, Tier::Interruptible { .. })
    }

    /// The same holding at `tier`.
    pub fn at(self, tier: Tier) -> Self {
        Self { tier, ..self }
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

/// Free GPUs for an on-demand booking over `[from, to)`, as [`free_segments`] counts them but
/// with GPUs held interruptibly counted free (an on-demand booking displaces them), each
/// segment with how many of its free GPUs are so held: `(start, end, free, interruptible)`.
pub fn on_demand_segments(
    capacity: i32,
    window: (Option<DateTime<Utc>>, Option<DateTime<Utc>>),
    holdings: &[Holding],
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Vec<(DateTime<Utc>, DateTime<Utc>, i32, i32)> {
    let firm: Vec<Holding> = holdings
        .iter()
        .filter(|h| !h.displaceable())
        .copied()
        .collect();
    let free = free_segments(capacity, window, &firm, from, to);
    let all = free_segments(capacity, window, holdings, from, to);
    // Both cover `[from, to)`; cut at every edge of either.
    let mut edges: Vec<DateTime<Utc>> = free.iter().chain(&all).map(|s| s.0).collect();
    edges.push(to);
    edges.sort();
    edges.dedup();
    let at = |segments: &[(DateTime<Utc>, DateTime<Utc>, i32)], t: DateTime<Utc>| {
        segments
            .iter()
            .find(|s| s.0 <= t && t < s.1)
            .map_or(0, |s| s.2)
    };
    let mut out: Vec<(DateTime<Utc>, DateTime<Utc>, i32, i32)> = Vec::new();
    for pair in edges.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (firm_free, all_free) = (at(&free, a), at(&all, a));
        let segment = (a, b, firm_free, (firm_free - all_free).max(0));
        match out.last_mut() {
            Some(last) if (last.2, last.3) == (segment.2, segment.3) => last.1 = b,
            _ => out.push(segment),
        }
    }
    out
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
    /// The lowest bid per GPU-hour it takes for an interruptible booking (`None`: it takes
    /// none).
    pub min_bid_per_gpu_hour: Option<crate::Money>,
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
    /// It needs GPUs a started interruptible booking keeps through its notice: it could hold
    /// from `earliest`.
    #[error("the GPUs are free only once a running interruptible booking's notice has run out")]
    NoticeNeeded { earliest: DateTime<Utc> },
    /// The listing takes no interruptible bookings (any more).
    #[error("the listing takes no interruptible bookings")]
    NotInterruptible,
    /// The bid is below the listing's minimum as read under its lock.
    #[error("the bid is below the listing's minimum")]
    BidTooLow { min: crate::Money },
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

/// Refuses a booking priced at `priced` per GPU-hour when the machine's price, read under its
/// lock, is another now (a provider's edit raced the booking): a booking is never made at a
/// price the listing no longer asks. Where either is unknown, no check.
pub fn price_as_expected(machine: &Machine, priced: Option<crate::Money>) -> Result<(), Refusal> {
    match (priced, machine.price_per_gpu_hour) {
        (Some(priced), Some(now)) if now != priced => Err(Refusal::PriceChanged { now }),
        _ => Ok(()),
    }
}

/// The booking rules: a machine takes `gpus` GPUs over `interval` only while it is listed,
/// when the interval lies inside its availability window and outside its maintenance
/// windows, and when at no instant of the
/// interval its bookings and this one need more GPUs than it has. Decided on the machine as
/// read under the lock that serialises its bookings, so racing requests never overbook.
pub fn admit(machine: &Machine, interval: &Interval, gpus: i32) -> Result<(), Refusal> {
    admissible(machine, interval)?;
    let peak = peak_usage(&machine.holding, interval.starts_at, interval.ends_at);
    if peak + gpus > machine.capacity {
        return Err(Refusal::Capacity);
    }
    Ok(())
}

/// The booking rules but capacity: listed, inside the availability window, outside
/// maintenance.
fn admissible(machine: &Machine, interval: &Interval) -> Result<(), Refusal> {
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
    Ok(())
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
    fn gpus_held_at_a_bid_are_free_for_on_demand_and_counted() {
        let bid = |from, until, gpus| Holding {
            tier: Tier::Interruptible { bid: 60 },
            ..held(&[(from, until, gpus)])[0]
        };
        // Three GPUs: one on demand over [1, 3), two at a bid over [2, 4).
        let holdings = [held(&[(t(1), t(3), 1)])[0], bid(t(2), t(4), 2)];
        assert_eq!(
            on_demand_segments(3, (None, None), &holdings, t(0), t(5)),
            vec![
                (t(0), t(1), 3, 0),
                (t(1), t(2), 2, 0),
                (t(2), t(3), 2, 2),
                (t(3), t(4), 3, 2),
                (t(4), t(5), 3, 0)
            ]
        );
        assert_eq!(
            on_demand_segments(3, (Some(t(3)), None), &holdings, t(2), t(4)),
            vec![(t(2), t(3), 0, 0), (t(3), t(4), 3, 2)],
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
            min_bid_per_gpu_hour: None,
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
}
