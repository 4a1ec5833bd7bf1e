//! SGLang's dialect (`--enable-metrics`), written from its source: the metric names of
//! `python/sglang/srt/metrics/collector.py` (labelled `model_name`, summed like any label set),
//! which the seed's tool (llm-inference-bench) reads too, and `/get_server_info`
//! (`python/sglang/srt/entrypoints/http_server.py`: the server's arguments and `"version"`),
//! and its `/tokenize`, which speaks vLLM's shape (`{model, prompt}` → `{tokens, count,
//! max_model_len}`). Read from sglang 0.5.23's source. Not checked against a real server:
//! SGLang does not run on these machines (design/engines.md).

use super::{Chunks, CounterMoves, Field, Rules};

/// The name SGLang's facts carry.
pub const NAME: &str = "sglang";

/// Where SGLang states its version.
pub const INFO_PATH: &str = "/get_server_info";

/// Running usage on every chunk with `stream_options.continuous_usage_stats`, as vLLM's
/// (`python/sglang/srt/entrypoints/openai/utils.py`, `should_include_usage`; a chunk is one
/// scheduler output and may carry several tokens, or none: usage is what counts them); its
/// token counters move as requests end, not each step (`observe_one_finished_request`, called
/// only for a finished request in `tokenizer_manager.py`'s `collect_metrics`), so the
/// cross-check is llama.cpp's, over the requests that ended.
pub const RULES: Rules = Rules {
    continuous_usage: true,
    chunks: Chunks::Text,
    counter: CounterMoves::AtRequestEnd,
    cold_field: None,
};

/// The snapshot field an SGLang metric feeds.
pub fn field(metric: &str) -> Option<Field> {
    Some(match metric {
        "sglang:num_running_reqs" => Field::Running,
        "sglang:num_queue_reqs" => Field::Waiting,
        "sglang:token_usage" => Field::KvCacheUsage,
        "sglang:prompt_tokens" | "sglang:prompt_tokens_total" => Field::PromptTokens,
        "sglang:generation_tokens" | "sglang:generation_tokens_total" => Field::GenerationTokens,
        _ => return None,
    })
}

/// `/get_server_info`'s `"version"`.
pub fn version(body: &[u8]) -> Option<String> {
    super::json_text(body, "version")
}

#[cfg(test)]
mod tests {
    use super::super::Dialect;

    #[test]
    fn sglang_is_picked_and_read_by_its_names() {
        let text = "# TYPE sglang:num_running_reqs gauge\n\
            sglang:num_running_reqs{model_name=\"m\"} 3.0\n\
            sglang:num_queue_reqs{model_name=\"m\"} 1.0\n\
            sglang:token_usage{model_name=\"m\"} 0.25\n\
            # TYPE sglang:prompt_tokens_total counter\n\
            sglang:prompt_tokens_total{model_name=\"m\"} 900.0\n\
            # TYPE sglang:generation_tokens_total counter\n\
            sglang:generation_tokens_total{model_name=\"m\"} 1200.0\n";
        assert_eq!(Dialect::detect(text), Some(Dialect::Sglang));
        let snapshot = Dialect::Sglang.snapshot(text).unwrap();
        assert_eq!(snapshot.running, Some(3.0));
        assert_eq!(snapshot.waiting, Some(1.0));
        assert_eq!(snapshot.kv_cache_usage, Some(0.25));
        assert_eq!(snapshot.prompt_tokens, Some(900.0));
        assert_eq!(snapshot.generation_tokens, Some(1200.0));
        assert_eq!(
            super::version(br#"{"tp_size": 1, "version": "0.5.4"}"#).as_deref(),
            Some("0.5.4")
        );
        assert!(!Dialect::Sglang.checked_against_real_server());
        assert_eq!(
            Dialect::Sglang.tokenize_request("m", "p"),
            Some(serde_json::json!({"model": "m", "prompt": "p"}))
        );
        let answer = br#"{"tokens": [5, 6], "count": 2, "max_model_len": 8192}"#;
        assert_eq!(Dialect::Sglang.token_count(answer), Some(2));
        assert_eq!(Dialect::Sglang.token_ids(answer), Some(vec![5, 6]));
    }
}
