//! Operations: health, database administration, and outbound webhooks.

pub(crate) mod backup;
pub(crate) mod webhook_claims;
pub(crate) mod webhooks;
