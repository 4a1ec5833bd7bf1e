//! Tools: test fixtures and the synthetic marketplace; they may use every context.

pub mod synthetic;
#[cfg(feature = "testing")]
pub mod testing;
