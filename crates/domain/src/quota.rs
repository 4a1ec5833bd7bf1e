//! The rolling-day quota: at most `limit` of something in any 24 hours, counted from the
//! times they were done. One rule for every daily limit (an organisation's verification runs,
//! a person's community submissions), decided by the store under the lock of whoever spends it.

use chrono::{DateTime, Duration, Utc};

/// At most `limit` in any 24 hours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RollingDay {
    pub limit: usize,
}

impl RollingDay {
    /// How far back a quota counts.
    pub const WINDOW: Duration = Duration::days(1);

    pub fn new(limit: usize) -> Self {
        Self { limit }
    }

    /// The times that count at `now` are those after this one.
    pub fn counts_after(now: DateTime<Utc>) -> DateTime<Utc> {
        now - Self::WINDOW
    }

    /// Whether one more may be done at `now`, given when the others were done (any order; those
    /// a day old or older do not count). `Err` is when the next one may be: when enough of
    /// those counted are a day old to leave room for one more.
    pub fn admit(self, times: &[DateTime<Utc>], now: DateTime<Utc>) -> Result<(), DateTime<Utc>> {
        let after = Self::counts_after(now);
        let mut counted: Vec<DateTime<Utc>> =
            times.iter().copied().filter(|t| *t > after).collect();
        if counted.len() < self.limit {
            return Ok(());
        }
        counted.sort_unstable();
        // One more fits once `len - limit + 1` of them have left the window: the one at
        // `len - limit` is the last of those to leave. A limit of 0 never leaves room.
        match counted.len().checked_sub(self.limit) {
            Some(last_to_leave) if self.limit > 0 => Err(counted[last_to_leave] + Self::WINDOW),
            _ => Err(now + Self::WINDOW),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(minutes: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_900_000_000, 0).unwrap() + Duration::minutes(minutes)
    }

    #[test]
    fn a_full_day_frees_when_its_oldest_is_a_day_old() {
        let quota = RollingDay::new(2);
        let done = [t(0), t(60)];
        assert_eq!(quota.admit(&done[..1], t(61)), Ok(()));
        assert_eq!(quota.admit(&done, t(61)), Err(t(24 * 60)));
        assert_eq!(
            quota.admit(&done, t(24 * 60)),
            Ok(()),
            "a day old no longer counts"
        );
        assert_eq!(RollingDay::new(0).admit(&[], t(5)), Err(t(5 + 24 * 60)));
    }

    #[test]
    fn a_limit_lowered_below_what_was_done_waits_for_enough_to_leave() {
        // Five done, a limit of two: four must leave for one more to fit, the fourth oldest
        // last (not the oldest, as a rule that looked only at it once said).
        let done = [t(40), t(0), t(10), t(20), t(30)];
        assert_eq!(RollingDay::new(2).admit(&done, t(50)), Err(t(30 + 24 * 60)));
    }

    proptest! {
        /// Refused at `now`, admitted exactly when the answer says, and not a moment before.
        #[test]
        fn the_answer_is_the_first_moment_one_more_fits(
            offsets in proptest::collection::vec(0i64..3000, 0..12),
            limit in 1usize..6,
            now in 0i64..100,
        ) {
            let now = t(now);
            let done: Vec<_> = offsets.iter().map(|m| now - Duration::minutes(*m)).collect();
            let quota = RollingDay::new(limit);
            let counted = done.iter().filter(|d| **d > now - RollingDay::WINDOW).count();
            match quota.admit(&done, now) {
                Ok(()) => prop_assert!(counted < limit),
                Err(frees) => {
                    prop_assert!(counted >= limit);
                    prop_assert!(frees > now);
                    prop_assert_eq!(quota.admit(&done, frees), Ok(()));
                    let before = frees - Duration::seconds(1);
                    prop_assert!(before <= now || quota.admit(&done, before).is_err());
                }
            }
        }
    }
}
