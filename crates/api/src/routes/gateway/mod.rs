//! The metered gateway's HTTP: an OpenAI-compatible endpoint per booking. The use case (who
//! may, limits, metering) is `app::market::gateway`; here the request is read within its limits,
//! sent on through the outbound rules ([`proxy`]), and the answer passed back — streams as
//! their bytes arrive, with nothing buffered but an event the gateway must look at whole
//! ([`generate`]). One file per route: completions and chat completions (metered), models
//! and version, tokenize (holding a stream slot), metrics (whole-machine bookings only).

pub mod chat;
pub mod completions;
mod generate;
pub mod metrics;
pub mod models;
mod proxy;
pub mod tokenize;
