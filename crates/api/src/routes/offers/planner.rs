use actix_web::{HttpResponse, get, web};
use app::App;
use app::market::planner::{Planner, PlannerParams, PlannerRow, Source};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, ValidationFailed};
use crate::extract::Query;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PlannerQuery {
    /// A model of the catalog: its id, name or alias (`GET /v1/models`).
    pub model: Option<String>,
    /// The longest prompt, tokens.
    pub context: Option<i64>,
    /// Users to serve at once (1–10,000).
    pub users: Option<i64>,
    /// The first token within this many ms for 99 in 100 requests.
    pub ttft_p99_ms: Option<f64>,
    /// No gap between tokens longer than this many ms for 99 in 100 tokens.
    pub itl_p99_ms: Option<f64>,
    /// The price of electricity, minor units per MWh (in the prices' currency): each row
    /// then shows its energy cost per hour and per million tokens beside the rent.
    pub electricity_per_mwh: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlannerGpuView {
    pub id: String,
    pub name: String,
    pub vram_gb: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlannerRowView {
    pub gpu: PlannerGpuView,
    /// `measured` (verified listings of this GPU and model: the one that serves the most) or
    /// `predicted` (the roofline, for one GPU).
    pub source: &'static str,
    /// With `measured`: how many verified listings of this GPU serve the model.
    pub listings: Option<usize>,
    /// Users one machine serves within the objective (0: none).
    pub users: u64,
    /// The machine's GPUs (1 when predicted).
    pub gpu_count: i32,
    /// Machines of this kind it takes for the users asked for (`null`: it serves none).
    pub machines_needed: Option<u64>,
    /// TTFT p99 for a fresh prompt of the objective's context at that load, estimated: when
    /// measured, the cell's TTFT p99 plus the prompt's prefill at the measured rate; when
    /// predicted, the roofline's compute-bound prefill (2 × parameters × context ÷ usable
    /// FLOPS).
    pub ttft_ms_p99_estimated: Option<f64>,
    /// The gap between tokens at that load, ms: the cell's p99 when measured, 1000 ÷
    /// per-stream tok/s when predicted.
    pub stutter_ms: Option<f64>,
    pub per_stream_tok_s: Option<f64>,
    pub total_tok_s: f64,
    /// The machine's GPU power at that load, W: measured rows, the cell's energy per token ×
    /// its tok/s as the machine's agent sampled it; predicted rows, the catalog's board
    /// power (a ceiling). `null` for a measured row without energy.
    pub power_w: Option<f64>,
    /// `agent` or `board_power`.
    pub power_source: Option<&'static str>,
    /// Energy per output token at that load, J (a ceiling with `board_power`).
    pub energy_j_per_token: Option<f64>,
    /// With `electricity_per_mwh`: the GPUs' energy cost per hour, minor units (GPU energy
    /// only: not the CPU, fans or power-supply losses).
    pub energy_cost_per_hour: Option<f64>,
    /// With `electricity_per_mwh`: the energy cost per million output tokens, minor units.
    pub energy_cost_per_mtok: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlannerView {
    pub model: PlannerGpuModelView,
    pub context: u64,
    pub users: u64,
    pub ttft_p99_ms: f64,
    pub itl_p99_ms: f64,
    /// Every GPU of the catalog: measured rows first, then predicted; each by users served.
    pub items: Vec<PlannerRowView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PlannerGpuModelView {
    pub id: String,
    pub name: String,
}

impl From<PlannerRow> for PlannerRowView {
    fn from(r: PlannerRow) -> Self {
        let (source, listings) = match r.source {
            Source::Measured { listings } => ("measured", Some(listings)),
            Source::Predicted => ("predicted", None),
        };
        Self {
            gpu: PlannerGpuView {
                id: r.gpu.id,
                name: r.gpu.name,
                vram_gb: r.gpu.vram_gb,
            },
            source,
            listings,
            users: r.users,
            gpu_count: r.gpu_count,
            machines_needed: r.machines_needed,
            ttft_ms_p99_estimated: r.ttft_ms,
            stutter_ms: r.stutter_ms,
            per_stream_tok_s: r.per_stream_tok_s,
            total_tok_s: r.total_tok_s,
            power_w: r.power.map(|(w, _)| w),
            power_source: r.power.map(|(_, source)| source),
            energy_j_per_token: r.energy_j_per_token,
            energy_cost_per_hour: r.energy_cost_per_hour,
            energy_cost_per_mtok: r.energy_cost_per_mtok,
        }
    }
}

impl From<Planner> for PlannerView {
    fn from(p: Planner) -> Self {
        Self {
            model: PlannerGpuModelView {
                id: p.model.id,
                name: p.model.name,
            },
            context: p.context,
            users: p.users,
            ttft_p99_ms: p.ttft_p99_ms,
            itl_p99_ms: p.itl_p99_ms,
            items: p.rows.into_iter().map(PlannerRowView::from).collect(),
        }
    }
}

impl From<PlannerQuery> for PlannerParams {
    fn from(q: PlannerQuery) -> Self {
        Self {
            model: q.model,
            context: q.context,
            users: q.users,
            ttft_p99_ms: q.ttft_p99_ms,
            itl_p99_ms: q.itl_p99_ms,
            electricity_per_mwh: q.electricity_per_mwh,
        }
    }
}

/// The capacity planner: per GPU of the catalog, the users one machine serves within a
/// service-level objective for a model of the catalog — measured where verified listings of
/// that GPU and model exist, the decode calculator's roofline prediction where none do — and
/// how many machines it takes. Public.
#[utoipa::path(extensions(("x-rate-class" = json!("search"))), operation_id = "capacity_planner",
    tag = "catalog",
    params(PlannerQuery),
    responses(
        (status = 200, description = "Every GPU of the catalog at the objective", body = PlannerView),
        Problems<(InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/planner")]
pub async fn planner(
    app: web::Data<App>,
    query: Query<PlannerQuery>,
) -> Result<HttpResponse, ApiError> {
    let planner = app.planner(query.into_inner().into()).await?;
    Ok(HttpResponse::Ok().json(PlannerView::from(planner)))
}
