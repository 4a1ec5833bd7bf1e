//! Verification runs: their state and their live progress.

pub mod cancel;
pub mod events;
pub mod get;
