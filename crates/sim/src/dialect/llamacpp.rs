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
