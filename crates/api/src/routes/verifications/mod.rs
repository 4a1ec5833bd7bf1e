//! Verification runs: their state and their live progress.

pub mod events;
pub mod get;
