//! What one renter may hold and spend, judged on what is read under the lock that serialises
//! their bookings: their quota of open bookings, GPU-hours and unpaid holds, and their
//! monthly budget.

use chrono::{DateTime, Utc};

use super::{Interval, Refusal};

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

/// Refuses what costs `cost` when the renter's budget this month, read under their lock, does
/// not admit it (`crate::budget::MonthBudget::admits`). Without a budget, no check.
pub fn within_budget(renter: &RenterOpen, cost: crate::Money) -> Result<(), Refusal> {
    match &renter.budget {
        Some(month) if !month.admits(cost) => Err(Refusal::Budget { left: month.left() }),
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

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn t(hours: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_900_000_000, 0).unwrap() + Duration::hours(hours)
    }

    fn open(bookings: &[(DateTime<Utc>, DateTime<Utc>, i32)]) -> RenterOpen {
        RenterOpen {
            bookings: bookings.to_vec(),
            unpaid: Vec::new(),
            budget: None,
        }
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
}
