//! SGLang's dialect, written from its source (not runnable here, design/engines.md): the
//! metric names, help texts and types of `python/sglang/srt/metrics/collector.py`, labelled
//! `model_name`, printed as Python's `prometheus_client` prints them (counters' samples end in
//! `_total`, floats carry a decimal point); `/get_server_info` with the server's arguments and
//! `"version"` (`python/sglang/srt/entrypoints/http_server.py`). No `/version`, no `/props`, and
//! no `/tokenize` the harness knows.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::engine::Stats;
use crate::profile::Profile;

/// `/metrics`.
pub fn render(profile: &Profile, stats: &Stats) -> String {
    let labels = format!("model_name=\"{}\"", profile.model);
    let mut out = String::with_capacity(2 * 1024);
    let gauges = [
        (
            "num_running_reqs",
            "The number of running requests.",
            stats.running as f64,
        ),
        (
            "num_queue_reqs",
            "The number of requests in the waiting queue.",
            stats.waiting as f64,
        ),
        ("token_usage", "The token usage.", stats.kv_cache_usage),
    ];
    for (name, help, value) in gauges {
        let _ = writeln!(out, "# HELP sglang:{name} {help}");
        let _ = writeln!(out, "# TYPE sglang:{name} gauge");
        let _ = writeln!(out, "sglang:{name}{{{labels}}} {value:?}");
    }
    let counters = [
        (
            "prompt_tokens",
            "Number of prefill tokens processed.",
            stats.prompt_tokens as f64,
        ),
        (
            "generation_tokens",
            "Number of generation tokens processed.",
            stats.generation_tokens as f64,
        ),
    ];
    for (name, help, value) in counters {
        let _ = writeln!(out, "# HELP sglang:{name}_total {help}");
        let _ = writeln!(out, "# TYPE sglang:{name}_total counter");
        let _ = writeln!(out, "sglang:{name}_total{{{labels}}} {value:?}");
    }
    out
}

/// `/get_server_info`: the server's arguments the harness could read, and its version.
pub fn server_info(profile: &Profile) -> Value {
    json!({
        "model_path": profile.model,
        "served_model_name": profile.model,
        "context_length": profile.max_model_len,
        "max_running_requests": profile.max_num_seqs,
        "version": profile.engine_version,
    })
}
