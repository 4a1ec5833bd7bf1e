//! The booking sweeper: moves bookings along with the clock, above the use cases it drives
//! (expiring holds, cancelling in full, giving back what maintenance windows took).

use chrono::Utc;

use crate::{App, AppError};

/// What one sweep of bookings did: holds expired, bookings started, bookings ended, bookings
/// of unpaid plans released.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepSummary {
    pub expired: usize,
    pub activated: u64,
    pub completed: u64,
    /// Bookings released because another booking of their plan expired unpaid.
    pub plans_released: usize,
    /// Bookings cancelled for a maintenance window announced before windows interrupted
    /// bookings (their first try had failed).
    pub maintenance_cancelled: usize,
    /// Shares of bookings' prices given back for what maintenance windows took (the booking
    /// was paid since, or the first try had failed).
    pub interruptions_given_back: usize,
}

impl SweepSummary {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl App {
    /// Moves bookings along with the clock (see [`store::Db::sweep_bookings`]).
    /// Expired holds' PaymentIntents are cancelled so they can no longer be paid.
    pub async fn sweep_bookings(&self) -> Result<SweepSummary, AppError> {
        // Before bookings move on (an ended one can no longer be cancelled): what a
        // maintenance window owes its renters is refunded first. One whose refund keeps
        // failing is not completed at its end, so it is tried again until it is made.
        let maintenance_cancelled = self.cancel_for_maintenance().await?;
        let interruptions_given_back = self.give_back_interruptions().await?;
        let sweep = self.db().sweep_bookings(Utc::now()).await?;
        self.release_expired(&sweep.expired).await;
        let plans_released = self.release_broken_plans().await?;
        Ok(SweepSummary {
            maintenance_cancelled,
            interruptions_given_back,
            expired: sweep.expired.len(),
            activated: sweep.activated,
            completed: sweep.completed,
            plans_released,
        })
    }

    /// Releases what is left of plans one of whose bookings expired unpaid (its hold ran out,
    /// or its payment failed): a plan is all or none. A booking still waiting for its payment
    /// has its PaymentIntent cancelled; a paid one is refunded in full (transfer reversed,
    /// fee refunded), as a cancellation would. One that fails is tried again next sweep.
    async fn release_broken_plans(&self) -> Result<usize, AppError> {
        let mut released = 0;
        for booking in self.db().plan_bookings_to_release(Utc::now()).await? {
            match self.cancel_in_full(&booking).await {
                Ok(true) => released += 1,
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(booking = %booking.id, error = %e, "releasing a booking of an unpaid plan failed; trying again next sweep");
                }
            }
        }
        Ok(released)
    }
}
