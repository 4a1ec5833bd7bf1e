//! llama.cpp's dialect, as its server prints it (the captures of the real server in
//! `crates/bench/testdata/llamacpp/`, which a test compares this with): `/metrics` without
//! labels, integer counters printed as integers, the generated-token counter moving only as
//! requests end; `/props` with the slots and each slot's context; `/tokenize` of `content`
//! into a list of tokens. llama.cpp has no `/version`.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::engine::Stats;
use crate::profile::Profile;

/// `/metrics`: llama.cpp's names, help texts and types, in its order.
pub fn render(stats: &Stats) -> String {
    let cached = stats.prefix_cache_hits;
    let processed = stats.prompt_tokens.saturating_sub(cached);
    let counters: [(&str, &str, f64); 10] = [
        (
            "prompt_tokens_total",
            "Number of prompt tokens processed, excluding cached tokens",
            processed as f64,
        ),
        (
            "prompt_tokens_cached_total",
            "Number of prompt tokens reused from the cache",
            cached as f64,
        ),
        (
            "prompt_seconds_total",
            "Total time spent processing prompts",
            stats.prefill_time.sum,
        ),
        (
            "tokens_predicted_total",
            "Number of generation tokens processed",
            stats.generation_tokens_ended as f64,
        ),
        (
            "tokens_predicted_seconds_total",
            "Total time spent generating tokens",
            0.0,
        ),
        (
            "n_decode_total",
            "Total number of llama_decode() calls, excluding speculative decoding and multimodal decoding",
            stats.decode_steps as f64,
        ),
        (
            "n_tokens_max",
            "Largest observed sequence length (prompt + generation)",
            0.0,
        ),
        (
            "spec_decode_num_draft_tokens_total",
            "Speculative: Total draft tokens generated",
            0.0,
        ),
        (
            "spec_decode_num_accepted_tokens_total",
            "Speculative: Total draft tokens accepted by the target model",
            0.0,
        ),
        (
            "spec_decode_num_drafts_total",
            "Speculative: Total speculative decoding verification steps",
            0.0,
        ),
    ];
    let gauges: [(&str, &str, f64); 5] = [
        (
            "prompt_tokens_seconds",
            "Average prompt throughput in tokens/s",
            0.0,
        ),
        (
            "predicted_tokens_seconds",
            "Average generation throughput in tokens/s",
            0.0,
        ),
        (
            "requests_processing",
            "Number of requests processing",
            stats.running as f64,
        ),
        (
            "requests_deferred",
            "Number of requests deferred",
            stats.waiting as f64,
        ),
        (
            "n_busy_slots_per_decode",
            "Average number of busy slots per llama_decode() call",
            0.0,
        ),
    ];
    let mut out = String::with_capacity(4 * 1024);
    for (kind, list) in [("counter", &counters[..]), ("gauge", &gauges[..])] {
        for (name, help, value) in list {
            let _ = writeln!(out, "# HELP llamacpp:{name} {help}");
            let _ = writeln!(out, "# TYPE llamacpp:{name} {kind}");
            let _ = writeln!(out, "llamacpp:{name} {value}");
        }
    }
    out
}

/// `/props`: the slots (the profile's `max_num_seqs`) and each slot's context (its
/// `max_model_len`), as llama.cpp states them, and its build.
pub fn props(profile: &Profile) -> Value {
    json!({
        "default_generation_settings": {"n_ctx": profile.max_model_len, "params": {}},
        "total_slots": profile.max_num_seqs,
        "model_alias": profile.model,
        "model_path": format!("/models/{}.gguf", profile.model),
        "endpoint_slots": true,
        "endpoint_props": true,
        "endpoint_metrics": true,
        "build_info": profile.engine_version,
    })
}

/// `/tokenize`'s answer: the tokens.
pub fn tokenized(tokens: &[u32]) -> Value {
    json!({ "tokens": tokens })
}

/// One chunk of a streamed answer, as llama.cpp writes it: tokens one a chunk, `usage` and
/// `timings` only at the end — in the completion's last chunk always, in a chat's own
/// usage-only chunk when `stream_options.include_usage` asks.
pub enum StreamChunk<'a> {
    /// A chat's first chunk: the role, no content.
    Role,
    /// One token's text.
    Text(&'a str),
    /// The end: why, and the counts (`usage` in a completion's chunk, none in a chat's).
    Finish { usage: Option<Usage> },
    /// A chat's usage-only chunk.
    Usage(Usage),
}

/// What a stream's end reports.
#[derive(Debug, Clone, Copy)]
pub struct Usage {
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
    pub prompt_ms: f64,
    pub predicted_ms: f64,
}

impl Usage {
    fn usage(&self) -> Value {
        json!({
            "completion_tokens": self.completion_tokens,
            "prompt_tokens": self.prompt_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "prompt_tokens_details": {"cached_tokens": 0},
        })
    }

    fn timings(&self) -> Value {
        let per = |ms: f64, n: usize| if n == 0 { 0.0 } else { ms / n as f64 };
        let rate = |ms: f64, n: usize| {
            if ms > 0.0 {
                n as f64 * 1000.0 / ms
            } else {
                0.0
            }
        };
        json!({
            "cache_n": 0,
            "prompt_n": self.prompt_tokens,
            "prompt_ms": self.prompt_ms,
            "prompt_per_token_ms": per(self.prompt_ms, self.prompt_tokens),
            "prompt_per_second": rate(self.prompt_ms, self.prompt_tokens),
            "predicted_n": self.completion_tokens,
            "predicted_ms": self.predicted_ms,
            "predicted_per_token_ms": per(self.predicted_ms, self.completion_tokens),
            "predicted_per_second": rate(self.predicted_ms, self.completion_tokens),
        })
    }
}

/// A streamed chunk's JSON, `chat` or completion, with llama.cpp's fields.
pub fn stream_chunk(
    chunk: &StreamChunk<'_>,
    chat: bool,
    id: &str,
    created: u64,
    model: &str,
    fingerprint: &str,
) -> Value {
    let mut out = match (chunk, chat) {
        (StreamChunk::Usage(_), _) => json!({"choices": []}),
        (StreamChunk::Role, _) => json!({"choices": [
            {"finish_reason": null, "index": 0, "delta": {"role": "assistant", "content": null}}
        ]}),
        (StreamChunk::Text(text), true) => json!({"choices": [
            {"finish_reason": null, "index": 0, "delta": {"content": text}}
        ]}),
        (StreamChunk::Text(text), false) => json!({"choices": [
            {"text": text, "index": 0, "logprobs": null, "finish_reason": null}
        ]}),
        (StreamChunk::Finish { .. }, true) => json!({"choices": [
            {"finish_reason": "length", "index": 0, "delta": {}}
        ]}),
        (StreamChunk::Finish { .. }, false) => json!({"choices": [
            {"text": "", "index": 0, "logprobs": null, "finish_reason": "length"}
        ]}),
    };
    let object = if chat {
        "chat.completion.chunk"
    } else {
        "text_completion"
    };
    out["created"] = json!(created);
    out["model"] = json!(model);
    out["system_fingerprint"] = json!(fingerprint);
    out["object"] = json!(object);
    out["id"] = json!(id);
    let end = match chunk {
        StreamChunk::Usage(usage) => Some(usage),
        StreamChunk::Finish { usage } => usage.as_ref(),
        _ => None,
    };
    if let Some(usage) = end {
        out["usage"] = usage.usage();
        out["timings"] = usage.timings();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capture(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/../bench/testdata/llamacpp/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    /// The metrics' names, help texts and types, line by line, are the real server's.
    #[test]
    fn metrics_name_what_the_real_server_names_in_its_order() {
        let shape = |text: &str| -> Vec<String> {
            text.lines()
                .map(|line| match line.strip_prefix('#') {
                    Some(_) => line.to_owned(),
                    None => line.split(' ').next().unwrap_or_default().to_owned(),
                })
                .collect()
        };
        let ours = render(&Stats::default());
        assert_eq!(shape(&ours), shape(&capture("metrics-idle.txt")));
    }

    #[test]
    fn counters_read_as_llamacpp_counts_them() {
        let stats = Stats {
            running: 2,
            waiting: 2,
            prompt_tokens: 93,
            prefix_cache_hits: 23,
            generation_tokens: 970,
            generation_tokens_ended: 13,
            ..Stats::default()
        };
        let text = render(&stats);
        for line in [
            "llamacpp:prompt_tokens_total 70",
            "llamacpp:prompt_tokens_cached_total 23",
            "llamacpp:tokens_predicted_total 13",
            "llamacpp:requests_processing 2",
            "llamacpp:requests_deferred 2",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line}\n{text}");
        }
    }

    /// Every chunk of a streamed completion and chat has the real server's keys, at every
    /// level, in the real server's order of chunks.
    #[test]
    fn streams_have_the_real_servers_shape() {
        fn keys(value: &Value, path: &str, out: &mut Vec<String>) {
            match value {
                Value::Object(map) => {
                    for (key, value) in map {
                        let here = format!("{path}/{key}");
                        out.push(here.clone());
                        keys(value, &here, out);
                    }
                }
                Value::Array(items) => {
                    for item in items {
                        keys(item, &format!("{path}[]"), out);
                    }
                }
                _ => {}
            }
        }
        let shape = |values: &[Value]| -> Vec<Vec<String>> {
            values
                .iter()
                .map(|v| {
                    let mut out = Vec::new();
                    keys(v, "", &mut out);
                    out.sort();
                    out
                })
                .collect()
        };
        let real = |name: &str| -> Vec<Value> {
            capture(name)
                .lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .filter(|l| *l != "[DONE]")
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        };
        let usage = Usage {
            prompt_tokens: 8,
            completion_tokens: 4,
            prompt_ms: 0.7,
            predicted_ms: 1.0,
        };
        let ours = |chunks: &[StreamChunk<'_>], chat: bool| -> Vec<Value> {
            chunks
                .iter()
                .map(|c| stream_chunk(c, chat, "chatcmpl-x", 1, "tiny", "b0"))
                .collect()
        };
        let text = ["a", "b", "c", "d"].map(StreamChunk::Text);
        let mut completion: Vec<StreamChunk<'_>> = text.into_iter().collect();
        completion.push(StreamChunk::Finish { usage: Some(usage) });
        assert_eq!(
            shape(&ours(&completion, false)),
            shape(&real("completion-stream.txt"))
        );
        let mut chat = vec![StreamChunk::Role];
        chat.extend(["a", "b", "c", "d"].map(StreamChunk::Text));
        chat.push(StreamChunk::Finish { usage: None });
        chat.push(StreamChunk::Usage(usage));
        assert_eq!(shape(&ours(&chat, true)), shape(&real("chat-stream.txt")));
    }

    /// What a client reads of `/props` is where the real server puts it.
    #[test]
    fn props_put_the_slots_where_the_real_server_does() {
        let profile = Profile::load("tiny").unwrap();
        let ours = props(&profile);
        let real: Value = serde_json::from_str(&capture("props.json")).unwrap();
        for pointer in [
            "/default_generation_settings/n_ctx",
            "/total_slots",
            "/build_info",
            "/model_alias",
        ] {
            let (a, b) = (ours.pointer(pointer), real.pointer(pointer));
            assert!(a.is_some() && b.is_some(), "{pointer}");
            assert_eq!(
                std::mem::discriminant(a.unwrap()),
                std::mem::discriminant(b.unwrap()),
                "{pointer}"
            );
        }
        let tokenized = tokenized(&[1, 2, 3]);
        let real: Value = serde_json::from_str(&capture("tokenize.json")).unwrap();
        assert!(real["tokens"].is_array() && tokenized["tokens"].is_array());
        assert_eq!(
            tokenized.as_object().unwrap().len(),
            real.as_object().unwrap().len()
        );
    }
}
