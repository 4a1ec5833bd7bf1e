//! A person's monthly budget (issue 59): a cap on what their bookings may cost in a calendar
//! month (UTC), decided under the person's lock with their bookings' quota — so racing
//! bookings, on any replica, cannot pass it together. A booking, or a plan, whose cost would
//! take this month's spending past the cap is refused, and what is left is said. Alerts go once
//! a month each: `warning` when spending reaches 80 % of the cap, `exhausted` when it reaches
//! all of it or a booking is refused for it.

use chrono::{DateTime, Datelike, TimeZone, Utc};

use crate::{Currency, Money, ValidationError};

/// The largest cap, in minor units (ten billion in a two-decimal currency).
pub const MAX_AMOUNT: i64 = 1_000_000_000_000;

/// A cap as a person sets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub amount_per_month: Money,
}

impl Budget {
    /// `amount` minor units of `currency` a month: 0 (nothing may be spent) to [`MAX_AMOUNT`].
    pub fn new(amount: i64, currency: &str) -> Result<Self, ValidationError> {
        let currency = Currency::parse("currency", currency)?;
        if !(0..=MAX_AMOUNT).contains(&amount) {
            return Err(ValidationError::new(
                "amount_per_month",
                format!("must be 0 to {MAX_AMOUNT} minor units of the currency"),
            ));
        }
        Ok(Self {
            amount_per_month: Money::new(amount, currency),
        })
    }
}

/// The first instant of `now`'s calendar month (UTC).
pub fn month_start(now: DateTime<Utc>) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(now.year(), now.month(), 1, 0, 0, 0)
        .single()
        .unwrap_or(now)
}

/// The first instant of the month after `now`'s.
pub fn next_month_start(now: DateTime<Utc>) -> DateTime<Utc> {
    let (year, month) = if now.month() == 12 {
        (now.year() + 1, 1)
    } else {
        (now.year(), now.month() + 1)
    };
    Utc.with_ymd_and_hms(year, month, 1, 0, 0, 0)
        .single()
        .unwrap_or(now)
}

/// `now`'s month as `YYYY-MM`.
pub fn month_of(now: DateTime<Utc>) -> String {
    format!("{:04}-{:02}", now.year(), now.month())
}

/// An alert a budget sends once a month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BudgetAlert {
    /// Spending reached 80 % of the cap.
    Warning,
    /// Spending reached the cap, or a booking was refused for it.
    Exhausted,
}

impl BudgetAlert {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Warning => "warning",
            Self::Exhausted => "exhausted",
        }
    }
}

/// This month's budget as read under the person's lock: the cap, and what this month's bookings
/// already cost (minor units of the cap's currency; charges and held bookings less refunds,
/// never below zero).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MonthBudget {
    pub limit: Money,
    pub spent: i64,
}

impl MonthBudget {
    /// What may still be spent this month.
    pub fn left(&self) -> Money {
        self.limit
            .with_minor((self.limit.minor() - self.spent.max(0)).max(0))
    }

    /// Whether a booking costing `cost` fits: in the cap's currency (another currency cannot be
    /// judged against it, so it is refused) and within what is left.
    pub fn admits(&self, cost: Money) -> bool {
        cost.currency() == self.limit.currency() && cost.minor() <= self.left().minor()
    }

    /// The alerts spending `cost` more makes due: those whose threshold it reaches from below.
    pub fn crossed(&self, cost: Money) -> Vec<BudgetAlert> {
        let (limit, before) = (
            i128::from(self.limit.minor()),
            i128::from(self.spent.max(0)),
        );
        let after = before + i128::from(cost.minor().max(0));
        let mut due = Vec::new();
        // 80 %: 5 × spent ≥ 4 × cap.
        if 5 * before < 4 * limit && 5 * after >= 4 * limit {
            due.push(BudgetAlert::Warning);
        }
        if before < limit && after >= limit {
            due.push(BudgetAlert::Exhausted);
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usd(minor: i64) -> Money {
        Money::new(minor, Currency::Usd)
    }

    #[test]
    fn a_budget_is_a_bounded_amount_in_a_currency_we_take() {
        assert_eq!(
            Budget::new(50_000, "usd").unwrap().amount_per_month,
            usd(50_000)
        );
        assert_eq!(
            Budget::new(-1, "USD").unwrap_err().field,
            "amount_per_month"
        );
        assert_eq!(
            Budget::new(MAX_AMOUNT + 1, "USD").unwrap_err().field,
            "amount_per_month"
        );
        assert_eq!(Budget::new(100, "XXX").unwrap_err().field, "currency");
    }

    #[test]
    fn months_are_calendar_months_in_utc() {
        let at = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
        assert_eq!(
            month_start(at("2026-12-31T23:59:59Z")),
            at("2026-12-01T00:00:00Z")
        );
        assert_eq!(
            next_month_start(at("2026-12-31T23:59:59Z")),
            at("2027-01-01T00:00:00Z")
        );
        assert_eq!(
            next_month_start(at("2026-02-10T00:00:00Z")),
            at("2026-03-01T00:00:00Z")
        );
        assert_eq!(month_of(at("2027-01-01T00:00:00Z")), "2027-01");
    }

    #[test]
    fn a_booking_fits_what_is_left_in_the_budget_s_currency() {
        let month = MonthBudget {
            limit: usd(10_000),
            spent: 7_000,
        };
        assert_eq!(month.left(), usd(3_000));
        assert!(month.admits(usd(3_000)));
        assert!(!month.admits(usd(3_001)));
        assert!(
            !month.admits(Money::new(1, Currency::Eur)),
            "another currency"
        );
        // Refunds beyond the month's charges never make more room than the cap.
        let refunded = MonthBudget {
            limit: usd(10_000),
            spent: -5_000,
        };
        assert_eq!(refunded.left(), usd(10_000));
        // A lowered cap below what was spent leaves nothing, not less than nothing.
        let lowered = MonthBudget {
            limit: usd(1_000),
            spent: 7_000,
        };
        assert_eq!(lowered.left(), usd(0));
        assert!(lowered.admits(usd(0)));
    }

    #[test]
    fn alerts_are_due_when_spending_reaches_their_threshold_from_below() {
        let at = |spent| MonthBudget {
            limit: usd(10_000),
            spent,
        };
        assert_eq!(at(7_000).crossed(usd(999)), []);
        assert_eq!(at(7_000).crossed(usd(1_000)), [BudgetAlert::Warning]);
        assert_eq!(
            at(7_000).crossed(usd(3_000)),
            [BudgetAlert::Warning, BudgetAlert::Exhausted]
        );
        assert_eq!(at(8_000).crossed(usd(1_000)), [], "already warned of");
        assert_eq!(at(9_000).crossed(usd(1_000)), [BudgetAlert::Exhausted]);
        assert_eq!(at(10_000).crossed(usd(0)), []);
    }
}
