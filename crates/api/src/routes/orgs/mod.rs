//! Organisations, their members (by invitation), their API keys and their plan.

pub mod api_keys;
pub mod audit;
pub mod billing;
pub mod create;
pub mod directory;
pub mod get;
pub mod list;
pub mod members;
