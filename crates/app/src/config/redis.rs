//! `[redis]`: the distributed shape's queue, wake-ups and shared counters.

use documented::{Documented, DocumentedFields};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure, redacted};

/// The distributed shape's queue, wake-ups and shared counters. Unset `url`: all in-process (one machine).
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct RedisSettings {
    /// Set: runs are delivered by a Redis stream (consumer group `workers`) and live events
    /// wake up through Redis pub/sub, so any API replica serves any run. Unset: in-process.
    #[serde(serialize_with = "redacted")]
    pub url: Option<SecretString>,
    /// Prefix of every Redis key, so deployments can share a Redis.
    pub namespace: String,
}

impl Default for RedisSettings {
    fn default() -> Self {
        Self {
            url: None,
            namespace: "gpumarket".to_owned(),
        }
    }
}

impl RedisSettings {
    pub(super) fn check(&self) -> Checked {
        if let Some(url) = &self.url {
            let url = url.expose_secret();
            ensure(
                url.starts_with("redis://") || url.starts_with("rediss://"),
                "url",
                "must start with redis:// or rediss://",
            )?;
        }
        ensure(
            !self.namespace.is_empty()
                && self
                    .namespace
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
            "namespace",
            "letters, digits, - _ . only",
        )
    }
}
