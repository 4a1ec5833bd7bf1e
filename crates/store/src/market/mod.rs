//! The market: listings, search, offers, bookings and their cancellation, maintenance
//! windows, access, and the inference gateway.

pub(crate) mod bids;
pub(crate) mod bookings;
pub(crate) mod container_logs;
pub(crate) mod gateway;
pub(crate) mod history;
pub(crate) mod interruptible;
pub(crate) mod listings;
pub(crate) mod maintenance_windows;
pub(crate) mod offers;
pub(crate) mod search;
