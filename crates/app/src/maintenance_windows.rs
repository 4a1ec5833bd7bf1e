//! Maintenance windows: a provider takes a machine out of service over an interval. Members
//! of the listing's organisation announce, list and delete them. A window takes the whole
//! machine in every capacity decision (`store::capacity`). One over bookings is refused
//! unless asked to cancel them: then each is cancelled with a full refund — the first
//! cancellation a provider can cause — and the window stands for good (it can no longer be
//! deleted, so its interval cannot be let again at another price); nor can one that has
//! begun (its time in the machine's uptime stands). A cancellation the payment provider
//! fails is carried out by the next sweep.

use chrono::{DateTime, Utc};
use domain::ListingId;
use store::{WindowDeleted, WindowError, WindowRecord};
use uuid::Uuid;

use crate::liveness::MaintenanceWindow;
use crate::{App, AppError, Caller};

/// A window as a provider asks for it.
#[derive(Debug, Clone)]
pub struct NewWindow {
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub reason: String,
    /// Cancel the bookings it overlaps, with a full refund (otherwise they refuse it).
    pub cancel_overlapping: bool,
}

/// A window announced, and what became of the bookings it overlapped.
#[derive(Debug, Clone)]
pub struct Announced {
    pub window: MaintenanceWindow,
    /// Cancelled with a full refund.
    pub cancelled: Vec<Uuid>,
    /// Still to be cancelled: the payment provider failed; the next sweep tries again.
    pub pending: Vec<Uuid>,
}

impl App {
    /// Announces a maintenance window of a listing (members of its organisation).
    pub async fn add_maintenance_window(
        &self,
        caller: Caller,
        id: ListingId,
        new: NewWindow,
    ) -> Result<Announced, AppError> {
        let listing = self.own_listing(caller, id.as_uuid()).await?;
        let now = Utc::now();
        let reason = domain::uptime::window_request(new.from, new.until, &new.reason, now)?;
        let record = WindowRecord {
            id: Uuid::now_v7(),
            listing_id: listing.id,
            starts_at: new.from,
            ends_at: new.until,
            reason,
            created_by: caller.user_id.as_uuid(),
            created_at: now,
            cancel_overlapping: new.cancel_overlapping,
            cancelled_bookings: 0,
        };
        let (window, overlapping) = match self.db().add_maintenance_window(record, now).await {
            Ok(added) => added,
            Err(WindowError::NoListing) => return Err(AppError::NotFound("listing")),
            Err(WindowError::Overlaps(ids)) => {
                return Err(AppError::MaintenanceOverlaps(format!(
                    "{} booking(s) hold the machine over the window ({}); send \
                     \"cancel_overlapping\": true to cancel them with a full refund",
                    ids.len(),
                    ids.iter()
                        .map(Uuid::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            Err(WindowError::Store(e)) => return Err(e.into()),
        };
        let (mut cancelled, mut pending) = (Vec::new(), Vec::new());
        for booking in overlapping {
            match self.cancel_in_full(&booking).await {
                Ok(true) => cancelled.push(booking.id),
                // It ended or was cancelled meanwhile: nothing is held any more.
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(booking = %booking.id, error = %e, "cancelling a booking for maintenance failed; the sweep tries again");
                    pending.push(booking.id);
                }
            }
        }
        Ok(Announced {
            window: self.window_view(window),
            cancelled,
            pending,
        })
    }

    /// A listing's windows that have not ended (members of its organisation).
    pub async fn maintenance_windows(
        &self,
        caller: Caller,
        id: ListingId,
    ) -> Result<Vec<MaintenanceWindow>, AppError> {
        let listing = self.own_listing(caller, id.as_uuid()).await?;
        Ok(self
            .db()
            .maintenance_windows(listing.id, Utc::now())
            .await?
            .into_iter()
            .map(|w| self.window_view(w))
            .collect())
    }

    /// Deletes a window that cancelled no booking and has not begun (members of its
    /// organisation).
    pub async fn delete_maintenance_window(
        &self,
        caller: Caller,
        id: ListingId,
        window: Uuid,
    ) -> Result<(), AppError> {
        let listing = self.own_listing(caller, id.as_uuid()).await?;
        match self
            .db()
            .delete_maintenance_window(listing.id, window, Utc::now())
            .await?
        {
            WindowDeleted::Deleted => Ok(()),
            WindowDeleted::NotFound => Err(AppError::NotFound("maintenance window")),
            WindowDeleted::CancelledBookings => Err(AppError::MaintenanceKept(
                "the window cancelled bookings, so it stands: its interval cannot be let again"
                    .to_owned(),
            )),
            WindowDeleted::Begun => Err(AppError::MaintenanceKept(
                "the window has begun, so it stands: what it says of the machine's uptime cannot be taken back"
                    .to_owned(),
            )),
        }
    }

    /// Cancels, with a full refund, bookings still holding a machine over a window that
    /// cancels what it overlaps (their first cancellation failed). Returns how many.
    pub(crate) async fn cancel_for_maintenance(&self) -> Result<usize, AppError> {
        let mut cancelled = 0;
        for booking in self.db().bookings_in_maintenance().await? {
            match self.cancel_in_full(&booking).await {
                Ok(true) => cancelled += 1,
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(booking = %booking.id, error = %e, "cancelling a booking for maintenance failed; trying again next sweep");
                }
            }
        }
        Ok(cancelled)
    }
}
