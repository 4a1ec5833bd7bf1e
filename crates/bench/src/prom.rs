//! Reads vLLM's `/metrics` (Prometheus text) with a real exposition-format parser and keeps
//! the figures the standard uses. Values are summed over label sets, so a server running
//! several engines reports its totals.

use std::collections::BTreeMap;

use prom_text_format_parser::{Scrape, ValueType};
use serde::Serialize;

/// The KV-cache facts from `vllm:cache_config_info`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CacheConfig {
    pub block_size: Option<u64>,
    pub num_gpu_blocks: Option<u64>,
    pub kv_cache_size_tokens: Option<u64>,
    /// Every label, as the server printed it.
    pub labels: BTreeMap<String, String>,
}

impl CacheConfig {
    /// KV-cache capacity in tokens and where it came from: `kv_cache_size_tokens` when the
    /// server reports it, else `num_gpu_blocks × block_size`.
    pub fn kv_tokens(&self) -> Option<(u64, &'static str)> {
        if let Some(tokens) = self.kv_cache_size_tokens {
            return Some((tokens, "kv_cache_size_tokens"));
        }
        match (self.num_gpu_blocks, self.block_size) {
            (Some(blocks), Some(size)) => Some((blocks * size, "num_gpu_blocks*block_size")),
            _ => None,
        }
    }
}

/// One reading of `/metrics`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub running: Option<f64>,
    pub waiting: Option<f64>,
    pub kv_cache_usage: Option<f64>,
    pub preemptions: Option<f64>,
    pub generation_tokens: Option<f64>,
    pub prompt_tokens: Option<f64>,
    pub prefix_cache_queries: Option<f64>,
    pub prefix_cache_hits: Option<f64>,
    pub prefill_time_sum: Option<f64>,
    pub prefill_time_count: Option<f64>,
    pub cache: Option<CacheConfig>,
}

#[derive(Debug, thiserror::Error)]
#[error("the /metrics text is not in the Prometheus format: {0}")]
pub struct ParseError(String);

fn number(raw: &str) -> Option<f64> {
    raw.parse().ok()
}

impl Snapshot {
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let lines = text.lines().count();
        if lines > crate::bounds::METRIC_SAMPLES {
            return Err(ParseError(format!(
                "/metrics has {lines} lines, more than the {} read",
                crate::bounds::METRIC_SAMPLES
            )));
        }
        let scrape = Scrape::parse(text).map_err(|e| ParseError(format!("{e:?}")))?;
        let mut snapshot = Snapshot::default();
        for metric in &scrape.metrics {
            let sum_of = |kind: ValueType| -> Option<f64> {
                let mut total = None;
                for sample in &metric.samples {
                    let is_bucket = sample.labels.iter().any(|l| l.key == "le");
                    if sample.value.value_type == kind
                        && !is_bucket
                        && let Some(v) = number(&sample.value.value)
                    {
                        *total.get_or_insert(0.0) += v;
                    }
                }
                total
            };
            let sample = || sum_of(ValueType::Sample);
            match metric.name.as_str() {
                "vllm:num_requests_running" => snapshot.running = sample(),
                "vllm:num_requests_waiting" => snapshot.waiting = sample(),
                "vllm:kv_cache_usage_perc" => snapshot.kv_cache_usage = sample(),
                "vllm:num_preemptions" | "vllm:num_preemptions_total" => {
                    snapshot.preemptions = sample();
                }
                "vllm:generation_tokens" | "vllm:generation_tokens_total" => {
                    snapshot.generation_tokens = sample();
                }
                "vllm:prompt_tokens" | "vllm:prompt_tokens_total" => {
                    snapshot.prompt_tokens = sample();
                }
                "vllm:prefix_cache_queries" | "vllm:prefix_cache_queries_total" => {
                    snapshot.prefix_cache_queries = sample();
                }
                "vllm:prefix_cache_hits" | "vllm:prefix_cache_hits_total" => {
                    snapshot.prefix_cache_hits = sample();
                }
                "vllm:request_prefill_time_seconds" => {
                    snapshot.prefill_time_sum = sum_of(ValueType::Sum);
                    snapshot.prefill_time_count = sum_of(ValueType::Count);
                }
                "vllm:cache_config_info" => {
                    if let Some(first) = metric.samples.first() {
                        // Kept in reports: bounded in number and length.
                        let labels: BTreeMap<String, String> = first
                            .labels
                            .iter()
                            .take(crate::bounds::LABELS)
                            .map(|l| {
                                (
                                    crate::bounds::clip(&l.key, crate::bounds::LABEL_VALUE),
                                    crate::bounds::clip(&l.value, crate::bounds::LABEL_VALUE),
                                )
                            })
                            .collect();
                        let int = |key: &str| labels.get(key).and_then(|v| v.parse::<u64>().ok());
                        snapshot.cache = Some(CacheConfig {
                            block_size: int("block_size"),
                            num_gpu_blocks: int("num_gpu_blocks"),
                            kv_cache_size_tokens: int("kv_cache_size_tokens"),
                            labels,
                        });
                    }
                }
                _ => {}
            }
        }
        Ok(snapshot)
    }

    /// Running and waiting are both zero.
    pub fn is_idle(&self) -> bool {
        self.running.unwrap_or(0.0) == 0.0 && self.waiting.unwrap_or(0.0) == 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference() -> String {
        std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/vllm/metrics.txt"
        ))
        .unwrap()
    }

    #[test]
    fn reads_the_real_vllm_metrics() {
        let snapshot = Snapshot::parse(&reference()).unwrap();
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
        let cache = Snapshot::parse(&text).unwrap().cache.unwrap();
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
        assert_eq!(Snapshot::parse(text).unwrap().running, Some(5.0));
    }

    #[test]
    fn garbage_is_an_error_not_zeroes() {
        assert!(Snapshot::parse("<html>not metrics</html>\n").is_err());
    }
}
