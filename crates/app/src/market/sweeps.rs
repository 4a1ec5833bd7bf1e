//! The booking sweeper: moves bookings along with the clock, above the use cases it drives
//! (expiring holds, cancelling in full, giving back what maintenance windows took).

use chrono::{DateTime, Utc};
use domain::booking;

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
    /// Bookings ended because no gateway request came for their `stop_when_idle_secs`.
    pub idle_stopped: usize,
    /// Interrupting bookings whose notice ran out.
    pub interrupted: u64,
    /// Displaced bookings' refunds made (the first try had failed).
    pub displacements_given_back: usize,
    /// Closed buckets of the market's history rolled up.
    pub history_buckets: usize,
    /// Bid raises not paid before their hold expired.
    pub raises_expired: usize,
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
        let displacements_given_back = self.give_back_displacements().await?;
        let idle_stopped = self.stop_idle_bookings(Utc::now()).await?;
        let sweep = self.db().sweep_bookings(Utc::now()).await?;
        self.release_expired(&sweep.expired).await;
        let plans_released = self.release_broken_plans().await?;
        let raises_expired = match self.payments() {
            Some(_) => self.expire_raises(Utc::now()).await?,
            None => 0,
        };
        let history_buckets = self.roll_up_market(Utc::now()).await?;
        Ok(SweepSummary {
            maintenance_cancelled,
            interruptions_given_back,
            expired: sweep.expired.len(),
            activated: sweep.activated,
            completed: sweep.completed,
            plans_released,
            idle_stopped,
            interrupted: sweep.interrupted,
            displacements_given_back,
            history_buckets,
            raises_expired,
        })
    }

    /// Ends each booking that asked to when idle and is (`domain::booking::is_idle`: no
    /// gateway request finished within its `stop_when_idle_secs`, none of its streams open),
    /// cancelled as its renter would, with the same refund. In doubt — the streams cannot be
    /// counted, or a cancellation fails — it is left for the next sweep. The sweep asks at the
    /// clock's `now` (a test, later).
    pub async fn stop_idle_bookings(&self, now: DateTime<Utc>) -> Result<usize, AppError> {
        let mut stopped = 0;
        for (booking, last) in self.db().idle_candidates(now).await? {
            let Some(secs) = booking.stop_when_idle_secs else {
                continue;
            };
            if !booking::is_idle((booking.starts_at, secs), last, 0, now) {
                continue;
            }
            let listing = self.listing_record(booking.listing_id).await?;
            let open = match self.open_streams(&booking, &listing).await {
                Ok(open) => open,
                Err(e) => {
                    tracing::warn!(booking = %booking.id, error = %e, "its open streams could not be counted; not stopped this sweep");
                    continue;
                }
            };
            if !booking::is_idle((booking.starts_at, secs), last, open, now) {
                continue;
            }
            match self.cancel_as_renter(&booking, now).await {
                Ok(true) => {
                    tracing::info!(booking = %booking.id, idle_secs = secs, "an idle booking ended");
                    stopped += 1;
                }
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(booking = %booking.id, error = %e, "ending an idle booking failed; trying again next sweep");
                }
            }
        }
        Ok(stopped)
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
