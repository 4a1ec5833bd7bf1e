//! The provider's agent: an organisation's key of scope `agent`, bound to listings, reports
//! what each listing's machine says it is; the platform keeps it beside the listing with how
//! it differs from the listing's claim. The agent is the provider's code on the provider's
//! machine: its facts are the machine's word (`source: agent`), never an attestation, and
//! they are bounded and checked like anything else a provider sends.

use chrono::{DateTime, Utc};
use domain::agent::{ClaimedGpus, ReportedGpu, hardware_differences};
use domain::{KeyScope, OrgId, Role, ValidationError};
use serde::{Deserialize, Serialize};
use store::{ListingAgentRecord, ListingRecord};
use uuid::Uuid;

use crate::identity::agent_presence::AgentPresence;
use crate::{App, AppError, Caller};

/// Waits for what an agent was asked (it connects outward only, so its answer arrives as a
/// stored row): `look` every `every` until it finds the answer or `within` has passed
/// (`None`).
pub(crate) async fn await_answer<T, F>(
    (within, every): (std::time::Duration, std::time::Duration),
    mut look: impl FnMut() -> F,
) -> Result<Option<T>, AppError>
where
    F: std::future::Future<Output = Result<Option<T>, AppError>>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if let Some(answer) = look().await? {
            return Ok(Some(answer));
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(None);
        }
        tokio::time::sleep(every).await;
    }
}

/// The longest text a machine may send in a field.
const MAX_TEXT: usize = 128;
/// The most listings one agent's key is bound to.
pub const MAX_KEY_LISTINGS: usize = 100;

/// One GPU, as the agent reports it (`nvidia-smi`'s fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentGpu {
    pub index: u32,
    pub uuid: String,
    pub name: String,
    pub memory_total_mib: u64,
    pub driver_version: String,
    pub pci_bus_id: String,
    pub power_limit_w: Option<f64>,
    pub compute_cap: Option<String>,
}

/// What a machine says it is (`gpumarket agent facts`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AgentFacts {
    pub gpus: Vec<AgentGpu>,
    pub cpu_model: Option<String>,
    pub cpu_cores: Option<u32>,
    pub ram_gb: Option<f64>,
    pub disk_free_gb: Option<f64>,
    pub os: Option<String>,
    pub kernel: Option<String>,
}

/// What a listing's agent last reported, and how it differs from the claim.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentState {
    pub facts: AgentFacts,
    pub reported_at: DateTime<Utc>,
    /// Empty when the machine matches the listing's claim.
    pub differences: Vec<String>,
}

impl AgentState {
    /// The stored report, compared with the listing as it claims now: an edited claim is
    /// judged against what the machine last said, never against a comparison made before.
    fn of(record: ListingAgentRecord, listing: &ListingRecord) -> Result<Self, AppError> {
        let facts: AgentFacts = serde_json::from_str(&record.facts)
            .map_err(|e| AppError::Internal(format!("stored agent facts: {e}")))?;
        let differences = facts.differences_from(listing);
        Ok(Self {
            facts,
            reported_at: record.reported_at,
            differences,
        })
    }
}

/// A text field of the facts: at most so long, no control characters.
fn text(field: &'static str, value: &str) -> Result<(), ValidationError> {
    if value.chars().count() > MAX_TEXT || value.chars().any(char::is_control) {
        return Err(ValidationError::new(
            field,
            format!("at most {MAX_TEXT} printable characters"),
        ));
    }
    Ok(())
}

/// A figure of the facts: finite and not negative.
fn figure(field: &'static str, value: Option<f64>) -> Result<(), ValidationError> {
    match value {
        Some(v) if !(v.is_finite() && v >= 0.0) => Err(ValidationError::new(
            field,
            "must be a finite number, not negative",
        )),
        _ => Ok(()),
    }
}

impl AgentFacts {
    /// How the machine differs from what `listing` claims.
    fn differences_from(&self, listing: &ListingRecord) -> Vec<String> {
        let reported: Vec<ReportedGpu> = self
            .gpus
            .iter()
            .map(|g| ReportedGpu {
                name: g.name.clone(),
                memory_total_mib: g.memory_total_mib,
            })
            .collect();
        hardware_differences(
            ClaimedGpus {
                gpu_model: &listing.gpu_model,
                catalog_gpu: listing.catalog_gpu.as_deref(),
                gpu_count: listing.gpu_count,
                vram_gb: listing.vram_gb,
            },
            &reported,
        )
    }

    /// Checks what an agent sent, as it would anything a provider sends. A report without a
    /// GPU (the driver did not answer) is refused: it says nothing of the machine, and the
    /// last one stays.
    pub fn check(&self) -> Result<(), ValidationError> {
        if self.gpus.is_empty() {
            return Err(ValidationError::new(
                "gpus",
                "no GPU was read: report the facts once the driver answers (the last report stays)",
            ));
        }
        if self.gpus.len() > domain::agent::MAX_GPUS {
            return Err(ValidationError::new(
                "gpus",
                format!("at most {} GPUs", domain::agent::MAX_GPUS),
            ));
        }
        for gpu in &self.gpus {
            for (field, value) in [
                ("gpus.uuid", &gpu.uuid),
                ("gpus.name", &gpu.name),
                ("gpus.driver_version", &gpu.driver_version),
                ("gpus.pci_bus_id", &gpu.pci_bus_id),
            ] {
                text(field, value)?;
            }
            if let Some(cap) = &gpu.compute_cap {
                text("gpus.compute_cap", cap)?;
            }
            figure("gpus.power_limit_w", gpu.power_limit_w)?;
        }
        for (field, value) in [
            ("cpu_model", &self.cpu_model),
            ("os", &self.os),
            ("kernel", &self.kernel),
        ] {
            if let Some(value) = value {
                text(field, value)?;
            }
        }
        figure("ram_gb", self.ram_gb)?;
        figure("disk_free_gb", self.disk_free_gb)
    }
}

impl App {
    /// The listings an agent's key would be bound to: each one of `org`'s, at most
    /// [`MAX_KEY_LISTINGS`]; an agent's key needs at least one, any other key none.
    pub(crate) async fn key_listings(
        &self,
        org: OrgId,
        scopes: &[KeyScope],
        listing_ids: &[Uuid],
    ) -> Result<Vec<Uuid>, AppError> {
        let agent = scopes.contains(&KeyScope::Agent);
        if !agent {
            if listing_ids.is_empty() {
                return Ok(Vec::new());
            }
            return Err(ValidationError::new(
                "listing_ids",
                "only a key of scope `agent` is bound to listings",
            )
            .into());
        }
        let mut ids: Vec<Uuid> = Vec::new();
        for id in listing_ids {
            if !ids.contains(id) {
                ids.push(*id);
            }
        }
        if ids.is_empty() || ids.len() > MAX_KEY_LISTINGS {
            return Err(ValidationError::new(
                "listing_ids",
                format!(
                    "an agent's key names 1 to {MAX_KEY_LISTINGS} of its organisation's listings"
                ),
            )
            .into());
        }
        for id in &ids {
            let theirs = self
                .db()
                .listing_by_id(*id)
                .await?
                .is_some_and(|l| l.org_id == org.as_uuid() && l.delisted_at.is_none());
            if !theirs {
                return Err(ValidationError::new(
                    "listing_ids",
                    format!("{id} is not a live listing of this organisation"),
                )
                .into());
            }
        }
        Ok(ids)
    }

    /// A listing's agent reports its machine's facts: kept, with how they differ from the
    /// listing's claim. Only an agent's key bound to the listing reports them.
    pub async fn report_agent_facts(
        &self,
        caller: Caller,
        listing_id: Uuid,
        facts: AgentFacts,
    ) -> Result<AgentState, AppError> {
        self.require_agent_key(caller, listing_id).await?;
        let listing = self.live_listing(listing_id).await?;
        facts.check()?;
        let record = ListingAgentRecord {
            listing_id,
            facts: serde_json::to_string(&facts).map_err(|e| AppError::Internal(e.to_string()))?,
            reported_at: Utc::now(),
        };
        let confirms = facts.differences_from(&listing).is_empty();
        self.db()
            .put_listing_agent(record.clone(), confirms)
            .await?;
        AgentState::of(record, &listing)
    }

    /// Wakes `listing`'s agent's long-poll (`market::machine_access`): something its desired
    /// state is made of changed.
    pub(crate) async fn wake_agent(&self, listing: Uuid) {
        self.notifier().notify(listing).await;
    }

    /// Wakes the agents of every machine where `renter` has access now or later (their SSH
    /// keys changed).
    pub(crate) async fn wake_agents_of_renter(&self, renter: Uuid) -> Result<(), AppError> {
        for listing in self
            .db()
            .listings_with_access_of_renter(renter, Utc::now())
            .await?
        {
            self.wake_agent(listing).await;
        }
        Ok(())
    }

    /// A listing that is not delisted: an agent serves, and a key is bound to, live ones only.
    async fn live_listing(&self, listing_id: Uuid) -> Result<ListingRecord, AppError> {
        self.db()
            .listing_by_id(listing_id)
            .await?
            .filter(|l| l.delisted_at.is_none())
            .ok_or(AppError::NotFound("listing"))
    }

    /// What `listing`'s agent last reported, compared with its claim now; `None` before it
    /// reported.
    pub(crate) async fn agent_state(
        &self,
        listing: &ListingRecord,
    ) -> Result<Option<AgentState>, AppError> {
        self.db()
            .listing_agent(listing.id)
            .await?
            .map(|record| AgentState::of(record, listing))
            .transpose()
    }

    /// 409 `hardware_mismatch` when the listing's agent last reported other hardware than the
    /// listing claims now: such a machine is neither verified nor booked until its claim or
    /// its machine changes. `detailed` (the listing's own organisation asking) names what
    /// differs; anyone else is not shown the machine's words.
    pub(crate) async fn require_hardware_as_claimed(
        &self,
        listing: &ListingRecord,
        detailed: bool,
    ) -> Result<(), AppError> {
        let Some(record) = self.db().listing_agent(listing.id).await? else {
            return Ok(());
        };
        let state = AgentState::of(record, listing)?;
        if state.differences.is_empty() {
            return Ok(());
        }
        let mut why =
            "the machine's agent reports other hardware than the listing claims".to_owned();
        if detailed {
            why = format!("{why}: {}", state.differences.join("; "));
        }
        Err(AppError::HardwareMismatch(why))
    }

    /// After `listing`'s claim changed: whether its agent's last report still confirms it
    /// (kept on the listing, and answered).
    pub(crate) async fn recheck_hardware(&self, listing: &ListingRecord) -> Result<bool, AppError> {
        let confirms = match self.db().listing_agent(listing.id).await? {
            Some(record) => AgentState::of(record, listing)?.differences.is_empty(),
            None => false,
        };
        if confirms != listing.hardware_confirmed {
            self.db()
                .set_hardware_confirmed(listing.id, confirms)
                .await?;
        }
        Ok(confirms)
    }

    /// Of `listings`, those whose agent last reported other hardware than they claim now:
    /// left out of offers, plans and the planner, as they cannot be booked.
    pub(crate) async fn mismatched_listings<'a>(
        &self,
        listings: impl IntoIterator<Item = &'a ListingRecord>,
    ) -> Result<std::collections::HashSet<Uuid>, AppError> {
        let listings: std::collections::HashMap<Uuid, &ListingRecord> =
            listings.into_iter().map(|l| (l.id, l)).collect();
        let ids: Vec<Uuid> = listings.keys().copied().collect();
        let mut mismatched = std::collections::HashSet::new();
        for record in self.db().listing_agents_of(&ids).await? {
            if let Some(listing) = listings.get(&record.listing_id)
                && !AgentState::of(record, listing)?.differences.is_empty()
            {
                mismatched.insert(listing.id);
            }
        }
        Ok(mismatched)
    }

    /// Forgets a listing's agent (its organisation's members): the machine no longer runs
    /// one. Its last report and heartbeat go, the listing's hardware is `claimed` again, and
    /// its silence no longer counts as downtime; an agent that reports or beats again is
    /// heard again. 404 when there is none.
    pub async fn forget_listing_agent(
        &self,
        caller: Caller,
        listing_id: Uuid,
    ) -> Result<(), AppError> {
        let listing = self
            .db()
            .listing_by_id(listing_id)
            .await?
            .ok_or(AppError::NotFound("listing"))?;
        self.require_role(caller, OrgId::from_uuid(listing.org_id), Role::Member)
            .await?;
        // Forgetting an agent must not erase what it said against the claim.
        if let Some(state) = self.agent_state(&listing).await?
            && !state.differences.is_empty()
        {
            return Err(AppError::HardwareMismatch(format!(
                "the agent reports other hardware than the listing claims ({}): correct the \
                 claim or the machine before forgetting it",
                state.differences.join("; ")
            )));
        }
        if !self.db().delete_listing_agent(listing_id).await? {
            return Err(AppError::NotFound("agent report"));
        }
        Ok(())
    }

    /// What a listing's agent last reported, and whether it is heard (its organisation's
    /// members; `None` before it reported).
    pub async fn listing_agent(
        &self,
        caller: Caller,
        listing_id: Uuid,
    ) -> Result<Option<(AgentState, Option<AgentPresence>)>, AppError> {
        let listing = self
            .db()
            .listing_by_id(listing_id)
            .await?
            .ok_or(AppError::NotFound("listing"))?;
        if let Some(scopes) = caller.key_scopes()
            && !scopes.contains(KeyScope::Read)
        {
            return Err(AppError::ScopeRequired(
                "this key lacks the read scope".into(),
            ));
        }
        self.require_role(caller, OrgId::from_uuid(listing.org_id), Role::Member)
            .await?;
        let Some(record) = self.db().listing_agent(listing_id).await? else {
            return Ok(None);
        };
        let presence = self.agent_presence(listing_id).await?;
        Ok(Some((AgentState::of(record, &listing)?, presence)))
    }
}
