//! API keys: long-lived credentials for programs, usable wherever an access token is.

pub mod create;
pub mod delete;
pub mod list;
