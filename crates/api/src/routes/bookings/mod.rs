//! Bookings: capacity that is never over-committed, idempotent requests, cancellation.

pub mod access;
pub mod bid;
pub mod cancel;
pub mod create;
pub mod get;
pub mod list;
pub mod logs;
pub mod usage;
