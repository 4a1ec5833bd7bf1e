//! Whether a listing's agent is heard: its heartbeats (every 15 s: its version, each booking
//! account's state) keep a last-seen time in Redis — or this process, without Redis — and
//! reach the database only when what they say changes, or once a minute. Silent for three
//! periods (`[agent] agent_silent_after_secs`), the agent is `silent`, and its machine is
//! counted down by the liveness probes (`trust::liveness`). What a heartbeat says is bounded
//! and checked, and never shown to anyone but the listing's organisation. What only the agent
//! may do, it does with its key (`require_agent_key`).

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use domain::agent::{booking_account, is_booking_account};
use domain::{KeyScope, ValidationError};
use serde::{Deserialize, Serialize};
use store::AgentHeartbeatRecord;
use uuid::Uuid;

use crate::{App, AppError, Caller, Credential};

/// How often an agent beats (silent for `[agent] agent_silent_after_secs`, three periods by
/// default, it is `silent`).
pub const HEARTBEAT_SECS: i64 = 15;
/// The database keeps a heartbeat that says nothing new at most this often.
const STORE_EVERY_SECS: i64 = 60;
/// Bounds on what a heartbeat may say.
const MAX_ACCOUNTS: usize = 256;
const MAX_VERSION: usize = 64;

/// The state of one booking's account, as the agent says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccountState {
    /// Made, before its start or during it.
    Ready,
    /// Access ended: its processes are being ended and its files removed.
    Ending,
    /// Gone, with its files.
    Removed,
    /// An account of that name exists that the agent did not make: it is left alone.
    Conflict,
    /// Making or removing it failed (the agent's log says why).
    Failed,
}

/// One booking's account in a heartbeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountReport {
    pub booking_id: Uuid,
    pub account: String,
    pub state: AccountState,
}

/// What an agent says every [`HEARTBEAT_SECS`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heartbeat {
    pub agent_version: String,
    pub accounts: Vec<AccountReport>,
    /// The machine's clock when it sent the beat: the server compares it with its own
    /// (`None` from an agent that does not say).
    #[serde(default)]
    pub sent_at: Option<DateTime<Utc>>,
    /// Each GPU's health as the agent read it (`None` from an agent that does not read it).
    #[serde(default)]
    pub gpus: Option<Vec<GpuHealth>>,
    /// Each booking's container as the agent runs it (`None` from an agent that runs none).
    #[serde(default)]
    pub containers: Option<Vec<ContainerReport>>,
}

/// One booking's container in a heartbeat: the GPUs the agent gave it and its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainerReport {
    pub booking_id: Uuid,
    /// Its GPUs by UUID.
    pub gpus: Vec<String>,
    /// dockerd's word for it, of [`CONTAINER_STATES`].
    pub state: String,
}

/// The states dockerd gives a container.
pub const CONTAINER_STATES: &[&str] = &[
    "created",
    "running",
    "paused",
    "restarting",
    "removing",
    "exited",
    "dead",
];

impl ContainerReport {
    fn check(&self) -> Result<(), ValidationError> {
        if !CONTAINER_STATES.contains(&self.state.as_str()) {
            return Err(ValidationError::new(
                "containers.state",
                format!("one of {}", CONTAINER_STATES.join(", ")),
            ));
        }
        if self.gpus.len() > domain::agent::MAX_GPUS
            || !self.gpus.iter().all(|g| domain::agent::valid_gpu_uuid(g))
        {
            return Err(ValidationError::new(
                "containers.gpus",
                format!(
                    "at most {} GPU UUIDs of 1 to 64 letters, digits and -",
                    domain::agent::MAX_GPUS
                ),
            ));
        }
        Ok(())
    }
}

/// Throttle reasons an agent may name (NVML's `clocks_event_reasons`, `nvidia-smi`'s
/// `clocks_throttle_reasons.*`).
pub const THROTTLE_REASONS: &[&str] = &[
    "gpu_idle",
    "applications_clocks_setting",
    "sw_power_cap",
    "hw_slowdown",
    "sync_boost",
    "sw_thermal_slowdown",
    "hw_thermal_slowdown",
    "hw_power_brake_slowdown",
    "display_clock_setting",
];

/// One GPU's health, as the agent read it: what would make a measurement of it wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuHealth {
    pub uuid: String,
    /// Uncorrected ECC errors since the driver loaded (`None`: no ECC on this GPU).
    pub ecc_errors_uncorrected: Option<u64>,
    /// Why its clocks are held down now, of [`THROTTLE_REASONS`].
    pub throttle_reasons: Vec<String>,
    /// Whether the driver stays loaded with no client (`None`: not said).
    pub persistence_mode: Option<bool>,
    /// Compute processes running on it.
    pub compute_processes: Option<u32>,
}

/// The most compute processes a GPU may be said to run (more is a lie or a fork bomb).
const MAX_PROCESSES: u32 = 100_000;
/// An offset of the machine's clock past which it is kept as this (a day).
const MAX_OFFSET_MS: i64 = 86_400_000;
/// A change of the clock's offset the database keeps (smaller ones wait for the minute).
const OFFSET_CHANGE_MS: i64 = 250;

impl GpuHealth {
    fn check(&self) -> Result<(), ValidationError> {
        if !domain::agent::valid_gpu_uuid(&self.uuid) {
            return Err(ValidationError::new(
                "gpus.uuid",
                "1 to 64 letters, digits and -",
            ));
        }
        if self.throttle_reasons.len() > THROTTLE_REASONS.len()
            || self
                .throttle_reasons
                .iter()
                .any(|r| !THROTTLE_REASONS.contains(&r.as_str()))
        {
            return Err(ValidationError::new(
                "gpus.throttle_reasons",
                format!("each one of {}", THROTTLE_REASONS.join(", ")),
            ));
        }
        if self.compute_processes.is_some_and(|n| n > MAX_PROCESSES) {
            return Err(ValidationError::new(
                "gpus.compute_processes",
                format!("at most {MAX_PROCESSES}"),
            ));
        }
        Ok(())
    }
}

impl Heartbeat {
    /// Bounded and checked like anything a provider sends.
    fn check(&self) -> Result<(), ValidationError> {
        if self.agent_version.is_empty()
            || self.agent_version.len() > MAX_VERSION
            || !self
                .agent_version
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-+_".contains(&b))
        {
            return Err(ValidationError::new(
                "agent_version",
                format!("1 to {MAX_VERSION} characters of letters, digits and . - + _"),
            ));
        }
        if self.accounts.len() > MAX_ACCOUNTS {
            return Err(ValidationError::new(
                "accounts",
                format!("at most {MAX_ACCOUNTS}"),
            ));
        }
        if let Some(containers) = &self.containers {
            if containers.len() > MAX_ACCOUNTS {
                return Err(ValidationError::new(
                    "containers",
                    format!("at most {MAX_ACCOUNTS}"),
                ));
            }
            containers.iter().try_for_each(ContainerReport::check)?;
        }
        if let Some(gpus) = &self.gpus {
            if gpus.len() > domain::agent::MAX_GPUS {
                return Err(ValidationError::new(
                    "gpus",
                    format!("at most {}", domain::agent::MAX_GPUS),
                ));
            }
            gpus.iter().try_for_each(GpuHealth::check)?;
        }
        if let Some(bad) = self
            .accounts
            .iter()
            .find(|a| !is_booking_account(&a.account) || a.account != booking_account(a.booking_id))
        {
            return Err(ValidationError::new(
                "accounts.account",
                format!(
                    "{} is not the account of booking {}",
                    bad.account.chars().take(32).collect::<String>(),
                    bad.booking_id
                ),
            ));
        }
        Ok(())
    }
}

/// Whether a listing's agent is heard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentPresence {
    pub last_seen_at: DateTime<Utc>,
    /// Heard within `[agent] agent_silent_after_secs`.
    pub online: bool,
    pub agent_version: String,
    pub accounts: Vec<AccountReport>,
    /// How far the machine's clock is ahead of the server's (negative: behind), within a
    /// network delay, as of the last beat the database kept; `None` when the agent does not
    /// say its time.
    pub clock_offset_ms: Option<i64>,
    /// Each GPU's health as of the last beat the database kept.
    pub gpus: Option<Vec<GpuHealth>>,
    /// Each booking's container as of the last beat the database kept.
    pub containers: Option<Vec<ContainerReport>>,
}

/// When each listing's agent was last heard, in this process (without Redis).
#[derive(Debug, Default)]
pub(crate) struct LastSeen(Mutex<HashMap<Uuid, DateTime<Utc>>>);

impl App {
    /// Refuses any caller but an organisation's key of scope `agent` bound to `listing_id`:
    /// what an agent may do, it does for its own listings only.
    pub(crate) async fn require_agent_key(
        &self,
        caller: Caller,
        listing_id: Uuid,
    ) -> Result<(), AppError> {
        let Credential::OrgKey { id, scopes, .. } = caller.via else {
            return Err(AppError::ScopeRequired(
                "this is the machine's agent's: an organisation key of scope `agent`".into(),
            ));
        };
        if !scopes.contains(KeyScope::Agent) {
            return Err(AppError::ScopeRequired(
                "this key lacks the agent scope".into(),
            ));
        }
        if !self
            .db()
            .key_listings(id.as_uuid())
            .await?
            .contains(&listing_id)
        {
            return Err(AppError::Forbidden(
                "this agent's key is not bound to this listing".into(),
            ));
        }
        Ok(())
    }

    /// A listing's agent beats: it is heard now, and what it says of its accounts is kept
    /// when it changed (or once a minute).
    pub async fn agent_heartbeat(
        &self,
        caller: Caller,
        listing_id: Uuid,
        beat: Heartbeat,
    ) -> Result<AgentPresence, AppError> {
        self.require_agent_key(caller, listing_id).await?;
        // Heard, even when what it says is refused: its key and its network work, and a
        // field it gets wrong must not make its machine look down.
        let now = Utc::now();
        self.mark_seen(listing_id, now).await;
        beat.check()?;
        let unwritable = |e: serde_json::Error| AppError::Internal(e.to_string());
        let accounts = serde_json::to_string(&beat.accounts).map_err(unwritable)?;
        let gpu_health = beat
            .gpus
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(unwritable)?;
        let containers = beat
            .containers
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(unwritable)?;
        let clock_offset_ms = beat.sent_at.map(|sent| {
            (sent - now)
                .num_milliseconds()
                .clamp(-MAX_OFFSET_MS, MAX_OFFSET_MS)
        });
        let stored = self.db().agent_heartbeat(listing_id).await?;
        let news = stored.as_ref().is_none_or(|s| {
            let offset_moved = match (s.clock_offset_ms, clock_offset_ms) {
                (Some(a), Some(b)) => (a - b).abs() >= OFFSET_CHANGE_MS,
                (a, b) => a.is_some() != b.is_some(),
            };
            s.agent_version != beat.agent_version
                || s.accounts != accounts
                || s.gpu_health != gpu_health
                || s.containers != containers
                || offset_moved
                || now - s.last_seen_at >= chrono::Duration::seconds(STORE_EVERY_SECS)
        });
        if news {
            self.db()
                .put_agent_heartbeat(AgentHeartbeatRecord {
                    listing_id,
                    agent_version: beat.agent_version.clone(),
                    accounts,
                    last_seen_at: now,
                    clock_offset_ms,
                    gpu_health,
                    containers,
                })
                .await?;
        }
        Ok(AgentPresence {
            last_seen_at: now,
            online: true,
            agent_version: beat.agent_version,
            accounts: beat.accounts,
            clock_offset_ms,
            gpus: beat.gpus,
            containers: beat.containers,
        })
    }

    /// Whether a listing's agent is heard; `None` before its first heartbeat.
    pub async fn agent_presence(
        &self,
        listing_id: Uuid,
    ) -> Result<Option<AgentPresence>, AppError> {
        let Some(stored) = self.db().agent_heartbeat(listing_id).await? else {
            return Ok(None);
        };
        let silent_after =
            chrono::Duration::seconds(self.config().agent.agent_silent_after_secs as i64);
        let (seen, online) = match self.last_seen(listing_id).await {
            Some(t) => {
                let seen = t.max(stored.last_seen_at);
                (seen, Utc::now() - seen < silent_after)
            }
            // Neither Redis nor this process heard it (another process without Redis, or a
            // restart): the database's time is up to a minute behind the last beat.
            None => (
                stored.last_seen_at,
                Utc::now() - stored.last_seen_at
                    < silent_after + chrono::Duration::seconds(STORE_EVERY_SECS),
            ),
        };
        let corrupt = |e: serde_json::Error| AppError::Internal(format!("stored heartbeat: {e}"));
        let accounts = serde_json::from_str(&stored.accounts).map_err(corrupt)?;
        let gpus = stored
            .gpu_health
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(corrupt)?;
        let containers = stored
            .containers
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(corrupt)?;
        Ok(Some(AgentPresence {
            last_seen_at: seen,
            online,
            agent_version: stored.agent_version,
            accounts,
            clock_offset_ms: stored.clock_offset_ms,
            gpus,
            containers,
        }))
    }

    /// Whether `listing` has an agent that fell silent: its machine is counted down. A listing
    /// whose agent never beat, or was forgotten, has none; an error reading says not silent
    /// (the platform's own trouble is never the provider's downtime).
    pub(crate) async fn agent_silent(&self, listing: Uuid) -> bool {
        match self.agent_presence(listing).await {
            Ok(presence) => presence.is_some_and(|p| !p.online),
            Err(e) => {
                tracing::warn!(%listing, error = %e, "reading an agent's presence failed");
                false
            }
        }
    }

    /// Notes that `listing`'s agent was heard at `at`: in Redis for every replica, else here.
    async fn mark_seen(&self, listing: Uuid, at: DateTime<Utc>) {
        match self.redis() {
            Some(redis) => {
                let millis = at.timestamp_millis().to_string();
                let ttl = (STORE_EVERY_SECS * 10).to_string();
                if let Err(e) = redis
                    .eval(
                        SEEN_SCRIPT,
                        &[&self.seen_key(listing)],
                        &["set", &millis, &ttl],
                    )
                    .await
                {
                    tracing::warn!(%listing, error = %e, "could not note an agent's heartbeat");
                }
            }
            None => {
                self.inner
                    .identity
                    .last_seen
                    .0
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(listing, at);
            }
        }
    }

    /// When `listing`'s agent was last heard, as Redis or this process knows.
    async fn last_seen(&self, listing: Uuid) -> Option<DateTime<Utc>> {
        match self.redis() {
            Some(redis) => redis
                .eval(SEEN_SCRIPT, &[&self.seen_key(listing)], &["get"])
                .await
                .ok()?
                .first()
                .copied()
                .and_then(DateTime::from_timestamp_millis),
            None => self
                .inner
                .identity
                .last_seen
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&listing)
                .copied(),
        }
    }

    fn seen_key(&self, listing: Uuid) -> String {
        format!("{}:agent-seen:{listing}", self.config().redis.namespace)
    }
}

/// Sets (`set`, milliseconds, seconds to live) or reads (`get`) an agent's last-seen time.
const SEEN_SCRIPT: &str = "
if ARGV[1] == 'set' then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', tonumber(ARGV[3]))
  return {tonumber(ARGV[2])}
end
local v = redis.call('GET', KEYS[1])
if v then return {tonumber(v)} end
return {}
";
