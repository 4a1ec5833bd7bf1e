//! The catalogs of GPUs and models, with the figures measured on them (verified and
//! community, apart), and the decode calculator. Public.

pub mod calculator;
pub mod hardware;
pub mod models;

use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

/// A GPU as its vendor publishes it.
#[derive(Debug, Serialize, ToSchema)]
pub struct GpuView {
    /// URL-safe slug, e.g. `rtx-3060-12gb`.
    pub id: String,
    pub name: String,
    pub vendor: String,
    pub vram_gb: f64,
    /// GB/s (10⁹ bytes per second).
    pub memory_bandwidth_gb_s: f64,
    /// Dense FP16 tensor TFLOPS.
    pub fp16_tensor_tflops: f64,
    /// Names a listing's `hardware.gpu_model` may use for it.
    pub aliases: Vec<String>,
    /// The vendor's maximum board power, W (max TDP, total graphics or board power): what an
    /// agent's power samples are judged against.
    pub board_power_w: f64,
    /// Where the board power is published, when not in `source`.
    pub board_power_source: Option<String>,
    /// The datasheet or whitepaper the figures come from.
    pub source: String,
}

impl From<catalog::Gpu> for GpuView {
    fn from(g: catalog::Gpu) -> Self {
        Self {
            id: g.id,
            name: g.name,
            vendor: g.vendor,
            vram_gb: g.vram_gb,
            memory_bandwidth_gb_s: g.memory_bandwidth_gb_s,
            fp16_tensor_tflops: g.fp16_tensor_tflops,
            aliases: g.aliases,
            board_power_w: g.board_power_w,
            board_power_source: g.board_power_source,
            source: g.source,
        }
    }
}

/// A model's architecture, as the calculator uses it.
#[derive(Debug, Serialize, ToSchema)]
pub struct ModelView {
    /// URL-safe slug, e.g. `nvidia-nemotron-nano-12b-v2-awq`.
    pub id: String,
    pub name: String,
    /// Billions of parameters.
    pub parameters_b: f64,
    /// Bits per quantised weight (16: not quantised).
    pub weight_bits: f64,
    /// Billions of parameters kept at 16 bits (the output head of a quantised checkpoint).
    pub unquantized_params_b: f64,
    pub layers: u32,
    /// Layers with a KV cache (fewer than `layers` in hybrid models).
    pub attention_layers: u32,
    pub kv_heads: u32,
    pub head_dim: u32,
    /// Per sequence, over the recurrent (e.g. Mamba) layers.
    pub recurrent_state_bytes: f64,
    /// Bytes of weights one decode step reads.
    pub weight_bytes: f64,
    /// KV-cache bytes per token at 16 bits.
    pub kv_bytes_per_token: f64,
    pub aliases: Vec<String>,
    /// The model card the facts come from.
    pub source: String,
}

impl From<catalog::Model> for ModelView {
    fn from(m: catalog::Model) -> Self {
        Self {
            weight_bytes: m.weight_bytes(),
            kv_bytes_per_token: m.kv_bytes_per_token(),
            id: m.id,
            name: m.name,
            parameters_b: m.parameters_b,
            weight_bits: m.weight_bits,
            unquantized_params_b: m.unquantized_params_b,
            layers: m.layers,
            attention_layers: m.attention_layers,
            kv_heads: m.kv_heads,
            head_dim: m.head_dim,
            recurrent_state_bytes: m.recurrent_state_bytes,
            aliases: m.aliases,
            source: m.source,
        }
    }
}

/// A valid decode cell: of a verified listing's latest report, or of a community run.
#[derive(Debug, Serialize, ToSchema)]
pub struct MeasuredCellView {
    /// `verified` (the platform measured it) or `community` (its submitter did).
    pub source: &'static str,
    pub gpu: String,
    pub model: String,
    /// The verified listing and its report.
    pub listing_id: Option<Uuid>,
    pub report_id: Option<Uuid>,
    /// The community run.
    pub run_id: Option<Uuid>,
    pub context_tokens: i64,
    pub concurrency: i64,
    pub total_tok_s: Option<f64>,
    pub per_request_tok_s: Option<f64>,
    pub ttft_ms: Option<f64>,
}

impl From<app::market::catalogs::MeasuredCell> for MeasuredCellView {
    fn from(c: app::market::catalogs::MeasuredCell) -> Self {
        Self {
            source: "verified",
            gpu: c.catalog_gpu,
            model: c.catalog_model,
            listing_id: Some(c.listing_id),
            report_id: Some(c.report_id),
            run_id: None,
            context_tokens: c.context_tokens,
            concurrency: c.concurrency,
            total_tok_s: c.total_tok_s,
            per_request_tok_s: c.per_request_tok_s,
            ttft_ms: c.ttft_ms,
        }
    }
}

impl MeasuredCellView {
    /// A community run's cell.
    pub fn community(c: &app::market::catalogs::CommunityMeasuredCell) -> Self {
        Self {
            source: "community",
            gpu: c.catalog_gpu.clone(),
            model: c.catalog_model.clone(),
            listing_id: None,
            report_id: None,
            run_id: Some(c.run_id),
            context_tokens: c.cell.context_tokens as i64,
            concurrency: c.cell.concurrency as i64,
            total_tok_s: c.cell.total_tok_s,
            per_request_tok_s: c.cell.per_request_tok_s,
            ttft_ms: c.cell.ttft_ms_median,
        }
    }

    /// Verified cells first, then community runs' (`source` tells which).
    pub fn all(measured: app::market::catalogs::Measured) -> Vec<Self> {
        let community: Vec<Self> = measured.community.iter().map(Self::community).collect();
        measured
            .verified
            .into_iter()
            .map(Self::from)
            .chain(community)
            .collect()
    }
}
