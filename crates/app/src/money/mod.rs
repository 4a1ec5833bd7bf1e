//! Money: payments through the payment provider, billing plans, people's budgets, and
//! guarantees' credits.

pub mod billing;
pub mod budgets;
pub mod guarantees;
pub mod payments;

use std::sync::Arc;

/// Money's state: the payment provider, and plans' scales of the rate budgets.
#[derive(Debug)]
pub(crate) struct MoneyState {
    payments: Option<Arc<dyn ::payments::PaymentProvider>>,
    /// Recent answers of [`crate::App::rate_scale_of`], by credential digest.
    plan_scales: billing::ScaleCache,
}

impl MoneyState {
    pub(crate) fn new(payments: Option<Arc<dyn ::payments::PaymentProvider>>) -> Self {
        Self {
            payments,
            plan_scales: billing::scale_cache(),
        }
    }
}
