//! Listings and what verification attaches to them.

pub mod agent;
pub mod availability;
pub mod create;
pub mod delete;
pub mod get;
pub mod maintenance_windows;
pub mod preflight;
pub mod reports;
pub mod search;
pub mod update;
pub mod uptime;
pub mod verification;
pub mod verify;
