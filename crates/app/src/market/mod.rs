//! The market: listings, search, offers, bookings and their cancellation, maintenance
//! windows, access, and the inference gateway.

pub mod access;
pub(crate) mod bids;
pub mod bookings;
pub(crate) mod cancellation;
pub mod catalogs;
pub mod container_logs;
pub mod gateway;
pub mod history;
pub(crate) mod interruptible;
pub mod listings;
pub mod machine_access;
pub mod maintenance_windows;
pub mod offers;
pub mod planner;
pub mod quotes;
pub mod sweeps;

use crate::{AppError, Config};

/// The market's state: the gateway's caches and engine client.
#[derive(Debug)]
pub(crate) struct MarketState {
    gateway: gateway::GatewayState,
}

impl MarketState {
    pub(crate) fn new(config: &Config) -> Result<Self, AppError> {
        Ok(Self {
            gateway: gateway::GatewayState::new(config.verification.engine_allow_private)?,
        })
    }

    /// The HTTP client every request to an engine goes through (liveness probes too).
    pub(crate) fn gateway_client(&self) -> &reqwest::Client {
        &self.gateway.client
    }
}
