//! `[server]`: how the API listens and what it accepts, and how it logs.

use documented::{Documented, DocumentedFields};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure};

/// How the API listens and what it accepts.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct ServerSettings {
    /// Address the API listens on.
    pub listen: String,
    /// This API's address as users reach it, for links handed to Stripe (onboarding return)
    /// and the transparency log's default origin.
    pub public_url: String,
    /// `text`, or `json` for one JSON object per line; filter with `RUST_LOG`.
    pub log_format: LogFormat,
    /// Largest request body accepted, in bytes; larger ones get 413.
    pub max_body_bytes: usize,
    /// The kernel send buffer of each API connection, in bytes (0: the kernel's autotuning,
    /// megabytes on loopback): what a client that stops reading holds, and how far behind a
    /// gateway stream's reader may fall before its writes block.
    pub send_buffer_bytes: usize,
    /// Reverse proxies (addresses or CIDR ranges, comma-separated) whose `X-Forwarded-For`
    /// names the client; from anyone else the header is ignored and the peer is the client.
    pub trusted_proxies: String,
    /// IPv6 clients count by this prefix for every address-keyed budget (sign-in, live
    /// streams, the address ceiling, failed logins): one subscriber commonly holds a /64.
    /// IPv4 clients count by address.
    pub ipv6_prefix_len: u8,
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".to_owned(),
            public_url: "http://127.0.0.1:8080".to_owned(),
            log_format: LogFormat::Text,
            max_body_bytes: 256 * 1024,
            send_buffer_bytes: 256 * 1024,
            trusted_proxies: String::new(),
            ipv6_prefix_len: 64,
        }
    }
}

/// How logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

impl ServerSettings {
    pub(super) fn check(&self) -> Checked {
        ensure(
            self.listen.parse::<std::net::SocketAddr>().is_ok(),
            "listen",
            format!("{:?} is not an address like 127.0.0.1:8080", self.listen),
        )?;
        ensure(
            self.max_body_bytes >= 1024,
            "max_body_bytes",
            "must be at least 1024",
        )?;
        ensure(
            self.public_url.starts_with("http://") || self.public_url.starts_with("https://"),
            "public_url",
            "must be an http:// or https:// URL",
        )?;
        ensure(
            (32..=128).contains(&self.ipv6_prefix_len),
            "ipv6_prefix_len",
            "must be between 32 and 128",
        )?;
        ensure(
            self.send_buffer_bytes == 0 || self.send_buffer_bytes >= 4096,
            "send_buffer_bytes",
            "must be 0 (the kernel's autotuning) or at least 4096",
        )
    }
}
