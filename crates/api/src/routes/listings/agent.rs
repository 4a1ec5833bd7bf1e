//! The provider's agent on a listing's machine: it reports what the machine says it is
//! (`PUT /listings/{id}/agent/facts`, an organisation key of scope `agent` bound to the
//! listing), and the organisation reads it back with how it differs from the listing's claim
//! (`GET /listings/{id}/agent`). The facts are the machine's word (`source: agent`), never an
//! attestation. The agent long-polls its machine's desired state
//! (`GET /listings/{id}/agent/desired`) and beats (`POST /listings/{id}/agent/heartbeat`).

use actix_web::{HttpResponse, delete, get, post, put, web};
use app::App;
use app::identity::agent_presence::{
    AccountReport, AccountState, AgentPresence, ContainerReport, GpuHealth, Heartbeat,
};
use app::identity::agents::{AgentFacts, AgentGpu, AgentState};
use app::market::machine_access::{DesiredBooking, DesiredState, LOOKAHEAD_SECS, MAX_WAIT_SECS};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    Forbidden, HardwareMismatch, InvalidToken, NotFound, ScopeRequired, Unauthenticated,
    ValidationFailed,
};
use crate::extract::{Auth, Json, JsonUpTo, Query};

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
    /// Whether the agent is heard; `null` before its first heartbeat.
    pub presence: Option<PresenceView>,
}

/// One booking's account, as the agent says.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AccountReportView {
    pub booking_id: Uuid,
    /// `gm-` and the last 12 hex digits of the booking's id.
    pub account: String,
    /// `ready` (made), `ending` (access ended; processes and files going), `removed`,
    /// `conflict` (an account of that name exists that the agent did not make: left alone),
    /// `failed` (the agent's log says why).
    #[schema(value_type = String)]
    pub state: AccountState,
}

/// A heartbeat, every 15 s: at most 256 accounts.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HeartbeatView {
    /// 1–64 characters of letters, digits and `. - + _`.
    pub agent_version: String,
    #[serde(default)]
    pub accounts: Vec<AccountReportView>,
    /// The machine's clock when it sent the beat (RFC 3339, with milliseconds): the server
    /// compares it with its own (preflight's `clock_offset`).
    #[serde(default)]
    pub sent_at: Option<DateTime<Utc>>,
    /// Each GPU's health as the agent read it (preflight's `gpu_health`); at most 64.
    #[serde(default)]
    pub gpus: Option<Vec<GpuHealthView>>,
    /// Each booking's container as the agent runs it; at most 256.
    #[serde(default)]
    pub containers: Option<Vec<ContainerReportView>>,
}

/// One booking's container, as the agent runs it.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContainerReportView {
    pub booking_id: Uuid,
    /// The GPUs it holds, by UUID (at most 64).
    pub gpus: Vec<String>,
    /// `created`, `running`, `paused`, `restarting`, `removing`, `exited` or `dead`.
    pub state: String,
}

impl From<ContainerReportView> for ContainerReport {
    fn from(c: ContainerReportView) -> Self {
        Self {
            booking_id: c.booking_id,
            gpus: c.gpus,
            state: c.state,
        }
    }
}

impl From<ContainerReport> for ContainerReportView {
    fn from(c: ContainerReport) -> Self {
        Self {
            booking_id: c.booking_id,
            gpus: c.gpus,
            state: c.state,
        }
    }
}

/// One GPU's health, as the agent reads it.
#[derive(Debug, Clone, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GpuHealthView {
    /// Its UUID (1–64 letters, digits and `-`).
    pub uuid: String,
    /// Uncorrected ECC errors since the driver loaded; `null` without ECC.
    pub ecc_errors_uncorrected: Option<u64>,
    /// Why its clocks are held down now: `gpu_idle`, `applications_clocks_setting`,
    /// `sw_power_cap`, `hw_slowdown`, `sync_boost`, `sw_thermal_slowdown`,
    /// `hw_thermal_slowdown`, `hw_power_brake_slowdown`, `display_clock_setting`.
    #[serde(default)]
    pub throttle_reasons: Vec<String>,
    /// Whether the driver stays loaded with no client.
    pub persistence_mode: Option<bool>,
    /// Compute processes running on it.
    pub compute_processes: Option<u32>,
}

impl From<GpuHealthView> for GpuHealth {
    fn from(g: GpuHealthView) -> Self {
        Self {
            uuid: g.uuid,
            ecc_errors_uncorrected: g.ecc_errors_uncorrected,
            throttle_reasons: g.throttle_reasons,
            persistence_mode: g.persistence_mode,
            compute_processes: g.compute_processes,
        }
    }
}

impl From<GpuHealth> for GpuHealthView {
    fn from(g: GpuHealth) -> Self {
        Self {
            uuid: g.uuid,
            ecc_errors_uncorrected: g.ecc_errors_uncorrected,
            throttle_reasons: g.throttle_reasons,
            persistence_mode: g.persistence_mode,
            compute_processes: g.compute_processes,
        }
    }
}

/// Whether the listing's agent is heard.
#[derive(Debug, Serialize, ToSchema)]
pub struct PresenceView {
    /// `online` when heard within the last three heartbeats (45 s, `[agent]
    /// agent_silent_after_secs`), else `silent`: its machine is then counted down.
    pub state: &'static str,
    pub last_seen_at: DateTime<Utc>,
    pub agent_version: String,
    /// Each booking's account as the agent last said (kept when it changes, or once a
    /// minute).
    pub accounts: Vec<AccountReportView>,
    /// How far the machine's clock is ahead of the server's (negative: behind), within a
    /// network delay; `null` when the agent does not say its time.
    pub clock_offset_ms: Option<i64>,
    /// Each GPU's health as the agent last said; `null` when it does not read it.
    pub gpus: Option<Vec<GpuHealthView>>,
    /// Each booking's container as the agent last said (its GPUs, its state); `null` when
    /// it runs none.
    pub containers: Option<Vec<ContainerReportView>>,
}

/// `wait` and the `version` the agent holds.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct DesiredQuery {
    /// Seconds to wait for the state to differ from `version` (0–30; default 0: answer at
    /// once).
    #[serde(default)]
    pub wait: u64,
    /// The version the agent holds: the answer comes when the state's differs.
    pub version: Option<String>,
}

/// One booking the machine serves.
#[derive(Debug, Serialize, ToSchema)]
pub struct DesiredBookingView {
    pub booking_id: Uuid,
    /// Its Unix account when it rents the whole machine with direct access; `null`: the
    /// gateway only (bookings that share a machine).
    pub account: Option<String>,
    pub gpu_count: i32,
    /// When access begins.
    pub starts_at: DateTime<Utc>,
    /// The one moment access ends: the booking's end or a maintenance window's start (a
    /// cancelled booking leaves the state).
    pub access_until: DateTime<Utc>,
    /// The renter's SSH public keys (`algorithm base64`), for an account or an entry account
    /// only.
    pub ssh_keys: Vec<String>,
    /// The container to run on the booking's GPUs, with the limits fixed when it was booked
    /// (such a booking gets no account); `null` without one.
    pub container: Option<DesiredContainerView>,
    /// A container booking's *entry account* (`gm-` + 12 hex) when it has direct access: a
    /// Unix account whose every SSH login is forced into the booking's container (`gpumarket
    /// agent enter`), never a shell on the machine; `null` otherwise.
    pub entry_account: Option<String>,
}

/// A booking's container as its machine is to run it.
#[derive(Debug, Serialize, ToSchema)]
pub struct DesiredContainerView {
    /// What the booking asked: `{image, command, env}`.
    pub ask: crate::views::BookingContainerView,
    /// CPU limit, billionths of a CPU (Docker's `NanoCpus`): the listing's
    /// `max_cpus_per_gpu` × the booking's GPUs.
    pub nano_cpus: i64,
    /// Memory limit, bytes: `max_memory_gb_per_gpu` GiB × the booking's GPUs.
    pub memory_bytes: i64,
    /// Whether the root file system may be written.
    pub writable_root: bool,
}

/// A run whose GPU samples the agent is to upload (`POST /listings/{id}/agent/telemetry`),
/// asked only once the run has measured.
#[derive(Debug, Serialize, ToSchema)]
pub struct TelemetryWantedView {
    pub run_id: Uuid,
    /// The window to upload, by the server's clock (the agent corrects for its own).
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

/// The whole desired state of the listing's machine: the bookings giving access now or
/// within `lookahead_secs`, and the runs whose samples are wanted.
#[derive(Debug, Serialize, ToSchema)]
pub struct DesiredView {
    pub listing_id: Uuid,
    /// Changes whenever anything else here does.
    pub version: String,
    pub lookahead_secs: i64,
    pub bookings: Vec<DesiredBookingView>,
    pub telemetry_wanted: Vec<TelemetryWantedView>,
    /// Containers' logs renters asked for: answer each with `POST
    /// /listings/{id}/agent/logs`.
    pub logs_wanted: Vec<LogsWantedView>,
}

/// A container's logs a renter asked for.
#[derive(Debug, Serialize, ToSchema)]
pub struct LogsWantedView {
    pub request_id: Uuid,
    pub booking_id: Uuid,
    /// The last lines to send.
    pub tail: i32,
}

/// The agent's answer to a logs request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ContainerLogsUpload {
    pub request_id: Uuid,
    pub booking_id: Uuid,
    /// What the container wrote (standard output and error), at most 256 KiB.
    pub text: String,
}

impl From<AccountReport> for AccountReportView {
    fn from(a: AccountReport) -> Self {
        Self {
            booking_id: a.booking_id,
            account: a.account,
            state: a.state,
        }
    }
}

impl From<AccountReportView> for AccountReport {
    fn from(a: AccountReportView) -> Self {
        Self {
            booking_id: a.booking_id,
            account: a.account,
            state: a.state,
        }
    }
}

impl From<AgentPresence> for PresenceView {
    fn from(p: AgentPresence) -> Self {
        Self {
            state: if p.online { "online" } else { "silent" },
            last_seen_at: p.last_seen_at,
            agent_version: p.agent_version,
            accounts: p
                .accounts
                .into_iter()
                .map(AccountReportView::from)
                .collect(),
            clock_offset_ms: p.clock_offset_ms,
            gpus: p
                .gpus
                .map(|gpus| gpus.into_iter().map(GpuHealthView::from).collect()),
            containers: p
                .containers
                .map(|c| c.into_iter().map(ContainerReportView::from).collect()),
        }
    }
}

impl From<DesiredBooking> for DesiredBookingView {
    fn from(b: DesiredBooking) -> Self {
        Self {
            booking_id: b.booking_id,
            account: b.account,
            gpu_count: b.gpu_count,
            starts_at: b.starts_at,
            access_until: b.access_until,
            ssh_keys: b.ssh_keys,
            container: b.container.map(|c| DesiredContainerView {
                ask: c.ask.into(),
                nano_cpus: c.nano_cpus,
                memory_bytes: c.memory_bytes,
                writable_root: c.writable_root,
            }),
            entry_account: b.entry_account,
        }
    }
}

impl From<DesiredState> for DesiredView {
    fn from(d: DesiredState) -> Self {
        Self {
            listing_id: d.listing_id,
            version: d.version,
            lookahead_secs: LOOKAHEAD_SECS,
            bookings: d
                .bookings
                .into_iter()
                .map(DesiredBookingView::from)
                .collect(),
            telemetry_wanted: d
                .telemetry_wanted
                .into_iter()
                .map(|t| TelemetryWantedView {
                    run_id: t.run_id,
                    from: t.from,
                    until: t.until,
                })
                .collect(),
            logs_wanted: d
                .logs_wanted
                .into_iter()
                .map(|l| LogsWantedView {
                    request_id: l.request_id,
                    booking_id: l.booking_id,
                    tail: l.tail,
                })
                .collect(),
        }
    }
}

impl From<AgentGpuView> for AgentGpu {
    fn from(g: AgentGpuView) -> Self {
        Self {
            index: g.index,
            uuid: g.uuid,
            name: g.name,
            memory_total_mib: g.memory_total_mib,
            driver_version: g.driver_version,
            pci_bus_id: g.pci_bus_id,
            power_limit_w: g.power_limit_w,
            compute_cap: g.compute_cap,
        }
    }
}

impl From<AgentGpu> for AgentGpuView {
    fn from(g: AgentGpu) -> Self {
        Self {
            index: g.index,
            uuid: g.uuid,
            name: g.name,
            memory_total_mib: g.memory_total_mib,
            driver_version: g.driver_version,
            pci_bus_id: g.pci_bus_id,
            power_limit_w: g.power_limit_w,
            compute_cap: g.compute_cap,
        }
    }
}

impl From<AgentFactsView> for AgentFacts {
    fn from(v: AgentFactsView) -> Self {
        Self {
            gpus: v.gpus.into_iter().map(AgentGpu::from).collect(),
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
    fn of(listing_id: Uuid, state: AgentState, presence: Option<AgentPresence>) -> Self {
        let facts = state.facts;
        Self {
            listing_id,
            source: "agent",
            reported_at: state.reported_at,
            facts: AgentFactsView {
                gpus: facts.gpus.into_iter().map(AgentGpuView::from).collect(),
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
            presence: presence.map(PresenceView::from),
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
    Ok(HttpResponse::Ok().json(AgentView::of(id, state, None)))
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
    let (state, presence) = app
        .listing_agent(caller, id)
        .await?
        .ok_or(app::AppError::NotFound("agent report"))?;
    Ok(HttpResponse::Ok().json(AgentView::of(id, state, presence)))
}

/// Forget the listing's agent (members of the listing's organisation): the machine no longer
/// runs one. Its last report and heartbeat are removed, the listing's hardware shows as
/// claimed again, and its silence no longer counts as downtime. An agent that reports or beats
/// again is heard again (revoke its key to stop it). Refused (409 `hardware_mismatch`) while
/// its last report differs from the claim: forgetting it must not erase that.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "delete_listing_agent",
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    responses(
        (status = 204, description = "Forgotten"),
        Problems<(InvalidToken, Unauthenticated, ScopeRequired, Forbidden, NotFound, HardwareMismatch)>,
    )
)]
#[delete("/listings/{id}/agent")]
pub async fn forget(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    app.forget_listing_agent(caller, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The listing's machine's desired state, for its agent: answered at once when its
/// `version` differs from the one given, else when it changes or `wait` seconds pass (a
/// long-poll; the agent connects outward only). The answer's `Date` header is the server's
/// clock, which the agent sets its own by.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_agent_desired",
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id"), DesiredQuery),
    responses(
        (status = 200, description = "The desired state", body = DesiredView),
        Problems<(InvalidToken, Unauthenticated, ScopeRequired, Forbidden, NotFound, ValidationFailed)>,
    )
)]
#[get("/listings/{id}/agent/desired")]
pub async fn get_desired(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    query: Query<DesiredQuery>,
) -> Result<HttpResponse, ApiError> {
    if query.wait > MAX_WAIT_SECS {
        return Err(app::AppError::from(domain::ValidationError::new(
            "wait",
            format!("at most {MAX_WAIT_SECS} seconds"),
        ))
        .into());
    }
    let state = app
        .agent_desired(
            caller,
            id.into_inner(),
            query.version.as_deref(),
            std::time::Duration::from_secs(query.wait),
        )
        .await?;
    Ok(HttpResponse::Ok().json(DesiredView::from(state)))
}

/// The listing's agent beats (every 15 s): it is heard now; what it says of its accounts is
/// kept when it changes.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "post_agent_heartbeat",
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    request_body = HeartbeatView,
    responses(
        (status = 200, description = "Heard", body = PresenceView),
        Problems<(InvalidToken, Unauthenticated, ScopeRequired, Forbidden, NotFound, ValidationFailed)>,
    )
)]
#[post("/listings/{id}/agent/heartbeat")]
pub async fn post_heartbeat(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    Json(body): Json<HeartbeatView>,
) -> Result<HttpResponse, ApiError> {
    let beat = Heartbeat {
        agent_version: body.agent_version,
        accounts: body.accounts.into_iter().map(AccountReport::from).collect(),
        sent_at: body.sent_at,
        gpus: body
            .gpus
            .map(|gpus| gpus.into_iter().map(GpuHealth::from).collect()),
        containers: body
            .containers
            .map(|c| c.into_iter().map(ContainerReport::from).collect()),
    };
    let presence = app.agent_heartbeat(caller, id.into_inner(), beat).await?;
    Ok(HttpResponse::Ok().json(PresenceView::from(presence)))
}

/// One GPU's samples, in columns (one entry per sample in each).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GpuSamplesView {
    /// Its UUID, as the agent's facts report it.
    pub uuid: String,
    /// When each sample was read, milliseconds since the Unix epoch by the machine's clock,
    /// strictly increasing; at most 6,100 (ten minutes at 10 Hz).
    pub t_ms: Vec<i64>,
    /// Power draw, W (0–5000).
    pub power_w: Vec<f64>,
    /// NVML's total-energy counter, mJ, where the GPU has one.
    #[serde(default)]
    pub energy_mj: Option<Vec<f64>>,
    /// SM clock, MHz.
    #[serde(default)]
    pub sm_clock_mhz: Vec<Option<f64>>,
    /// Temperature, °C.
    #[serde(default)]
    pub temperature_c: Vec<Option<f64>>,
    /// Utilisation, percent.
    #[serde(default)]
    pub utilization_pct: Vec<Option<f64>>,
    /// The most compute processes seen on it over the samples (`null`: not known): the GPUs
    /// with one are the engine's.
    #[serde(default)]
    pub compute_processes: Option<u32>,
}

/// A run's GPU samples, uploaded once the desired state names the run in `telemetry_wanted`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TelemetryView {
    pub run_id: Uuid,
    /// `nvml` or `nvidia-smi`.
    pub source: String,
    /// At most 64 GPUs, each among those the agent's facts report.
    pub gpus: Vec<GpuSamplesView>,
}

impl From<TelemetryView> for domain::energy::Telemetry {
    fn from(t: TelemetryView) -> Self {
        Self {
            run_id: t.run_id,
            source: t.source,
            gpus: t
                .gpus
                .into_iter()
                .map(|g| domain::energy::GpuSamples {
                    uuid: g.uuid,
                    t_ms: g.t_ms,
                    power_w: g.power_w,
                    energy_mj: g.energy_mj,
                    sm_clock_mhz: g.sm_clock_mhz,
                    temperature_c: g.temperature_c,
                    utilization_pct: g.utilization_pct,
                    compute_processes: g.compute_processes,
                })
                .collect(),
        }
    }
}

/// The listing's agent uploads a run's GPU samples (up to 8 MiB), once the desired state
/// asks for them — only after the run has measured. Kept once: an upload repeated after a
/// lost answer changes nothing. The report's energy per token comes from them, labelled
/// `source: agent`.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "post_agent_telemetry",
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    request_body = TelemetryView,
    responses(
        (status = 204, description = "Kept"),
        Problems<(InvalidToken, Unauthenticated, ScopeRequired, Forbidden, NotFound, ValidationFailed)>,
    )
)]
#[post("/listings/{id}/agent/telemetry")]
pub async fn post_telemetry(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    JsonUpTo(body): JsonUpTo<TelemetryView, 8>,
) -> Result<HttpResponse, ApiError> {
    app.agent_telemetry(caller, id.into_inner(), body.into())
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The listing's agent answers a renter's request for its container's logs (named in the
/// desired state's `logs_wanted`): what dockerd kept, at most 256 KiB. 404 when no such request
/// of this listing waits.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "post_agent_logs",
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    request_body = ContainerLogsUpload,
    responses(
        (status = 204, description = "Kept for the renter"),
        Problems<(InvalidToken, Unauthenticated, ScopeRequired, Forbidden, NotFound, ValidationFailed)>,
    )
)]
#[post("/listings/{id}/agent/logs")]
pub async fn post_logs(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    JsonUpTo(body): JsonUpTo<ContainerLogsUpload, 1>,
) -> Result<HttpResponse, ApiError> {
    app.agent_container_logs(
        caller,
        id.into_inner(),
        (body.booking_id, body.request_id),
        &body.text,
    )
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
