//! The interruptible tier: a booking that holds GPUs at a bid until an on-demand booking or a
//! higher bid needs them. Decided inside the same locked capacity rule as every booking
//! ([`admit_displacing`]): the lowest bids are displaced first (ties: the latest made), only
//! where they stand in the way, and never over capacity. A displaced booking that has started
//! keeps its GPUs for the notice; one that has not is displaced at once.

use chrono::{DateTime, Duration, Utc};

use super::{HeldBy, Holding, Interval, Machine, Refusal, Tier, free_segments};
use crate::{BookingId, ValidationError};

/// What a request claims against interruptible bookings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// On demand: it may displace any interruptible booking.
    OnDemand,
    /// Interruptible at this bid per GPU-hour (minor units): it displaces only lower bids.
    Bid(i64),
}

impl Claim {
    /// Whether a booking holding at `tier` gives way to this claim.
    fn displaces(self, tier: Tier) -> Option<i64> {
        match (self, tier) {
            (_, Tier::OnDemand) => None,
            (Self::OnDemand, Tier::Interruptible { bid }) => Some(bid),
            (Self::Bid(mine), Tier::Interruptible { bid }) => (bid < mine).then_some(bid),
        }
    }
}

/// A booking a request displaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Displaced {
    pub booking: BookingId,
    /// Its access ends here: `now + notice` for one that had started (but never after its own
    /// end), `None` for one that had not (it ends at once).
    pub access_until: Option<DateTime<Utc>>,
}

/// A booking's tier as asked: `on_demand` (the default) or `interruptible` with a bid of at
/// least the listing's minimum (`min_bid`, `None`: the listing takes no interruptible
/// bookings).
pub fn claim(
    tier: Option<&str>,
    bid: Option<i64>,
    min_bid: Option<i64>,
) -> Result<Claim, ValidationError> {
    match (tier.unwrap_or("on_demand"), bid) {
        ("on_demand", None) => Ok(Claim::OnDemand),
        ("on_demand", Some(_)) => Err(ValidationError::new(
            "bid_per_gpu_hour",
            "only an interruptible booking bids (send \"tier\": \"interruptible\")",
        )),
        ("interruptible", None) => Err(ValidationError::new(
            "bid_per_gpu_hour",
            "an interruptible booking needs a bid per GPU-hour, in minor units",
        )),
        ("interruptible", Some(bid)) => {
            let Some(min) = min_bid else {
                return Err(ValidationError::new(
                    "tier",
                    "the listing takes no interruptible bookings",
                ));
            };
            at_least_min(bid, min)?;
            Ok(Claim::Bid(bid))
        }
        (other, _) => Err(ValidationError::new(
            "tier",
            format!("must be on_demand or interruptible, not {other:?}"),
        )),
    }
}

/// The most a bid per GPU-hour may be, in minor units (a million of a currency's units).
pub const MAX_BID: i64 = 100_000_000;

/// Refuses a bid below the listing's minimum or above [`MAX_BID`].
pub fn at_least_min(bid: i64, min: i64) -> Result<(), ValidationError> {
    if bid < min || bid > MAX_BID {
        return Err(ValidationError::new(
            "bid_per_gpu_hour",
            format!(
                "must be at least the listing's min_bid_per_gpu_hour ({min}) and at most {MAX_BID}"
            ),
        ));
    }
    Ok(())
}

/// The booking rules with displacement: [`super::admit`]'s, but where the machine's GPUs are
/// short, interruptible bookings that give way to `claim` are displaced — lowest bid first
/// (ties: the latest made), each only where it stands in the way. One that has started keeps
/// its GPUs until `now + notice`, so a request that needs them earlier is refused with
/// [`Refusal::NoticeNeeded`] naming the earliest start that could hold. Answers the bookings
/// displaced; nothing is displaced when the request is refused.
pub fn admit_displacing(
    machine: &Machine,
    interval: &Interval,
    gpus: i32,
    claim: Claim,
    now: DateTime<Utc>,
    notice: Duration,
) -> Result<Vec<Displaced>, Refusal> {
    super::admissible(machine, interval)?;
    if let Claim::Bid(bid) = claim {
        match machine.min_bid_per_gpu_hour {
            None => return Err(Refusal::NotInterruptible),
            Some(min) if bid < min.minor() => return Err(Refusal::BidTooLow { min }),
            Some(_) => {}
        }
    }
    let span = (interval.starts_at(), interval.ends_at());
    match displace(machine, span, gpus, claim, now, notice) {
        Ok(displaced) => Ok(displaced),
        Err(true) => {
            // Blocked by notice alone: from when the notice runs out, would it hold?
            let earliest = now + notice;
            let later = (earliest.max(span.0), span.1);
            match later.0 < later.1 && displace(machine, later, gpus, claim, now, notice).is_ok() {
                true => Err(Refusal::NoticeNeeded { earliest }),
                false => Err(Refusal::Capacity),
            }
        }
        Err(false) => Err(Refusal::Capacity),
    }
}

/// The lowest bid per GPU-hour at which `gpus` GPUs over `interval` would hold now against
/// the machine's bookings (but `except`, the booking asking): the listing's minimum when they
/// are free, else one above the highest bid that would have to give way. `None` when the
/// listing takes no interruptible bookings or no bid would hold.
pub fn bid_that_holds(
    machine: &Machine,
    interval: &Interval,
    gpus: i32,
    now: DateTime<Utc>,
    notice: Duration,
    except: Option<BookingId>,
) -> Option<i64> {
    let min = machine.min_bid_per_gpu_hour?.minor();
    let others = Machine {
        holding: machine
            .holding
            .iter()
            .filter(|h| except.is_none_or(|id| h.by != HeldBy::Booking(id)))
            .copied()
            .collect(),
        ..machine.clone()
    };
    let mut bids: Vec<i64> = others
        .holding
        .iter()
        .filter_map(|h| match h.tier {
            Tier::Interruptible { bid } if bid >= min => Some(bid + 1),
            _ => None,
        })
        .collect();
    bids.push(min);
    bids.sort_unstable();
    bids.dedup();
    bids.into_iter().find(|&bid| {
        admit_displacing(&others, interval, gpus, Claim::Bid(bid), now, notice).is_ok()
    })
}

/// Displaces what stands in the way of `gpus` GPUs over `span`; `Err(true)` when only a
/// started booking's notice stands in the way somewhere, `Err(false)` when nothing would do.
fn displace(
    machine: &Machine,
    span: (DateTime<Utc>, DateTime<Utc>),
    gpus: i32,
    claim: Claim,
    now: DateTime<Utc>,
    notice: Duration,
) -> Result<Vec<Displaced>, bool> {
    let notice_ends = now + notice;
    let mut kept: Vec<Holding> = machine.holding.clone();
    // Lowest bid first; of equal bids, the latest made (ids are time-ordered).
    let mut candidates: Vec<(i64, BookingId)> = kept
        .iter()
        .filter_map(|h| match (h.by, claim.displaces(h.tier)) {
            (HeldBy::Booking(id), Some(bid)) => Some((bid, id)),
            _ => None,
        })
        .collect();
    candidates.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.as_uuid().cmp(&a.1.as_uuid())));
    let mut displaced = Vec::new();
    let mut blocked_by_notice = false;
    loop {
        let short = free_segments(machine.capacity, (None, None), &kept, span.0, span.1)
            .into_iter()
            .find(|&(_, _, free)| free < gpus);
        let Some((from, until, _)) = short else {
            return Ok(displaced);
        };
        let overlaps = |h: &Holding| h.starts_at < until && from < h.ends_at;
        let mut chosen = None;
        for (at, &(_, id)) in candidates.iter().enumerate() {
            let Some(h) = kept.iter().position(|h| h.by == HeldBy::Booking(id)) else {
                continue;
            };
            if !overlaps(&kept[h]) {
                continue;
            }
            let started = kept[h].starts_at <= now;
            // A started booking keeps its GPUs through the notice: displacing it frees
            // nothing before the notice runs out.
            if started && from < notice_ends.min(kept[h].ends_at) {
                blocked_by_notice = true;
                continue;
            }
            chosen = Some((at, h, started));
            break;
        }
        let Some((at, h, started)) = chosen else {
            return Err(blocked_by_notice);
        };
        let (_, id) = candidates.remove(at);
        if started {
            let until = notice_ends.min(kept[h].ends_at);
            kept[h].ends_at = until;
            displaced.push(Displaced {
                booking: id,
                access_until: Some(until),
            });
        } else {
            kept.remove(h);
            displaced.push(Displaced {
                booking: id,
                access_until: None,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Currency, ListingStatus, Money};

    fn t(minutes: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_900_000_000, 0).unwrap() + Duration::minutes(minutes)
    }

    fn id(n: u128) -> BookingId {
        uuid::Uuid::from_u128(n).into()
    }

    fn bid(n: u128, (from, until): (i64, i64), gpus: i32, bid: i64) -> Holding {
        Holding {
            tier: Tier::Interruptible { bid },
            ..Holding::booking(id(n), (t(from), t(until)), gpus)
        }
    }

    fn machine(capacity: i32, holding: Vec<Holding>) -> Machine {
        Machine {
            status: ListingStatus::Active,
            window: (None, None),
            capacity,
            holding,
            renter_open: Default::default(),
            maintenance: Vec::new(),
            price_per_gpu_hour: Some(Money::new(200, Currency::Usd)),
            min_bid_per_gpu_hour: Some(Money::new(50, Currency::Usd)),
        }
    }

    const NOTICE: Duration = Duration::minutes(2);

    fn interval(from: i64, until: i64) -> Interval {
        Interval::new(t(from), t(until), t(0)).unwrap()
    }

    #[test]
    fn the_lowest_bid_gives_way_first_and_of_equal_bids_the_latest_made() {
        // Four GPUs: bids of 60 (made first), 60 (made later) and 90, one GPU each, and one
        // on demand; none started.
        let m = machine(
            4,
            vec![
                bid(1, (10, 70), 1, 60),
                bid(2, (10, 70), 1, 60),
                bid(3, (10, 70), 1, 90),
                Holding::booking(id(4), (t(10), t(70)), 1),
            ],
        );
        let at = interval(20, 30);
        let displaced = |gpus, claim| admit_displacing(&m, &at, gpus, claim, t(0), NOTICE);
        let none = |n| Displaced {
            booking: id(n),
            access_until: None,
        };
        assert_eq!(displaced(1, Claim::OnDemand), Ok(vec![none(2)]));
        assert_eq!(displaced(2, Claim::OnDemand), Ok(vec![none(2), none(1)]));
        assert_eq!(
            displaced(3, Claim::OnDemand),
            Ok(vec![none(2), none(1), none(3)])
        );
        assert_eq!(
            displaced(4, Claim::OnDemand),
            Err(Refusal::Capacity),
            "an on-demand booking never gives way"
        );
        assert_eq!(displaced(1, Claim::Bid(61)), Ok(vec![none(2)]));
        assert_eq!(
            displaced(3, Claim::Bid(90)),
            Err(Refusal::Capacity),
            "an equal bid displaces nothing"
        );
        assert_eq!(
            displaced(1, Claim::Bid(40)),
            Err(Refusal::BidTooLow {
                min: Money::new(50, Currency::Usd)
            })
        );
    }

    #[test]
    fn only_what_stands_in_the_way_gives_way() {
        // A low bid outside the interval's crowded part stays; the one in it goes.
        let m = machine(2, vec![bid(1, (0, 15), 1, 10), bid(2, (20, 40), 1, 80)]);
        let m = Machine {
            holding: [m.holding, vec![Holding::booking(id(3), (t(10), t(40)), 1)]].concat(),
            ..m
        };
        assert_eq!(
            admit_displacing(&m, &interval(20, 30), 1, Claim::OnDemand, t(0), NOTICE),
            Ok(vec![Displaced {
                booking: id(2),
                access_until: None
            }])
        );
        assert_eq!(
            admit_displacing(&m, &interval(50, 60), 2, Claim::OnDemand, t(0), NOTICE),
            Ok(vec![]),
            "free GPUs displace nothing"
        );
    }

    #[test]
    fn a_started_booking_keeps_its_gpus_through_the_notice() {
        // Running since t(-30) on the only GPU; now is t(0), the notice two minutes.
        let m = machine(1, vec![bid(1, (-30, 60), 1, 60)]);
        let now = t(0);
        assert_eq!(
            admit_displacing(&m, &interval(0, 30), 1, Claim::OnDemand, now, NOTICE),
            Err(Refusal::NoticeNeeded { earliest: t(2) })
        );
        assert_eq!(
            admit_displacing(&m, &interval(2, 30), 1, Claim::OnDemand, now, NOTICE),
            Ok(vec![Displaced {
                booking: id(1),
                access_until: Some(t(2))
            }])
        );
        // One that ends within the notice is never displaced: it gives way by ending.
        let ending = machine(1, vec![bid(1, (-30, 1), 1, 60)]);
        assert_eq!(
            admit_displacing(&ending, &interval(1, 30), 1, Claim::OnDemand, now, NOTICE),
            Ok(vec![])
        );
        // Capacity short even after the notice is a plain conflict.
        let full = Machine {
            holding: vec![
                bid(1, (-30, 60), 1, 60),
                Holding::booking(id(2), (t(10), t(20)), 1),
            ],
            ..machine(1, Vec::new())
        };
        assert_eq!(
            admit_displacing(&full, &interval(0, 30), 1, Claim::OnDemand, now, NOTICE),
            Err(Refusal::Capacity)
        );
    }

    #[test]
    fn the_bid_that_holds_is_one_above_what_must_give_way() {
        let m = machine(2, vec![bid(1, (10, 70), 1, 60), bid(2, (10, 70), 1, 90)]);
        let at = interval(20, 30);
        assert_eq!(bid_that_holds(&m, &at, 1, t(0), NOTICE, None), Some(61));
        assert_eq!(bid_that_holds(&m, &at, 2, t(0), NOTICE, None), Some(91));
        assert_eq!(
            bid_that_holds(&m, &interval(80, 90), 2, t(0), NOTICE, None),
            Some(50),
            "free: the listing's minimum"
        );
        assert_eq!(
            bid_that_holds(&m, &at, 1, t(0), NOTICE, Some(id(1))),
            Some(50),
            "a booking's own GPUs do not count against it"
        );
        let on_demand = machine(1, vec![Holding::booking(id(3), (t(0), t(90)), 1)]);
        assert_eq!(bid_that_holds(&on_demand, &at, 1, t(0), NOTICE, None), None);
        let closed = Machine {
            min_bid_per_gpu_hour: None,
            ..m
        };
        assert_eq!(bid_that_holds(&closed, &at, 1, t(0), NOTICE, None), None);
    }

    #[test]
    fn a_tier_is_asked_for_whole() {
        assert_eq!(claim(None, None, None), Ok(Claim::OnDemand));
        assert_eq!(
            claim(Some("interruptible"), Some(70), Some(50)),
            Ok(Claim::Bid(70))
        );
        for (tier, bid, min, field) in [
            (Some("on_demand"), Some(70), Some(50), "bid_per_gpu_hour"),
            (Some("interruptible"), None, Some(50), "bid_per_gpu_hour"),
            (
                Some("interruptible"),
                Some(40),
                Some(50),
                "bid_per_gpu_hour",
            ),
            (Some("interruptible"), Some(70), None, "tier"),
            (Some("spot"), None, Some(50), "tier"),
        ] {
            assert_eq!(claim(tier, bid, min).unwrap_err().field, field);
        }
    }
}
