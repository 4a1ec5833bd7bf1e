//! SGLang's dialect, written from its source (not runnable here, design/engines.md): the
//! metric names, help texts and types of `python/sglang/srt/metrics/collector.py`, labelled
//! `model_name`, printed as Python's `prometheus_client` prints them (counters' samples end in
//! `_total`, floats carry a decimal point); `/get_server_info` with the server's arguments and
//! `"version"` (`python/sglang/srt/entrypoints/http_server.py`); `/tokenize` in vLLM's shape;
//! and its streams (`python/sglang/srt/entrypoints/openai/serving_completions.py`,
//! `serving_chat.py`, `protocol.py`, read from sglang 0.5.23): a chunk per scheduler output,
//! whatever number of tokens it carries, `usage` on every chunk with
//! `stream_options.continuous_usage_stats`, a chat's role in its first chunk and its finish
//! reason in a chunk of its own, a usage-only chunk with `include_usage`. Its token counters
//! move as requests end (`observe_one_finished_request`). No `/version`, no `/props`.

use std::fmt::Write;

use serde_json::{Value, json};

use super::{Counts, Head, Piece};
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
            stats.prompt_tokens_ended as f64,
        ),
        (
            "generation_tokens",
            "Number of generation tokens processed.",
            stats.generation_tokens_ended as f64,
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

/// `UsageInfo` as `model_dump_json` writes it; the completions' usage-only chunk drops its
/// `None` fields (`exclude_none`).
fn usage(counts: Counts, with_nones: bool) -> Value {
    let mut usage = json!({
        "prompt_tokens": counts.prompt,
        "total_tokens": counts.prompt + counts.completion,
        "completion_tokens": counts.completion,
        "reasoning_tokens": 0,
    });
    if with_nones {
        usage["prompt_tokens_details"] = Value::Null;
        usage["completion_tokens_details"] = Value::Null;
    }
    usage
}

/// One streamed chunk as SGLang writes it. A completion's chunks carry `usage` (`null` unless
/// running usage was asked) and their finish reason with the last tokens; a chat's chunks are
/// written by msgspec, `usage` only when set, `reasoning_content` always in the delta, its
/// finish reason in a chunk after the last tokens (`serving_chat.py`). `None` for a piece a
/// completion does not write (its finish reason comes with its last tokens).
pub(crate) fn stream_chunk(piece: Piece<'_>, head: &Head<'_>) -> Option<Value> {
    let choice = |delta_or_text: (&str, Value), finish: Option<&str>| {
        let mut choice = json!({"index": 0});
        choice[delta_or_text.0] = delta_or_text.1;
        choice["logprobs"] = Value::Null;
        choice["finish_reason"] = json!(finish);
        choice["matched_stop"] = Value::Null;
        choice
    };
    let (choices, running) = match (piece, head.chat) {
        (Piece::Usage(_), _) => (json!([]), None),
        (Piece::Role, _) => (
            json!([choice(
                (
                    "delta",
                    json!({"reasoning_content": null, "role": "assistant", "content": ""})
                ),
                None
            )]),
            None,
        ),
        (
            Piece::Text {
                text,
                finish,
                usage,
            },
            false,
        ) => (
            json!([choice(("text", json!(text)), finish.then_some("length"))]),
            usage,
        ),
        (Piece::Text { text, usage, .. }, true) => (
            json!([choice(
                ("delta", json!({"reasoning_content": null, "content": text})),
                None
            )]),
            usage,
        ),
        (Piece::Finish { usage }, true) => (
            json!([choice(
                ("delta", json!({"reasoning_content": null})),
                Some("length")
            )]),
            usage,
        ),
        (Piece::Finish { .. }, false) => return None,
    };
    let object = if head.chat {
        "chat.completion.chunk"
    } else {
        "text_completion"
    };
    let mut out = json!({
        "id": head.id,
        "object": object,
        "created": head.created,
        "model": head.model,
        "choices": choices,
    });
    match (piece, head.chat) {
        (Piece::Usage(counts), chat) => out["usage"] = usage(counts, chat),
        (_, false) => out["usage"] = running.map_or(Value::Null, |c| usage(c, true)),
        (_, true) => {
            if let Some(counts) = running {
                out["usage"] = usage(counts, true);
            }
        }
    }
    Some(out)
}
