//! Operations: health, database administration and backups, and outbound webhooks.

pub mod backup;
pub mod database;
pub mod health;
pub mod webhooks;

use crate::{AppError, Config};

/// Operations' state: the client webhooks are sent with.
#[derive(Debug)]
pub(crate) struct OperationsState {
    webhook_client: reqwest::Client,
}

impl OperationsState {
    pub(crate) fn new(config: &Config) -> Result<Self, AppError> {
        Ok(Self {
            webhook_client: webhooks::client(config.webhooks.webhook_allow_private)?,
        })
    }
}
