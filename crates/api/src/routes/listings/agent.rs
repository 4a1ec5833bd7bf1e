//! The provider's agent on a listing's machine: it reports what the machine says it is
//! (`PUT /listings/{id}/agent/facts`, an organisation key of scope `agent` bound to the
//! listing), and the organisation reads it back with how it differs from the listing's claim
//! (`GET /listings/{id}/agent`). The facts are the machine's word (`source: agent`), never an
//! attestation.

use actix_web::{HttpResponse, get, put, web};
use app::App;
use app::identity::agents::{AgentFacts, AgentGpu, AgentState};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    Forbidden, InvalidToken, NotFound, ScopeRequired, Unauthenticated, ValidationFailed,
};
use crate::extract::{Auth, Json};

/// One GPU, as `nvidia-smi --query-gpu` reports it.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentGpuView {
    pub index: u32,
    pub uuid: String,
    /// As the driver names it (`NVIDIA H100 80GB HBM3`).
    pub name: String,
    /// `memory.total`, MiB.
    pub memory_total_mib: u64,
    pub driver_version: String,
    pub pci_bus_id: String,
    /// `power.limit`, W; `null` where the GPU does not say.
    pub power_limit_w: Option<f64>,
    /// `9.0`; `null` where the driver does not say.
    pub compute_cap: Option<String>,
}

/// What a machine says it is, as `gpumarket agent facts` prints it. Texts are at most 128
/// printable characters, at most 64 GPUs (422 naming the field otherwise).
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentFactsView {
    pub gpus: Vec<AgentGpuView>,
    pub cpu_model: Option<String>,
    pub cpu_cores: Option<u32>,
    /// GiB.
    pub ram_gb: Option<f64>,
    /// Free space of the agent's state directory's file system, GiB.
    pub disk_free_gb: Option<f64>,
    pub os: Option<String>,
    pub kernel: Option<String>,
    /// What `gpumarket agent facts` also prints (where the GPUs were read, why none were,
    /// `agent`); not kept.
    #[serde(default, skip_serializing)]
    pub gpu_source: Option<String>,
    #[serde(default, skip_serializing)]
    pub gpu_error: Option<String>,
    #[serde(default, skip_serializing)]
    pub source: Option<String>,
}

/// How the machine compares with the listing's claim.
#[derive(Debug, Serialize, ToSchema)]
pub struct HardwareMatchView {
    /// The GPU model by name through the catalog, their count, and each one's memory
    /// (`memory.total` ÷ 1024 within −7 % … +3 % of `vram_gb`) match the claim.
    pub matches: bool,
    /// What differs, in words; empty when it matches.
    pub differences: Vec<String>,
}

/// What the listing's agent last reported.
#[derive(Debug, Serialize, ToSchema)]
pub struct AgentView {
    pub listing_id: Uuid,
    /// Always `agent`: the machine's word, not an attestation.
    pub source: &'static str,
    pub reported_at: DateTime<Utc>,
    pub facts: AgentFactsView,
    pub hardware: HardwareMatchView,
}

impl From<AgentFactsView> for AgentFacts {
    fn from(v: AgentFactsView) -> Self {
        Self {
            gpus: v
                .gpus
                .into_iter()
                .map(|g| AgentGpu {
                    index: g.index,
                    uuid: g.uuid,
                    name: g.name,
                    memory_total_mib: g.memory_total_mib,
                    driver_version: g.driver_version,
                    pci_bus_id: g.pci_bus_id,
                    power_limit_w: g.power_limit_w,
                    compute_cap: g.compute_cap,
                })
                .collect(),
            cpu_model: v.cpu_model,
            cpu_cores: v.cpu_cores,
            ram_gb: v.ram_gb,
            disk_free_gb: v.disk_free_gb,
            os: v.os,
            kernel: v.kernel,
        }
    }
}

impl AgentView {
    fn of(listing_id: Uuid, state: AgentState) -> Self {
        let facts = state.facts;
        Self {
            listing_id,
            source: "agent",
            reported_at: state.reported_at,
            facts: AgentFactsView {
                gpus: facts
                    .gpus
                    .into_iter()
                    .map(|g| AgentGpuView {
                        index: g.index,
                        uuid: g.uuid,
                        name: g.name,
                        memory_total_mib: g.memory_total_mib,
                        driver_version: g.driver_version,
                        pci_bus_id: g.pci_bus_id,
                        power_limit_w: g.power_limit_w,
                        compute_cap: g.compute_cap,
                    })
                    .collect(),
                cpu_model: facts.cpu_model,
                cpu_cores: facts.cpu_cores,
                ram_gb: facts.ram_gb,
                disk_free_gb: facts.disk_free_gb,
                os: facts.os,
                kernel: facts.kernel,
                gpu_source: None,
                gpu_error: None,
                source: None,
            },
            hardware: HardwareMatchView {
                matches: state.differences.is_empty(),
                differences: state.differences,
            },
        }
    }
}

/// The listing's agent reports its machine's facts (at start and when they change): kept in
/// place of the last, and compared with the listing's claim.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "put_agent_facts",
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    request_body = AgentFactsView,
    responses(
        (status = 200, description = "Kept; how the machine compares with the claim", body = AgentView),
        Problems<(InvalidToken, Unauthenticated, ScopeRequired, Forbidden, NotFound, ValidationFailed)>,
    )
)]
#[put("/listings/{id}/agent/facts")]
pub async fn put_facts(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    Json(body): Json<AgentFactsView>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let state = app.report_agent_facts(caller, id, body.into()).await?;
    Ok(HttpResponse::Ok().json(AgentView::of(id, state)))
}

/// What the listing's agent last reported, and how the machine compares with the claim
/// (the organisation's members; 404 before its agent reported).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_listing_agent",
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    responses(
        (status = 200, description = "The agent's last report", body = AgentView),
        Problems<(InvalidToken, Unauthenticated, ScopeRequired, Forbidden, NotFound)>,
    )
)]
#[get("/listings/{id}/agent")]
pub async fn get_agent(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let state = app
        .listing_agent(caller, id)
        .await?
        .ok_or(app::AppError::NotFound("agent report"))?;
    Ok(HttpResponse::Ok().json(AgentView::of(id, state)))
}
