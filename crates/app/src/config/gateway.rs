//! `[gateway]`: the inference gateway's limits and metering.

use documented::{Documented, DocumentedFields};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure};

/// The metered gateway in front of booked engines.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct GatewaySettings {
    /// The largest request body the metered gateway forwards, in bytes.
    pub max_body_bytes: usize,
    /// The largest `max_tokens` a gateway request may ask for (and what one that asks none
    /// gets).
    pub max_tokens: u64,
    /// Length of the gateway's usage buckets, in which performance guarantees are judged and
    /// credited.
    pub bucket_secs: u64,
    /// How long a gateway stream's place in the shared count lasts without renewal (renewed
    /// a third of the way through): a crashed replica's streams stop counting after this.
    pub stream_lease_secs: u64,
}

impl Default for GatewaySettings {
    fn default() -> Self {
        Self {
            max_body_bytes: 1024 * 1024,
            max_tokens: 8192,
            bucket_secs: 300,
            stream_lease_secs: 10,
        }
    }
}

impl GatewaySettings {
    pub(super) fn check(&self) -> Checked {
        ensure(
            (3..=3600).contains(&self.stream_lease_secs),
            "stream_lease_secs",
            "must be between 3 and 3600",
        )?;
        ensure(
            (1..=86_400).contains(&self.bucket_secs),
            "bucket_secs",
            "must be between 1 and 86400",
        )
    }
}
