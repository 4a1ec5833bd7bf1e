//! A maintenance window as handed out, below the use cases that announce windows
//! (`maintenance_windows`) and the ones that judge uptime around them (`liveness`).

use chrono::{DateTime, Utc};
use domain::{ListingId, uptime};
use store::WindowRecord;
use uuid::Uuid;

use crate::App;

/// A maintenance window as handed out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaintenanceWindow {
    pub id: Uuid,
    pub listing_id: ListingId,
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    pub reason: String,
    pub announced_at: DateTime<Utc>,
    /// Announced at least `maintenance_notice_secs` ahead: its time is left out of uptime.
    pub in_time: bool,
    /// Bookings announcing it cancelled with a full refund: windows announced before windows
    /// interrupted bookings only (0 for newer ones).
    pub cancelled_bookings: i64,
    /// Bookings announcing it interrupted (each given back the share the window takes);
    /// then it can no longer be deleted.
    pub interrupted_bookings: i64,
}

impl App {
    pub(crate) fn window_view(&self, w: WindowRecord) -> MaintenanceWindow {
        let (_, notice) = self.config().liveness.judging();
        MaintenanceWindow {
            id: w.id,
            listing_id: ListingId::from_uuid(w.listing_id),
            in_time: uptime::in_time(w.created_at, w.starts_at, notice),
            from: w.starts_at,
            until: w.ends_at,
            reason: w.reason,
            announced_at: w.created_at,
            cancelled_bookings: w.cancelled_bookings,
            interrupted_bookings: w.interrupted_bookings,
        }
    }
}
