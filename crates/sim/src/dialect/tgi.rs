//! Text Generation Inference's dialect, written from its source (huggingface/
//! text-generation-inference at db931fcf; not runnable here, design/engines.md): the gauges
//! `tgi_queue_size` (`backends/v3/src/queue.rs`) and `tgi_batch_current_size`
//! (`backends/v3/src/backend.rs`), the histograms of tokens per request
//! `tgi_request_input_length` (`router/src/validation.rs`) and `tgi_request_generated_tokens`
//! (`router/src/server.rs`, recorded as a request ends), as the Rust `metrics` Prometheus
//! exporter prints them; `/info` (`router/src/lib.rs`, `Info`) and `/tokenize`
//! (`TokenizeResponse`: a list of `{id, text, start, stop}`). No `/version`, no `/props`.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::engine::Stats;
use crate::profile::Profile;

/// `/metrics`.
pub fn render(stats: &Stats) -> String {
    let mut out = String::with_capacity(2 * 1024);
    for (name, value) in [
        ("tgi_queue_size", stats.waiting),
        ("tgi_batch_current_size", stats.running),
    ] {
        let _ = writeln!(out, "# TYPE {name} gauge");
        let _ = writeln!(out, "{name} {value}");
    }
    let requests = stats.requests_success;
    for (name, sum) in [
        ("tgi_request_input_length", stats.prompt_tokens),
        (
            "tgi_request_generated_tokens",
            stats.generation_tokens_ended,
        ),
    ] {
        let _ = writeln!(out, "# TYPE {name} histogram");
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {requests}");
        let _ = writeln!(out, "{name}_sum {sum}");
        let _ = writeln!(out, "{name}_count {requests}");
    }
    out
}

/// `/info`: the model, the limits, the version.
pub fn info(profile: &Profile) -> Value {
    json!({
        "model_id": profile.model,
        "max_concurrent_requests": profile.max_num_seqs,
        "max_total_tokens": profile.max_model_len,
        "router": "text-generation-router",
        "version": profile.engine_version,
    })
}

/// `/tokenize`'s answer: each token with its text and place (the simulator's tokens are one
/// character of text each).
pub fn tokenized(tokens: &[u32]) -> Value {
    Value::Array(
        tokens
            .iter()
            .enumerate()
            .map(|(i, id)| json!({"id": id, "text": "", "start": i, "stop": i + 1}))
            .collect(),
    )
}
