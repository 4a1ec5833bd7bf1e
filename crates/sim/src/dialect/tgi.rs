//! Text Generation Inference's dialect, written from its source (huggingface/
//! text-generation-inference at db931fcf; not runnable here, design/engines.md): the gauges
//! `tgi_queue_size` (`backends/v3/src/queue.rs`) and `tgi_batch_current_size`
//! (`backends/v3/src/backend.rs`), the histograms of tokens per request
//! `tgi_request_input_length` (`router/src/validation.rs`) and `tgi_request_generated_tokens`
//! (`router/src/server.rs`, recorded as a request ends), as the Rust `metrics` Prometheus
//! exporter prints them; `/info` (`router/src/lib.rs`, `Info`) and `/tokenize`
//! (`TokenizeResponse`: a list of `{id, text, start, stop}`); and its streams
//! (`router/src/server.rs`, `router/src/chat.rs`, `router/src/lib.rs`): one chunk per token,
//! `finish_reason: ""` until the last token's chunk, which carries the finish reason — and, in
//! a completion, the usage (`CompletionFinal`); a chat's usage in a chunk of its own when
//! `stream_options.include_usage` asks; no role chunk, every chat delta naming the role; `id`
//! empty. No `/version`, no `/props`.

use std::fmt::Write;

use serde_json::{Value, json};

use super::{Counts, Head, Piece};
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

/// One streamed chunk as TGI writes it: `object` first (its enums are tagged by it), the
/// fingerprint `{version}-native`. `None` for a piece TGI does not write: a role or finish
/// chunk of its own, a completion's usage-only chunk (completions read no `stream_options`).
pub(crate) fn stream_chunk(piece: Piece<'_>, head: &Head<'_>) -> Option<Value> {
    let fingerprint = format!("{}-native", head.version);
    let usage = |c: Counts| {
        json!({"prompt_tokens": c.prompt, "completion_tokens": c.completion,
               "total_tokens": c.prompt + c.completion})
    };
    let object = if head.chat {
        "chat.completion.chunk"
    } else {
        "text_completion"
    };
    let mut out = json!({"object": object, "id": "", "created": head.created});
    out["model"] = json!(head.model);
    out["system_fingerprint"] = json!(fingerprint);
    match piece {
        Piece::Usage(_) if !head.chat => return None,
        Piece::Usage(counts) => {
            out["choices"] = json!([]);
            out["usage"] = usage(counts);
        }
        Piece::Text { text, finish, .. } if head.chat => {
            out["choices"] = json!([{"index": 0,
                "delta": {"role": "assistant", "content": text},
                "logprobs": null, "finish_reason": finish.then_some("length")}]);
            out["usage"] = Value::Null;
        }
        Piece::Text {
            text,
            finish,
            usage: counts,
        } => {
            let reason = if finish { "length" } else { "" };
            out["choices"] = json!([{"index": 0, "text": text, "logprobs": null,
                "finish_reason": reason}]);
            if let (true, Some(counts)) = (finish, counts) {
                out["usage"] = usage(counts);
            }
        }
        Piece::Role | Piece::Finish { .. } => return None,
    }
    Some(out)
}
