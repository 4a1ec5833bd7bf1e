//! vLLM's dialect: its `/metrics` names (v0 and v1 spellings), `/version` and `/tokenize`.
//! The only place outside the simulator that names a vLLM metric.

use serde_json::Value;

use super::{Chunks, CounterMoves, Field, Rules};

/// The name vLLM's facts carry.
pub const NAME: &str = "vllm";

/// Where vLLM states its version.
pub const INFO_PATH: &str = "/version";

/// Continuous usage on every chunk; a counter moving each step; cold by its prompts (fresh
/// per prefill) alone.
pub const RULES: Rules = Rules {
    continuous_usage: true,
    chunks: Chunks::Text,
    counter: CounterMoves::EachStep,
    cold_field: None,
};

/// The snapshot field a vLLM metric feeds.
pub fn field(metric: &str) -> Option<Field> {
    Some(match metric {
        "vllm:num_requests_running" => Field::Running,
        "vllm:num_requests_waiting" => Field::Waiting,
        "vllm:kv_cache_usage_perc" => Field::KvCacheUsage,
        "vllm:num_preemptions" | "vllm:num_preemptions_total" => Field::Preemptions,
        "vllm:generation_tokens" | "vllm:generation_tokens_total" => Field::GenerationTokens,
        "vllm:prompt_tokens" | "vllm:prompt_tokens_total" => Field::PromptTokens,
        "vllm:prefix_cache_queries" | "vllm:prefix_cache_queries_total" => {
            Field::PrefixCacheQueries
        }
        "vllm:prefix_cache_hits" | "vllm:prefix_cache_hits_total" => Field::PrefixCacheHits,
        "vllm:request_prefill_time_seconds"
        | "vllm:request_prefill_time_seconds_sum"
        | "vllm:request_prefill_time_seconds_count"
        | "vllm:request_prefill_time_seconds_bucket" => Field::PrefillTime,
        "vllm:cache_config_info" => Field::CacheConfig,
        _ => return None,
    })
}

/// `{"version": "0.32.0"}`.
pub fn version(body: &[u8]) -> Option<String> {
    super::json_text(body, "version")
}

/// `{"model": …, "prompt": …}`.
pub fn tokenize_request(model: &str, prompt: &str) -> Value {
    serde_json::json!({"model": model, "prompt": prompt})
}

/// `{"count": N, "tokens": […], …}`.
pub fn token_count(body: &[u8]) -> Option<u64> {
    serde_json::from_slice::<Value>(body)
        .ok()?
        .get("count")?
        .as_u64()
}

#[cfg(test)]
mod tests {
    use super::super::Dialect;

    fn reference() -> String {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/vllm/metrics.txt"
        ))
        .unwrap()
    }

    #[test]
    fn vllm_is_picked_by_the_names_its_metrics_use() {
        let text = "# HELP x y\nvllm:num_requests_running{engine=\"0\"} 1.0\n";
        assert_eq!(Dialect::detect(text), Some(Dialect::Vllm));
        assert_eq!(Dialect::Vllm.name(), "vllm");
    }

    #[test]
    fn reads_the_real_vllm_metrics() {
        let text = reference();
        assert_eq!(Dialect::detect(&text), Some(Dialect::Vllm));
        let snapshot = Dialect::Vllm.snapshot(&text).unwrap();
        assert_eq!(snapshot.running, Some(0.0));
        assert_eq!(snapshot.waiting, Some(0.0));
        assert_eq!(snapshot.generation_tokens, Some(12834.0));
        assert_eq!(snapshot.prompt_tokens, Some(9963.0));
        assert_eq!(snapshot.prefix_cache_queries, Some(9963.0));
        assert_eq!(snapshot.prefix_cache_hits, Some(0.0));
        assert_eq!(snapshot.preemptions, Some(0.0));
        assert_eq!(snapshot.prefill_time_count, Some(196.0));
        assert!((snapshot.prefill_time_sum.unwrap() - 2.138963128998398).abs() < 1e-12);
        assert!(snapshot.is_idle());
        let cache = snapshot.cache.unwrap();
        assert_eq!(cache.block_size, Some(128));
        assert_eq!(cache.num_gpu_blocks, Some(4096));
        assert_eq!(cache.kv_tokens(), Some((524_288, "kv_cache_size_tokens")));
    }

    #[test]
    fn kv_size_falls_back_to_blocks_times_block_size() {
        let text = reference().replace("kv_cache_size_tokens=\"524288\",", "");
        let cache = Dialect::Vllm.snapshot(&text).unwrap().cache.unwrap();
        assert_eq!(cache.kv_cache_size_tokens, None);
        assert_eq!(
            cache.kv_tokens(),
            Some((4096 * 128, "num_gpu_blocks*block_size"))
        );
    }

    #[test]
    fn several_engines_are_summed() {
        let text = "# TYPE vllm:num_requests_running gauge\n\
            vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 3.0\n\
            vllm:num_requests_running{engine=\"1\",model_name=\"m\"} 2.0\n";
        assert_eq!(Dialect::Vllm.snapshot(text).unwrap().running, Some(5.0));
    }

    #[test]
    fn version_and_token_counts_are_read_from_vllm_s_answers() {
        assert_eq!(
            super::version(br#"{"version":"0.32.0"}"#).as_deref(),
            Some("0.32.0")
        );
        assert_eq!(super::version(b"<html>"), None);
        assert_eq!(
            super::token_count(br#"{"count":3,"tokens":[1,2,3]}"#),
            Some(3)
        );
        assert_eq!(super::token_count(br#"{"tokens":[1]}"#), None);
    }
}
