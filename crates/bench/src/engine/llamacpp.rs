//! llama.cpp's dialect (`llama-server --metrics`): its `/metrics` names, its facts in
//! `/props`, and its `/tokenize`. Written from the real server (the captures in
//! `testdata/llamacpp/`, taken from llama.cpp's own server code through PyPI `xllamacpp`
//! 2026.10.11549, whose help texts say what each metric counts).
//!
//! What differs from vLLM, and matters to the standard:
//! - its metrics carry no labels and no KV-cache info gauge; slots and each slot's context
//!   are in `/props` (`total_slots`, `default_generation_settings.n_ctx`);
//! - `llamacpp:prompt_tokens_total` excludes the prompt tokens reused from its cache, counted
//!   apart in `llamacpp:prompt_tokens_cached_total`: the snapshot's prompt tokens are both, its
//!   prefix-cache hits the cached ones;
//! - `llamacpp:tokens_predicted_total` moves when a request ends, not as tokens are made
//!   (seen: 970 decode steps into four streams, the counter still at 13), so no check may read
//!   it inside a measuring window;
//! - each scrape resets the averaged `*_tokens_seconds` gauges: they are not read.

use serde_json::Value;

use super::{Capacity, Chunks, CounterMoves, Field, Rules};

/// The name llama.cpp's facts carry.
pub const NAME: &str = "llamacpp";

/// Where llama.cpp states its facts (version, slots, context): it has no `/version`.
pub const INFO_PATH: &str = "/props";

/// Usage only in a stream's last chunk, one chunk per token (its server sends each token as it
/// is made, a token that renders as nothing as empty text — seen on the real server: 506
/// chunks with text and 6 empty for 512 tokens); the generated-token counter
/// moving as requests end (`on_prediction`, after the final answer); the prompt cache on
/// unless a request says `cache_prompt: false`.
pub const RULES: Rules = Rules {
    continuous_usage: false,
    chunks: Chunks::PerToken,
    counter: CounterMoves::AtRequestEnd,
    cold_field: Some(("cache_prompt", false)),
};

/// The snapshot field a llama.cpp metric feeds.
pub fn field(metric: &str) -> Option<Field> {
    Some(match metric {
        "llamacpp:requests_processing" => Field::Running,
        "llamacpp:requests_deferred" => Field::Waiting,
        "llamacpp:tokens_predicted_total" => Field::GenerationTokens,
        "llamacpp:prompt_tokens_total" => Field::PromptTokens,
        "llamacpp:prompt_tokens_cached_total" => Field::PromptTokensCached,
        _ => return None,
    })
}

/// `/props`' `build_info` (`b6543-abcdef0`), the nearest llama.cpp has to a version.
pub fn version(body: &[u8]) -> Option<String> {
    super::json_text(body, "build_info")
}

/// `{"content": …}`: llama.cpp tokenizes the text it is given, for the model it serves.
pub fn tokenize_request(prompt: &str) -> Value {
    serde_json::json!({ "content": prompt })
}

/// `{"tokens": […]}`: the count is the list's length.
pub fn token_count(body: &[u8]) -> Option<u64> {
    super::count_of(serde_json::from_slice::<Value>(body).ok()?.get("tokens")?)
}

/// What `/props` says of a server's capacity: its slots (requests served at once) and the
/// context each slot has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slots {
    pub slots: u64,
    pub context_per_slot: u64,
}

/// The slots `/props` states; `None` when it states neither number.
pub fn slots(body: &[u8]) -> Option<Slots> {
    let props = serde_json::from_slice::<Value>(body).ok()?;
    let slots = props.get("total_slots")?.as_u64()?;
    let context_per_slot = props
        .get("default_generation_settings")?
        .get("n_ctx")?
        .as_u64()?;
    (slots > 0 && context_per_slot > 0).then_some(Slots {
        slots,
        context_per_slot,
    })
}

/// The capacity `/props` states: a request holds at most its slot's context, and the cache
/// holds every slot's. `/props` does not say whether the cache is unified (`--kv-unified`,
/// each slot then seeing the whole context): there the total is over-stated, and a cell that
/// does not fit fails as invalid instead of being skipped; its figures are never wrong.
pub fn capacity(body: &[u8]) -> Capacity {
    let Some(Slots {
        slots,
        context_per_slot,
    }) = slots(body)
    else {
        return Capacity::default();
    };
    Capacity {
        max_model_len: Some(context_per_slot),
        kv_tokens: Some((slots.saturating_mul(context_per_slot), "total_slots*n_ctx")),
        slots: Some(slots),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Dialect;
    use super::*;

    fn capture(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/testdata/llamacpp/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn llamacpp_is_picked_by_the_names_its_metrics_use() {
        assert_eq!(
            Dialect::detect(&capture("metrics-idle.txt")),
            Some(Dialect::LlamaCpp)
        );
        assert_eq!(Dialect::LlamaCpp.name(), "llamacpp");
        assert!(Dialect::LlamaCpp.checked_against_real_server());
    }

    /// Four streams on two slots: two run, two wait; the generated-token counter has not
    /// moved with the decode steps (it counts requests that ended).
    #[test]
    fn reads_the_real_servers_metrics_while_it_is_busy() {
        let busy = Dialect::LlamaCpp
            .snapshot(&capture("metrics-busy.txt"))
            .unwrap();
        assert_eq!(busy.running, Some(2.0));
        assert_eq!(busy.waiting, Some(2.0));
        assert!(!busy.is_idle());
        assert_eq!(busy.generation_tokens, Some(13.0));
        // 70 processed and 23 reused from the cache.
        assert_eq!(busy.prompt_tokens, Some(93.0));
        assert_eq!(busy.prefix_cache_queries, Some(93.0));
        assert_eq!(busy.prefix_cache_hits, Some(23.0));
        assert_eq!(busy.cache, None);
        let idle = Dialect::LlamaCpp
            .snapshot(&capture("metrics-idle.txt"))
            .unwrap();
        assert!(idle.is_idle());
        assert_eq!(idle.generation_tokens, Some(4069.0));
        assert_eq!(idle.prompt_tokens, Some(72.0 + 41.0));
    }

    #[test]
    fn facts_come_from_props() {
        let props = capture("props.json");
        assert_eq!(version(props.as_bytes()).as_deref(), Some("b0-unknown"));
        assert_eq!(
            slots(props.as_bytes()),
            Some(Slots {
                slots: 2,
                context_per_slot: 1024
            })
        );
        assert_eq!(slots(br#"{"total_slots": 0}"#), None);
        assert_eq!(
            Dialect::LlamaCpp.capacity(props.as_bytes()),
            Capacity {
                max_model_len: Some(1024),
                kv_tokens: Some((2048, "total_slots*n_ctx")),
                slots: Some(2),
            }
        );
        assert_eq!(Dialect::LlamaCpp.capacity(b"{}"), Capacity::default());
        assert_eq!(version(b"<html>"), None);
    }

    #[test]
    fn token_counts_are_the_length_of_the_list() {
        assert_eq!(token_count(capture("tokenize.json").as_bytes()), Some(8));
        assert_eq!(token_count(br#"{"count": 3}"#), None);
        assert_eq!(
            tokenize_request("the probe"),
            serde_json::json!({"content": "the probe"})
        );
    }
}
