//! Signed reports and their exports, the leaderboard, organisation reports, signing keys.

pub mod get;
pub mod leaderboard;
pub mod matrix;
pub mod org_report;
mod render;
pub mod signing_keys;
