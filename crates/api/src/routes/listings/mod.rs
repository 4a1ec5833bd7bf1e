//! Listings and what verification attaches to them.

pub mod create;
pub mod get;
pub mod reports;
pub mod verify;
