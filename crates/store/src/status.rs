//! The stored names of the domain's life-cycle states, for queries (`domain` owns them).

/// The stored names of `domain::ListingStatus` (which owns them), for queries.
pub mod listing_status {
    use domain::ListingStatus;
    pub const ACTIVE: &str = ListingStatus::Active.as_str();
    pub const DELISTED: &str = ListingStatus::Delisted.as_str();
}

/// The stored names of `domain::RunStatus` (which owns them), for queries.
pub mod run_status {
    use domain::RunStatus;
    pub const QUEUED: &str = RunStatus::Queued.as_str();
    pub const RUNNING: &str = RunStatus::Running.as_str();
    pub const SUCCEEDED: &str = RunStatus::Succeeded.as_str();
    pub const FAILED: &str = RunStatus::Failed.as_str();
    pub const CANCELLED: &str = RunStatus::Cancelled.as_str();
}

/// The stored names of `domain::BookingStatus` (which owns them), for queries.
pub mod booking_status {
    use domain::BookingStatus;
    pub const PENDING_PAYMENT: &str = BookingStatus::PendingPayment.as_str();
    pub const CONFIRMED: &str = BookingStatus::Confirmed.as_str();
    pub const ACTIVE: &str = BookingStatus::Active.as_str();
    pub const COMPLETED: &str = BookingStatus::Completed.as_str();
    pub const CANCELLED: &str = BookingStatus::Cancelled.as_str();
    pub const EXPIRED: &str = BookingStatus::Expired.as_str();
}
