//! Organisations, their members (by invitation), and their API keys.

pub mod api_keys;
pub mod create;
pub mod get;
pub mod list;
pub mod members;
