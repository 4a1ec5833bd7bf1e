//! Maintenance windows: a provider takes a machine out of service over an interval. Members
//! of the listing's organisation announce, list and delete them. A window takes the whole
//! machine in every capacity decision (`store::capacity`). One over bookings is refused
//! unless asked to interrupt them (`cancel_overlapping`, named before interruptions existed):
//! then each keeps its interval, has no access over the window (the provider refuses and cuts
//! its streams at the window's start, its access token is inactive), and is given back the
//! share of its price the window takes — a window never cancels a booking whole, so nothing it
//! frees can be let again at another price. The window then stands for good (it can no longer
//! be deleted); so does one that has begun (its time in the machine's uptime stands). A
//! booking awaiting its payment is given back its share once paid; a refund the payment
//! provider fails is made by the next sweep.

use chrono::{DateTime, Utc};
use domain::{BookingStatus, ListingId, OrgId};
use store::{Interrupted, WindowDeleted, WindowError, WindowRecord};
use uuid::Uuid;

use crate::identity::audit::action;
use crate::windows::MaintenanceWindow;
use crate::{App, AppError, Caller};

/// Most owed interruptions one sweep gives back.
const REFUNDS_PER_SWEEP: u64 = 100;

/// A window as a provider asks for it.
#[derive(Debug, Clone)]
pub struct NewWindow {
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub reason: String,
    /// Interrupt the bookings it overlaps, each given back the share the window takes
    /// (otherwise they refuse it).
    pub cancel_overlapping: bool,
}

/// A window announced, and what became of the bookings it overlapped.
#[derive(Debug, Clone)]
pub struct Announced {
    pub window: MaintenanceWindow,
    /// Interrupted over the window: each keeps its interval.
    pub interrupted: Vec<Uuid>,
    /// Of those, the ones whose share is still owed: awaiting their payment, or the payment
    /// provider failed (the sweep gives it back).
    pub refund_pending: Vec<Uuid>,
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
        let (from, reason) = domain::uptime::window_request(new.from, new.until, &new.reason, now)?;
        let record = WindowRecord {
            id: Uuid::now_v7(),
            listing_id: listing.id,
            starts_at: from,
            ends_at: new.until,
            reason,
            created_by: caller.user_id.as_uuid(),
            created_at: now,
            cancel_overlapping: new.cancel_overlapping,
            cancelled_bookings: 0,
            interrupted_bookings: 0,
        };
        // Its details (the interval, what it interrupted) are filled in with the window.
        let audit = caller.audit(
            OrgId::from_uuid(listing.org_id),
            action::WINDOW_CREATED,
            record.id,
            serde_json::json!({}),
        );
        let (window, interrupted) = match self
            .db()
            .add_maintenance_window(record, now, Some(&audit))
            .await
        {
            Ok(added) => added,
            Err(WindowError::NoListing) => return Err(AppError::NotFound("listing")),
            Err(WindowError::Overlaps(ids)) => {
                return Err(AppError::MaintenanceOverlaps(format!(
                    "{} booking(s) hold the machine over the window ({}); send \
                     \"cancel_overlapping\": true to interrupt them over the window, each \
                     given back the share of its price the window takes",
                    ids.len(),
                    ids.iter()
                        .map(Uuid::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            Err(WindowError::Store(e)) => return Err(e.into()),
        };
        // Access on the machine ends at the window's start.
        self.wake_agent(window.listing_id).await;
        let mut refund_pending = Vec::new();
        for taken in &interrupted {
            // Its next provider request reads the window.
            self.forget_gate(taken.booking.id);
            let paid = taken.booking.payment_provider.is_none()
                || matches!(
                    *taken.booking.status,
                    BookingStatus::Confirmed | BookingStatus::Active | BookingStatus::Completed
                );
            let given = if paid {
                self.give_back_interruption(taken).await
            } else {
                Ok(false)
            };
            match given {
                Ok(true) => {}
                Ok(false) => refund_pending.push(taken.booking.id),
                Err(e) => {
                    tracing::warn!(booking = %taken.booking.id, error = %e, "giving back a booking's share of a maintenance window failed; the sweep tries again");
                    refund_pending.push(taken.booking.id);
                }
            }
        }
        Ok(Announced {
            window: self.window_view(window),
            interrupted: interrupted.iter().map(|i| i.booking.id).collect(),
            refund_pending,
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

    /// Deletes a window that interrupted no booking and has not begun (members of its
    /// organisation).
    pub async fn delete_maintenance_window(
        &self,
        caller: Caller,
        id: ListingId,
        window: Uuid,
    ) -> Result<(), AppError> {
        let listing = self.own_listing(caller, id.as_uuid()).await?;
        let audit = caller.audit(
            OrgId::from_uuid(listing.org_id),
            action::WINDOW_DELETED,
            window,
            serde_json::json!({"listing_id": listing.id}),
        );
        match self
            .db()
            .delete_maintenance_window(listing.id, window, Utc::now(), Some(&audit))
            .await?
        {
            WindowDeleted::Deleted => {
                self.wake_agent(listing.id).await;
                Ok(())
            }
            WindowDeleted::NotFound => Err(AppError::NotFound("maintenance window")),
            WindowDeleted::TookBookings => Err(AppError::MaintenanceKept(
                "the window interrupted bookings, so it stands: what it gave back stands too"
                    .to_owned(),
            )),
            WindowDeleted::Begun => Err(AppError::MaintenanceKept(
                "the window has begun, so it stands: what it says of the machine's uptime cannot be taken back"
                    .to_owned(),
            )),
        }
    }

    /// Cancels, with a full refund, bookings still holding a machine over a window announced
    /// before windows interrupted bookings (their first cancellation failed). Returns how many.
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

    /// Gives back what windows took of paid bookings and is still owed (awaiting a payment
    /// since made, or a refund the payment provider failed). Returns how many.
    pub(crate) async fn give_back_interruptions(&self) -> Result<usize, AppError> {
        let mut given = 0;
        for owed in self.db().owed_interruptions(REFUNDS_PER_SWEEP).await? {
            match self.give_back_interruption(&owed).await {
                Ok(true) => given += 1,
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(booking = %owed.booking.id, error = %e, "giving back a booking's share of a maintenance window failed; trying again next sweep");
                }
            }
        }
        Ok(given)
    }

    /// Gives a paid booking back what a window took of it, once: with the payment provider
    /// as a refund of its PaymentIntent (one idempotency key per booking and window, so a
    /// retry or another replica repeats the same request), transfer and fee coming back in
    /// proportion; without one, recorded. `false` when it was given back already.
    async fn give_back_interruption(&self, taken: &Interrupted) -> Result<bool, AppError> {
        let (booking, interruption) = (&taken.booking, &taken.interruption);
        let amount = interruption.refund_amount;
        let key = format!(
            "booking-{}-window-{}-refund",
            booking.id, interruption.window_id
        );
        let (refund_id, rows) = self.refund_part(booking, amount, &key, false).await?;
        let given = self
            .db()
            .interruption_refunded(interruption.id, refund_id.as_deref(), &rows, Utc::now())
            .await?;
        if given {
            tracing::info!(booking = %booking.id, window = %interruption.window_id, amount, "a booking was given back what a maintenance window took");
        }
        Ok(given)
    }
}
