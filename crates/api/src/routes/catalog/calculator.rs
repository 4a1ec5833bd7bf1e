use actix_web::{HttpResponse, get, web};
use app::App;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::MeasuredCellView;
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, ValidationFailed};
use crate::extract::Query;

#[derive(Debug, Deserialize, IntoParams)]
pub struct CalculatorQuery {
    /// A GPU's catalog id (`GET /v1/hardware`).
    pub gpu: String,
    /// A model's catalog id (`GET /v1/models`).
    pub model: String,
    /// Context tokens per stream (default 0).
    pub context: Option<i64>,
    /// Streams decoding at once (default 1).
    pub concurrency: Option<i64>,
    /// The price of electricity, minor units per MWh: `energy` then prices the GPU's energy
    /// per hour and per million tokens.
    pub electricity_per_mwh: Option<i64>,
}

/// The GPU's energy at the predicted speed, from its board power: a ceiling (a GPU draws at
/// most its board power; what one machine measured is in its report, `source: agent`).
#[derive(Debug, Serialize, ToSchema)]
pub struct EnergyEstimateView {
    /// The catalog's board power, W.
    pub board_power_w: f64,
    /// Board power ÷ the predicted total tok/s, J per output token: at most this.
    pub j_per_token_ceiling: f64,
    /// With `electricity_per_mwh`: the board power's cost per hour, minor units.
    pub cost_per_hour: Option<f64>,
    /// With `electricity_per_mwh`: the ceiling's cost per million output tokens, minor units.
    pub cost_per_mtok: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PredictedView {
    pub per_stream_tok_s: f64,
    pub total_tok_s: f64,
    /// Whether memory bandwidth (not tensor throughput) bounds a step.
    pub memory_bound: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct FormulaView {
    /// Share of peak bandwidth and tensor throughput achieved, the same for every GPU.
    pub efficiency: f64,
    /// Bytes one decode step reads: weights + concurrency × (context × KV bytes per token +
    /// recurrent state).
    pub bytes_per_step: f64,
    pub kv_bytes_per_token: f64,
    /// Tokens each stream may still write when counting what fits (the standard's output).
    pub output_tokens: u64,
    /// Share of the GPU's memory the engine takes.
    pub gpu_memory_utilization: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DecodeEstimateView {
    pub gpu: String,
    pub model: String,
    pub context: u64,
    pub concurrency: u64,
    pub predicted: PredictedView,
    /// The most streams whose KV cache fits at this context.
    pub max_concurrency: u64,
    /// What no measurement may exceed: the roofline at full bandwidth plus the margin
    /// verification allows (`exceeds_hardware_roofline`).
    pub physical_limit_total_tok_s: f64,
    pub formula: FormulaView,
    /// Figures measured for this pair at this cell: verified ones first, then community
    /// runs (`source` tells which).
    pub measured: Vec<MeasuredCellView>,
    pub energy: EnergyEstimateView,
}

/// Predicted decode speed of a model on a GPU at one context and concurrency, from the
/// memory-bandwidth roofline (the formula and constants are in `formula`), beside what
/// verified listings measured there. Public.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "estimate_decode", 
    tag = "catalog",
    params(CalculatorQuery),
    responses(
        (status = 200, description = "The estimate and the measured figures", body = DecodeEstimateView),
        Problems<(InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/calculator/decode")]
pub async fn decode(
    app: web::Data<App>,
    query: Query<CalculatorQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let per_mwh =
        domain::energy::electricity_price(q.electricity_per_mwh).map_err(app::AppError::from)?;
    let e = app
        .decode_estimate(
            &q.gpu,
            &q.model,
            q.context.unwrap_or(0),
            q.concurrency.unwrap_or(1),
        )
        .await?;
    Ok(HttpResponse::Ok().json(DecodeEstimateView {
        formula: FormulaView {
            efficiency: catalog::EFFICIENCY,
            bytes_per_step: e.model.bytes_per_step(e.context, e.concurrency),
            kv_bytes_per_token: e.model.kv_bytes_per_token(),
            output_tokens: catalog::OUTPUT_TOKENS,
            gpu_memory_utilization: catalog::GPU_MEMORY_UTILIZATION,
        },
        gpu: e.gpu.id,
        model: e.model.id,
        context: e.context,
        concurrency: e.concurrency,
        predicted: PredictedView {
            per_stream_tok_s: e.predicted.per_stream_tok_s,
            total_tok_s: e.predicted.total_tok_s,
            memory_bound: e.predicted.memory_bound,
        },
        max_concurrency: e.max_concurrency,
        physical_limit_total_tok_s: e.physical_limit_total_tok_s,
        measured: MeasuredCellView::all(e.measured),
        energy: {
            let board = e.gpu.board_power_w;
            let ceiling = domain::energy::round_sig(board / e.predicted.total_tok_s.max(1e-9), 5);
            EnergyEstimateView {
                board_power_w: board,
                j_per_token_ceiling: ceiling,
                cost_per_hour: per_mwh.map(|p| domain::energy::energy_cost_per_hour(board, p)),
                cost_per_mtok: per_mwh.map(|p| domain::energy::energy_cost_per_mtok(ceiling, p)),
            }
        },
    }))
}
