//! `[liveness]`: probes of listed engines and their statements.

use documented::{Documented, DocumentedFields};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure};

/// Liveness probes of listed machines, and maintenance windows.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct LivenessSettings {
    /// How often each listed machine's engine is probed (a one-token completion of its
    /// served model), jittered by a tenth either way. Probes further apart than three
    /// periods leave the time between them unknown.
    pub liveness_every_secs: u64,
    /// How long a probe waits for a valid answer before it counts the machine as down.
    pub liveness_timeout_ms: u64,
    /// A maintenance window announced at least this long before it starts is left out of
    /// uptime; announced later, its time counts as downtime.
    pub maintenance_notice_secs: u64,
    /// Each listing observed during a period this long (aligned to the Unix epoch: with the
    /// default, UTC days) gets a signed, logged statement of its uptime in it, once the period
    /// has ended.
    pub uptime_statement_secs: u64,
    /// Most probes one process has waiting for an answer at once: engines that answer slowly
    /// (up to `liveness_timeout_ms`) hold at most this many; the rest stay due and are
    /// claimed once places free up.
    pub max_probes_in_flight: u32,
}

impl Default for LivenessSettings {
    fn default() -> Self {
        Self {
            liveness_every_secs: 300,
            liveness_timeout_ms: 5_000,
            maintenance_notice_secs: 24 * 3600,
            uptime_statement_secs: 24 * 3600,
            max_probes_in_flight: 64,
        }
    }
}

impl LivenessSettings {
    pub(super) fn check(&self) -> Checked {
        ensure(
            (1..=86_400).contains(&self.liveness_every_secs),
            "liveness_every_secs",
            "must be between 1 and 86400",
        )?;
        ensure(
            (100..=60_000).contains(&self.liveness_timeout_ms),
            "liveness_timeout_ms",
            "must be between 100 and 60000",
        )?;
        ensure(
            self.maintenance_notice_secs <= 30 * 86_400,
            "maintenance_notice_secs",
            "must be at most 30 days (2592000)",
        )?;
        ensure(
            (1..=86_400).contains(&self.uptime_statement_secs),
            "uptime_statement_secs",
            "must be between 1 and 86400",
        )?;
        ensure(
            (1..=10_000).contains(&self.max_probes_in_flight),
            "max_probes_in_flight",
            "must be between 1 and 10000",
        )
    }

    /// The probe period.
    pub fn period(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.liveness_every_secs)
    }

    /// How far apart observations may be for the time between them to count, and the notice
    /// a window needs to be left out of uptime.
    pub fn judging(&self) -> (chrono::Duration, chrono::Duration) {
        let period = chrono::Duration::seconds(self.liveness_every_secs as i64);
        (
            domain::uptime::gap(period),
            chrono::Duration::seconds(self.maintenance_notice_secs as i64),
        )
    }
}
