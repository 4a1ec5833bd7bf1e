//! `[agent]`: how the provider's agent (`gpumarket agent run`, on the provider's machine)
//! treats booking accounts. Read from the `--config` file there, or the environment; the
//! server reads when an agent is silent.

use documented::{Documented, DocumentedFields};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure};

/// The provider's agent: booking accounts on its machine (read where the agent runs).
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct AgentSettings {
    /// Seconds a booking account's processes get to end after its access ends (`SIGTERM`
    /// at `access_until`), before they are killed and its files removed.
    pub agent_end_grace_secs: u64,
    /// The lowest uid given to booking accounts.
    pub agent_uid_min: u32,
    /// The highest uid given to booking accounts (a uid is never given again within 30 days).
    pub agent_uid_max: u32,
    /// Where booking accounts' homes are made.
    pub agent_home_base: String,
    /// The group of the `AuthorizedKeysCommandUser`: it alone may read the keys cache.
    pub agent_keys_group: String,
    /// (The server's.) Seconds without a heartbeat after which a listing's agent is `silent`
    /// and its machine counted down, beside the liveness probes. Agents beat every 15 s: the
    /// default is three beats missed.
    pub agent_silent_after_secs: u64,
    /// (The worker's.) Seconds a run waits, once it measured, for its listing's agent to
    /// upload its GPUs' samples (the report's energy per token); past it the cells' energy is
    /// `unavailable`. Only runs of listings whose agent is heard wait.
    pub telemetry_wait_secs: u64,
}

impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            agent_end_grace_secs: 30,
            agent_uid_min: 200_000,
            agent_uid_max: 299_999,
            agent_home_base: "/home".to_owned(),
            agent_keys_group: "nogroup".to_owned(),
            agent_silent_after_secs: 45,
            telemetry_wait_secs: 20,
        }
    }
}

impl AgentSettings {
    pub(super) fn check(&self) -> Checked {
        ensure(
            self.agent_uid_min >= 1000 && self.agent_uid_min <= self.agent_uid_max,
            "agent_uid_min",
            "must be at least 1000 and not above agent_uid_max",
        )?;
        ensure(
            self.agent_end_grace_secs <= 3600,
            "agent_end_grace_secs",
            "must be at most 3600",
        )?;
        ensure(
            (1..=3600).contains(&self.agent_silent_after_secs),
            "agent_silent_after_secs",
            "must be between 1 and 3600",
        )?;
        ensure(
            self.telemetry_wait_secs <= 300,
            "telemetry_wait_secs",
            "must be at most 300",
        )?;
        ensure(
            self.agent_home_base.starts_with('/'),
            "agent_home_base",
            "must be an absolute path",
        )
    }
}
