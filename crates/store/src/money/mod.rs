//! Money: payments through the payment provider, billing plans, and guarantees' credits.

pub(crate) mod billing;
pub(crate) mod budgets;
pub(crate) mod guarantees;
pub(crate) mod ledger;
pub(crate) mod payments;
pub(crate) mod refunds;
