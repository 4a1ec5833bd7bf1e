//! Catalogs of GPUs and models — committed data files (`data/*.toml`), each row citing its
//! source — and the decode calculator: a memory-bandwidth roofline, the same formula and
//! constants for every GPU.
//!
//! One decode step of `B` streams at context `C` reads every weight once and each stream's
//! KV cache and recurrent state:
//!
//! ```text
//! bytes  = weights read + B × (C × KV bytes per token + recurrent state bytes)
//! time   = max(bytes ÷ (EFFICIENCY × bandwidth), B × 2 × parameters ÷ (EFFICIENCY × FP16 tensor FLOPS))
//! per-stream tok/s = 1 ÷ time        total tok/s = B ÷ time
//! ```
//!
//! The physical bound a verified figure may not beat is the same with an efficiency of 1
//! (everything the memory can deliver), plus [`ROOFLINE_MARGIN`] for what the catalog leaves
//! out.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The share of peak memory bandwidth (and tensor throughput) a decode step achieves: one
/// constant for every GPU, never fitted per case.
pub const EFFICIENCY: f64 = 0.8;
/// Bytes of one KV-cache element (FP16/BF16, vLLM's default `--kv-cache-dtype auto`).
pub const KV_BYTES_PER_ELEMENT: f64 = 2.0;
/// The share of the GPU's memory the engine takes (vLLM's default `--gpu-memory-utilization`).
pub const GPU_MEMORY_UTILIZATION: f64 = 0.9;
/// Output tokens each stream may still write: the standard profile's `max_output`.
pub const OUTPUT_TOKENS: u64 = 8192;
/// How far a measured total may exceed the physical bound before the report is refused
/// (`exceeds_hardware_roofline`): the bound ignores quantisation scales, activations and
/// anything else a step also reads, so it is already generous.
pub const ROOFLINE_MARGIN: f64 = 0.25;

/// A GPU as its vendor publishes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    /// URL-safe slug, e.g. `rtx-3060-12gb`.
    pub id: String,
    pub name: String,
    pub vendor: String,
    pub vram_gb: f64,
    /// GB/s (10⁹ bytes per second).
    pub memory_bandwidth_gb_s: f64,
    /// Dense FP16 tensor TFLOPS.
    pub fp16_tensor_tflops: f64,
    /// Names a listing's `gpu_model` may use for it.
    pub aliases: Vec<String>,
    /// The vendor's maximum board power, W (max TDP, total graphics or board power).
    pub board_power_w: f64,
    /// Where the board power is published, when not in `source`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board_power_source: Option<String>,
    /// The datasheet or whitepaper the figures come from.
    pub source: String,
}

/// A model's architecture, as its config states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    pub id: String,
    pub name: String,
    pub parameters_b: f64,
    pub weight_bits: f64,
    pub unquantized_params_b: f64,
    pub layers: u32,
    pub attention_layers: u32,
    pub kv_heads: u32,
    pub head_dim: u32,
    pub recurrent_state_bytes: f64,
    pub aliases: Vec<String>,
    pub source: String,
}

impl Model {
    /// Bytes of weights read by one decode step.
    pub fn weight_bytes(&self) -> f64 {
        let quantized = (self.parameters_b - self.unquantized_params_b) * 1e9;
        quantized * self.weight_bits / 8.0 + self.unquantized_params_b * 1e9 * 2.0
    }

    /// KV-cache bytes of one token over every attention layer (keys and values).
    pub fn kv_bytes_per_token(&self) -> f64 {
        2.0 * f64::from(self.attention_layers)
            * f64::from(self.kv_heads)
            * f64::from(self.head_dim)
            * KV_BYTES_PER_ELEMENT
    }

    /// Bytes one decode step reads for `concurrency` streams at `context` tokens.
    pub fn bytes_per_step(&self, context: u64, concurrency: u64) -> f64 {
        self.weight_bytes()
            + concurrency as f64
                * (context as f64 * self.kv_bytes_per_token() + self.recurrent_state_bytes)
    }
}

/// What the calculator predicts for one cell.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Prediction {
    pub per_stream_tok_s: f64,
    pub total_tok_s: f64,
    /// Whether memory bandwidth (not tensor throughput) bounds the step.
    pub memory_bound: bool,
}

/// Decode tok/s of `concurrency` streams at `context` tokens, by the roofline at
/// `efficiency` of the GPU's peaks.
fn roofline(
    gpu: &Gpu,
    model: &Model,
    context: u64,
    concurrency: u64,
    efficiency: f64,
) -> Prediction {
    let concurrency = concurrency.max(1);
    let memory =
        model.bytes_per_step(context, concurrency) / (efficiency * gpu.memory_bandwidth_gb_s * 1e9);
    let compute = concurrency as f64 * 2.0 * model.parameters_b * 1e9
        / (efficiency * gpu.fp16_tensor_tflops * 1e12);
    let step = memory.max(compute);
    Prediction {
        per_stream_tok_s: 1.0 / step,
        total_tok_s: concurrency as f64 / step,
        memory_bound: memory >= compute,
    }
}

/// The calculator's prediction (at [`EFFICIENCY`]).
pub fn predict_decode(gpu: &Gpu, model: &Model, context: u64, concurrency: u64) -> Prediction {
    roofline(gpu, model, context, concurrency, EFFICIENCY)
}

/// The most total tok/s physics allows: the roofline at full efficiency, plus
/// [`ROOFLINE_MARGIN`].
pub fn physical_limit_total_tok_s(gpu: &Gpu, model: &Model, context: u64, concurrency: u64) -> f64 {
    roofline(gpu, model, context, concurrency, 1.0).total_tok_s * (1.0 + ROOFLINE_MARGIN)
}

/// The most streams whose KV cache (context plus [`OUTPUT_TOKENS`]) and recurrent state fit
/// beside the weights in the engine's share of the GPU's memory.
pub fn max_concurrency(gpu: &Gpu, model: &Model, context: u64) -> u64 {
    let budget = gpu.vram_gb * 1e9 * GPU_MEMORY_UTILIZATION - model.weight_bytes();
    let per_stream =
        (context + OUTPUT_TOKENS) as f64 * model.kv_bytes_per_token() + model.recurrent_state_bytes;
    if budget <= 0.0 || per_stream <= 0.0 {
        return 0;
    }
    (budget / per_stream).floor() as u64
}

/// What the roofline predicts for a GPU at a service-level objective (prompts of `context`
/// tokens, TTFT p99 ≤ X ms, stutter p99 ≤ Y ms): the capacity planner's row where no verified
/// report exists.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SloPrediction {
    /// Users (streams) one machine serves at the SLO; 0 when even one is not served.
    pub users: u64,
    /// Per-stream tok/s at that load (at one stream when none is served).
    pub per_stream_tok_s: f64,
    /// Total tok/s at that load (0 when none is served).
    pub total_tok_s: f64,
    /// A fresh prompt's prefill: compute-bound, 2 × parameters × K ÷ the usable FLOPS.
    pub ttft_ms: f64,
    /// The gap between tokens: 1000 ÷ per-stream tok/s.
    pub stutter_ms: f64,
}

/// Milliseconds to prefill `context` fresh tokens, compute-bound at [`EFFICIENCY`] of the
/// GPU's FP16 tensor throughput.
pub fn prefill_ms(gpu: &Gpu, model: &Model, context: u64) -> f64 {
    2.0 * model.parameters_b * 1e9 * context as f64 / (EFFICIENCY * gpu.fp16_tensor_tflops * 1e12)
        * 1000.0
}

/// The most users one machine serves at the SLO by the roofline: the largest concurrency whose
/// KV cache fits ([`max_concurrency`]) and whose per-stream speed keeps the gap between tokens
/// within `itl_p99_ms`, when a fresh prompt's prefill is within `ttft_p99_ms`. Per-stream speed
/// only falls as streams are added, so the largest is found by bisection.
pub fn predict_at_slo(
    gpu: &Gpu,
    model: &Model,
    context: u64,
    ttft_p99_ms: f64,
    itl_p99_ms: f64,
) -> SloPrediction {
    let ttft_ms = prefill_ms(gpu, model, context);
    let at = |concurrency: u64| predict_decode(gpu, model, context, concurrency);
    let meets = |concurrency: u64| 1000.0 / at(concurrency).per_stream_tok_s <= itl_p99_ms;
    let most = max_concurrency(gpu, model, context);
    let users = if ttft_ms > ttft_p99_ms || most == 0 || !meets(1) {
        0
    } else {
        let (mut low, mut high) = (1, most);
        while low < high {
            let middle = low + (high - low).div_ceil(2);
            if meets(middle) {
                low = middle;
            } else {
                high = middle - 1;
            }
        }
        low
    };
    let shown = at(users.max(1));
    SloPrediction {
        users,
        per_stream_tok_s: shown.per_stream_tok_s,
        total_tok_s: if users > 0 { shown.total_tok_s } else { 0.0 },
        ttft_ms,
        stutter_ms: 1000.0 / shown.per_stream_tok_s,
    }
}

#[derive(Debug, Deserialize)]
struct GpuFile {
    gpu: Vec<Gpu>,
}

#[derive(Debug, Deserialize)]
struct ModelFile {
    model: Vec<Model>,
}

/// Both catalogs.
#[derive(Debug)]
pub struct Catalog {
    pub gpus: Vec<Gpu>,
    pub models: Vec<Model>,
}

#[derive(Debug, Clone, thiserror::Error)]
#[error("the committed catalog does not parse: {0}")]
pub struct CatalogError(String);

fn parse() -> Result<Catalog, CatalogError> {
    let gpus: GpuFile = toml::from_str(include_str!("../data/gpus.toml"))
        .map_err(|e| CatalogError(format!("gpus.toml: {e}")))?;
    let models: ModelFile = toml::from_str(include_str!("../data/models.toml"))
        .map_err(|e| CatalogError(format!("models.toml: {e}")))?;
    Ok(Catalog {
        gpus: gpus.gpu,
        models: models.model,
    })
}

impl Catalog {
    /// The committed catalogs (parsed once).
    pub fn get() -> Result<&'static Catalog, CatalogError> {
        static CATALOG: OnceLock<Result<Catalog, CatalogError>> = OnceLock::new();
        CATALOG.get_or_init(parse).as_ref().map_err(Clone::clone)
    }

    pub fn gpu(&self, id: &str) -> Option<&Gpu> {
        self.gpus.iter().find(|g| g.id == id)
    }

    /// The GPU a person names: its id, name or one of its aliases, in any case.
    pub fn gpu_named(&self, name: &str) -> Option<&Gpu> {
        self.gpus.iter().find(|g| {
            g.id.eq_ignore_ascii_case(name)
                || g.name.eq_ignore_ascii_case(name)
                || g.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
        })
    }

    pub fn model(&self, id: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.id == id)
    }

    /// The model a person names: its id, name or one of its aliases, in any case.
    pub fn model_named(&self, name: &str) -> Option<&Model> {
        self.models.iter().find(|m| {
            m.id.eq_ignore_ascii_case(name)
                || m.name.eq_ignore_ascii_case(name)
                || m.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slug(id: &str) -> bool {
        !id.is_empty()
            && id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    }

    #[test]
    fn the_catalogs_parse_with_unique_slugs_and_sources() {
        let catalog = Catalog::get().unwrap();
        assert!(catalog.gpus.len() >= 40, "{}", catalog.gpus.len());
        assert!(catalog.models.len() >= 5);
        let mut ids: Vec<&str> = catalog.gpus.iter().map(|g| g.id.as_str()).collect();
        ids.extend(catalog.models.iter().map(|m| m.id.as_str()));
        let count = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), count, "ids are unique");
        for gpu in &catalog.gpus {
            assert!(slug(&gpu.id), "{}", gpu.id);
            assert!(gpu.source.starts_with("https://"), "{}", gpu.id);
            assert!(
                gpu.vram_gb > 0.0
                    && gpu.memory_bandwidth_gb_s > 0.0
                    && gpu.fp16_tensor_tflops > 0.0
            );
            // Every board's power, cited: from 70 W (T4, L4's 72) to 750 W (MI300X).
            assert!((70.0..=750.0).contains(&gpu.board_power_w), "{}", gpu.id);
            assert!(
                gpu.board_power_source
                    .as_ref()
                    .is_none_or(|s| s.starts_with("https://")),
                "{}",
                gpu.id
            );
        }
        for model in &catalog.models {
            assert!(slug(&model.id), "{}", model.id);
            assert!(
                model.source.starts_with("https://huggingface.co/"),
                "{}",
                model.id
            );
            assert!(model.attention_layers <= model.layers);
        }
        assert_eq!(
            catalog.gpu("rtx-3060-12gb").unwrap().memory_bandwidth_gb_s,
            360.0
        );
    }

    /// The planner's prediction for the reference pair: one stream at the page's ~40 tok/s
    /// (within a quarter), as many users as the stutter limit and the memory allow.
    #[test]
    fn an_slo_is_predicted_from_the_roofline() {
        let catalog = Catalog::get().unwrap();
        let gpu = catalog.gpu("rtx-3060-12gb").unwrap();
        let model = catalog.model("nvidia-nemotron-nano-12b-v2-awq").unwrap();
        let loose = predict_at_slo(gpu, model, 8192, 10_000.0, 1000.0);
        assert_eq!(loose.users, max_concurrency(gpu, model, 8192));
        // A limit of exactly one stream's gap serves one user, at the page's speed.
        let single = predict_decode(gpu, model, 0, 1).per_stream_tok_s;
        let one = predict_at_slo(gpu, model, 0, 10_000.0, 1000.0 / single);
        assert_eq!(one.users, 1, "{one:?}");
        assert!((one.per_stream_tok_s / 40.3 - 1.0).abs() < 0.25, "{one:?}");
        assert!((one.stutter_ms - 1000.0 / one.per_stream_tok_s).abs() < 1e-9);
        // A limit between one stream's gap and the fullest machine's: the largest load within
        // it, one more stream would break it.
        let most = max_concurrency(gpu, model, 8192);
        let gap = |c| 1000.0 / predict_decode(gpu, model, 8192, c).per_stream_tok_s;
        let limit = (gap(1) + gap(most)) / 2.0;
        let some = predict_at_slo(gpu, model, 8192, 10_000.0, limit);
        assert!(some.users >= 1 && some.users < most, "{some:?}");
        assert!(some.stutter_ms <= limit, "{some:?}");
        let more = predict_decode(gpu, model, 8192, some.users + 1);
        assert!(1000.0 / more.per_stream_tok_s > limit, "{some:?} {more:?}");
        // A fresh 8K prompt, compute-bound: 2 × parameters × tokens over the usable FLOPS.
        let ttft = 2.0 * model.parameters_b * 1e9 * 8192.0
            / (EFFICIENCY * gpu.fp16_tensor_tflops * 1e12)
            * 1000.0;
        assert!((some.ttft_ms - ttft).abs() < 1e-9);
        let too_soon = predict_at_slo(gpu, model, 8192, ttft * 0.9, limit);
        assert_eq!((too_soon.users, too_soon.total_tok_s), (0, 0.0));
    }

    /// The reference page: NVIDIA-Nemotron-Nano-12B-v2-AWQ-4bit on an RTX 3060 12GB, one
    /// stream: 40.3 tok/s at 0K, 34.5 tok/s at 32K.
    #[test]
    fn the_reference_pair_lands_within_a_quarter_of_the_page() {
        let catalog = Catalog::get().unwrap();
        let gpu = catalog.gpu("rtx-3060-12gb").unwrap();
        let model = catalog.model("nvidia-nemotron-nano-12b-v2-awq").unwrap();
        for (context, measured) in [(0, 40.3), (32768, 34.5)] {
            let predicted = predict_decode(gpu, model, context, 1);
            let off = predicted.per_stream_tok_s / measured - 1.0;
            assert!(
                off.abs() < 0.25,
                "{context}: {predicted:?} vs {measured} ({off:+.2})"
            );
            assert!(predicted.memory_bound);
            // The page's figures are physically possible; three times them is not.
            let limit = physical_limit_total_tok_s(gpu, model, context, 1);
            assert!(measured < limit && 3.0 * measured > limit, "{limit}");
        }
        // More streams share the weight reads: total grows, per stream falls.
        let four = predict_decode(gpu, model, 0, 4);
        let one = predict_decode(gpu, model, 0, 1);
        assert!(
            four.total_tok_s > 3.0 * one.total_tok_s
                && four.per_stream_tok_s < one.per_stream_tok_s
        );
        // Fewer streams fit at longer contexts; none when the weights alone do not fit.
        assert!(max_concurrency(gpu, model, 0) > max_concurrency(gpu, model, 81920));
        let big = catalog.model("meta-llama-3-1-70b-instruct").unwrap();
        assert_eq!(max_concurrency(gpu, big, 0), 0);
    }
}
