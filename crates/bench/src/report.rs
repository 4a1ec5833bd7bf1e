//! The report: what `gpumarket bench --out` writes and what a verified listing carries as the
//! predicate of its signed statement. Field names follow the contract and the reference JSON.

use std::fmt::Write;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Digest;

use crate::params::Parameters;

/// The standard this report follows.
pub const STANDARD: &str = "standard/2";

/// A cell's verdict: the domain's, so a report's statuses and the stored cells' are one type.
pub use domain::CellStatus as Status;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub standard: String,
    pub parameters: Parameters,
    pub engine: EngineFacts,
    /// Hardware as claimed by the listing and as observed; the harness itself observes none,
    /// the verification worker fills in the claim.
    pub hardware: Value,
    pub prefill: Vec<PrefillEntry>,
    pub decode: Vec<DecodeCell>,
    pub compliance: Compliance,
    pub harness: Harness,
    pub evidence: Evidence,
    /// The run was stopped before its end; what was measured is here.
    pub partial: bool,
    pub started_at: String,
    pub finished_at: String,
    /// What the run cost the server (reports from before the figure have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// Where the cells' energy figures come from: the platform fills it from its agent's
    /// samples when it signs (the command line's own reports have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub energy: Option<Energy>,
}

/// Where a report's energy figures come from: the GPUs the provider's agent sampled (its
/// word, `source: agent`), and their summed power while idle before the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Energy {
    pub source: String,
    /// What the agent read the GPUs through: `nvml` or `nvidia-smi` (reports from before
    /// the field have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler: Option<String>,
    /// The GPUs counted (their UUIDs as the agent reported them).
    pub gpus: Vec<String>,
    /// Their summed mean power over the seconds before the run's first request, W.
    pub idle_power_w: Option<f64>,
}

/// What a verification costs: the wall time of the run, the server time it took (seconds
/// with at least one of the harness's requests open: what the provider's GPU spent on it),
/// and the decode cells run and skipped as over capacity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    pub wall_s: f64,
    pub gpu_s_estimate: f64,
    pub cells_run: u64,
    pub cells_skipped: u64,
}

/// What the server said about itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EngineFacts {
    pub name: String,
    pub version: Option<String>,
    /// Where the engine was reached. The command line's own reports keep it; the platform's
    /// signed reports never carry it (it would hand out the provider's engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    pub model: String,
    pub max_model_len: Option<u64>,
    pub kv_cache_tokens: Option<u64>,
    /// `kv_cache_size_tokens` or `num_gpu_blocks*block_size`.
    pub kv_cache_source: Option<String>,
    /// The KV cache configuration's labels as the engine printed them (vLLM: its cache
    /// config info gauge).
    pub cache_config: Option<Value>,
    /// The requests the engine runs at once when it has a fixed number of slots, each with
    /// its own cache (llama.cpp's `/props` `total_slots`): the capacity rule counts at most
    /// that many. Absent for an engine that admits requests while its cache has room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<u64>,
    /// SHA-256 over what identifies the engine (name, version, model, `max_model_len`, KV
    /// cache size): the same engine answers with the same fingerprint, a swapped one rarely.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
}

impl EngineFacts {
    /// The fingerprint of these facts (see [`EngineFacts::fingerprint`]).
    pub fn compute_fingerprint(&self) -> String {
        let identity = serde_json::json!([
            self.name,
            self.version,
            self.model,
            self.max_model_len,
            self.kv_cache_tokens,
        ]);
        hex::encode(sha2::Sha256::digest(identity.to_string().as_bytes()))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrefillEntry {
    pub context_tokens: u64,
    pub concurrency: u64,
    pub status: Status,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub reasons: Vec<String>,
    /// Median over the repeats of prompt tokens per second of prefill.
    pub prompt_tok_s: Option<f64>,
    /// Median time to first token.
    pub ttft_ms: Option<f64>,
    pub prompt_tokens: Option<u64>,
    pub repeats: Vec<PrefillRepeat>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrefillRepeat {
    pub prompt_tokens: u64,
    pub ttft_ms: f64,
    pub prefill_s: f64,
    /// `server_histogram` (the prefill-time histogram's sum) or `ttft_minus_idle`.
    pub prefill_source: String,
    pub prefix_cache_hits: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecodeCell {
    pub context_tokens: u64,
    pub concurrency: u64,
    pub status: Status,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub reasons: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub total_tok_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub per_request_tok_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ttft_ms_median: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ttft_ms_p99: Option<f64>,
    /// How many requests `ttft_ms_*` are over: those started on an idle slot.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ttft_samples: Option<u64>,
    /// 1000 ÷ `per_request_tok_s`, as the reference page defines time between tokens
    /// (`standard/1` reports carried the median of per-chunk gaps here).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tbt_ms_median: Option<f64>,
    /// The client-side inter-token gaps, per token (delivery jitter, not the server's pace).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub itl_ms_p50: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub itl_ms_p99: Option<f64>,
    /// Output tokens ÷ token-bearing chunks inside the window (1.0 for an engine that streams
    /// every token; more with speculative decoding or a stream interval). Reported from the
    /// third wave on: the gateway holds a provider to the chunking it showed when verified.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tokens_per_chunk: Option<f64>,
    /// Time-weighted mean of the server's `num_requests_running` over the window.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub avg_active_requests: Option<f64>,
    /// The client's own time-weighted count of requests in flight, beside the server's.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub client_in_flight: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub completed_requests: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub measured_s: Option<f64>,
    /// Seconds from starting the streams to the window's start (readiness or saturation).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub readiness_s: Option<f64>,
    /// The half-width of the 95 % confidence interval of `total_tok_s` reached by the end of
    /// the window (batch means), in percent of the estimate: an adaptive window ends once it
    /// is within 1 (standard, "Cost").
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub window_half_width_pct: Option<f64>,
    /// `generation_tokens_total` delta between the first and last `/metrics` samples inside
    /// the window ...
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub server_generation_tokens: Option<f64>,
    /// ... and the client's tokens received between the same two samples.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub client_generation_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub preemptions: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub max_waiting: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub client: Option<ClientLoad>,
    /// When the measuring window started, by the harness's clock (RFC 3339): what the GPUs'
    /// samples are aligned with.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub window_started_at: Option<String>,
    /// The engine's GPUs' mean power over the window, summed over them, W (the agent's samples).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mean_power_w: Option<f64>,
    /// Their energy over the window ÷ its generated tokens, J (only when `energy_status` is `ok`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub energy_j_per_token: Option<f64>,
    /// `ok`, `implausible_power` or `unavailable` (the cell's `status` is untouched by it).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub energy_status: Option<String>,
}

impl DecodeCell {
    /// A cell that was not run, with its status and why.
    pub fn not_run(context_tokens: u64, concurrency: u64, status: Status, reason: String) -> Self {
        Self {
            context_tokens,
            concurrency,
            status,
            reasons: vec![reason],
            total_tok_s: None,
            per_request_tok_s: None,
            ttft_ms_median: None,
            ttft_ms_p99: None,
            ttft_samples: None,
            tbt_ms_median: None,
            itl_ms_p50: None,
            itl_ms_p99: None,
            tokens_per_chunk: None,
            avg_active_requests: None,
            client_in_flight: None,
            completed_requests: None,
            output_tokens: None,
            measured_s: None,
            readiness_s: None,
            window_half_width_pct: None,
            server_generation_tokens: None,
            client_generation_tokens: None,
            preemptions: None,
            max_waiting: None,
            client: None,
            window_started_at: None,
            mean_power_w: None,
            energy_j_per_token: None,
            energy_status: None,
        }
    }
}

/// How hard the measuring client itself worked during a window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientLoad {
    /// 99th percentile of the client's scheduling lag: how long a ready task waited for the
    /// runtime, sampled every millisecond.
    pub timer_lag_p99_ms: f64,
    /// The harness process's CPU time over the window, in percent of one core.
    pub cpu_percent: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Compliance {
    pub compliant: bool,
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Harness {
    pub name: String,
    pub version: String,
}

impl Harness {
    pub fn this() -> Self {
        Self {
            name: "gpumarket-bench".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// What makes the figures checkable.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub continuous_usage: bool,
    pub tokenize_endpoint: bool,
    pub metrics_endpoint: bool,
    /// Median TTFT of a one-token prompt on the idle server.
    pub idle_ttft_ms: Option<f64>,
    /// Every distinct prompt sent, with its size and the SHA-256 of each request body.
    pub prompts: Vec<PromptRecord>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptRecord {
    /// `prefill` or `decode`.
    pub phase: String,
    pub context_tokens: u64,
    pub index: u64,
    /// As counted by `/tokenize` when sizing.
    pub prompt_tokens: u64,
    /// As the server reported in `usage.prompt_tokens`.
    pub confirmed_tokens: Option<u64>,
    pub body_sha256: Vec<String>,
}

fn context_label(tokens: u64) -> String {
    if tokens >= 1024 && tokens.is_multiple_of(1024) {
        format!("{}K", tokens / 1024)
    } else {
        tokens.to_string()
    }
}

/// The results shaped like the reference page: prefill rates, then the decode matrix with
/// rows = contexts and columns = concurrency, each cell total tok/s with its TTFT or the
/// status words.
pub fn table(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} on {} (vLLM {})",
        report.engine.model,
        report.engine.base_url.as_deref().unwrap_or("the engine"),
        report.engine.version.as_deref().unwrap_or("unknown")
    );
    if !report.prefill.is_empty() {
        let _ = writeln!(out, "\nPrefill (prompt tok/s, TTFT)");
        for entry in &report.prefill {
            let figures = match (entry.prompt_tok_s, entry.ttft_ms) {
                (Some(rate), Some(ttft)) if entry.status == Status::Valid => {
                    format!("{rate:.1} tok/s  {ttft:.0} ms TTFT")
                }
                _ => entry.status.words().to_owned(),
            };
            let _ = writeln!(
                out,
                "  {:>5}  {figures}",
                context_label(entry.context_tokens)
            );
        }
    }
    let contexts: Vec<u64> = dedup(report.decode.iter().map(|c| c.context_tokens));
    let levels: Vec<u64> = dedup(report.decode.iter().map(|c| c.concurrency));
    if !contexts.is_empty() {
        let _ = writeln!(out, "\nSustained decode (total tok/s, TTFT)");
        let width = 22;
        let _ = write!(out, "{:>7}", "context");
        for level in &levels {
            let _ = write!(out, "{:>width$}", level);
        }
        let _ = writeln!(out);
        for context in &contexts {
            let _ = write!(out, "{:>7}", context_label(*context));
            for level in &levels {
                let text = report
                    .decode
                    .iter()
                    .find(|c| c.context_tokens == *context && c.concurrency == *level)
                    .map_or_else(String::new, cell_text);
                let _ = write!(out, "{text:>width$}");
            }
            let _ = writeln!(out);
        }
    }
    let _ = writeln!(
        out,
        "\n{}{}",
        if report.compliance.compliant {
            "compliant"
        } else {
            "NOT compliant"
        },
        if report.partial { " (partial run)" } else { "" }
    );
    for reason in &report.compliance.reasons {
        let _ = writeln!(out, "  - {reason}");
    }
    if let Some(cost) = &report.cost {
        let _ = writeln!(
            out,
            "\ncost: {:.1} s wall, {:.1} s of server time; {} cells run, {} skipped \
             (prefill_mode {}, window_rule {})",
            cost.wall_s,
            cost.gpu_s_estimate,
            cost.cells_run,
            cost.cells_skipped,
            report.parameters.prefill_mode.name(),
            report.parameters.window_rule.name()
        );
    }
    out
}

fn cell_text(cell: &DecodeCell) -> String {
    match (cell.status, cell.total_tok_s, cell.ttft_ms_median) {
        (Status::OverCapacity | Status::Invalid, _, _) => cell.status.words().to_owned(),
        (status, Some(total), ttft) => {
            let ttft = ttft.map_or_else(String::new, |t| format!(" {t:.0}ms"));
            let flag = match status {
                Status::Valid => "",
                Status::RequestsQueued => " Q",
                _ => " C",
            };
            format!("{total:.1}{ttft}{flag}")
        }
        (status, None, _) => status.words().to_owned(),
    }
}

fn dedup(values: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for value in values {
        if !out.contains(&value) {
            out.push(value);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_serialise_as_the_contract_names_them() {
        for (status, name) in [
            (Status::Valid, "\"valid\""),
            (Status::RequestsQueued, "\"requests_queued\""),
            (Status::OverCapacity, "\"over_capacity\""),
            (Status::Invalid, "\"invalid\""),
            (Status::ClientBound, "\"client_bound\""),
        ] {
            assert_eq!(serde_json::to_string(&status).unwrap(), name);
        }
    }

    #[test]
    fn contexts_are_labelled_in_binary_k() {
        assert_eq!(context_label(0), "0");
        assert_eq!(context_label(16384), "16K");
        assert_eq!(context_label(1000), "1000");
    }
}
