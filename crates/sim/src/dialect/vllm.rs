//! vLLM's dialect: `/metrics` in the Prometheus text format, with vLLM's metric names, label
//! sets and value formatting (floats always carry a decimal point: `3.0`, never `3`).

use std::fmt::Write;

use crate::engine::{Stats, stats_buckets};
use crate::profile::Profile;

fn float(value: f64) -> String {
    if value.is_finite() && value.fract() == 0.0 && value.abs() < 1e15 {
        format!("{value:.1}")
    } else {
        format!("{value}")
    }
}

pub fn render(profile: &Profile, stats: &Stats) -> String {
    let labels = format!("engine=\"0\",model_name=\"{}\"", profile.model);
    let mut out = String::with_capacity(8 * 1024);
    let mut metric = |name: &str, kind: &str, help: &str, value: f64| {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} {kind}");
        let _ = writeln!(out, "{name}{{{labels}}} {}", float(value));
    };
    metric(
        "vllm:num_requests_running",
        "gauge",
        "Number of requests in model execution batches.",
        stats.running as f64,
    );
    metric(
        "vllm:num_requests_waiting",
        "gauge",
        "Number of requests waiting to be processed.",
        stats.waiting as f64,
    );
    metric(
        "vllm:kv_cache_usage_perc",
        "gauge",
        "KV-cache usage. 1 means 100 percent usage.",
        stats.kv_cache_usage,
    );
    metric(
        "vllm:prefix_cache_queries_total",
        "counter",
        "Prefix cache queries, in terms of number of queried tokens.",
        stats.prefix_cache_queries as f64,
    );
    metric(
        "vllm:prefix_cache_hits_total",
        "counter",
        "Prefix cache hits, in terms of number of cached tokens.",
        stats.prefix_cache_hits as f64,
    );
    metric(
        "vllm:num_preemptions_total",
        "counter",
        "Cumulative number of preemption from the engine.",
        stats.preemptions as f64,
    );
    metric(
        "vllm:prompt_tokens_total",
        "counter",
        "Number of prefill tokens processed.",
        stats.prompt_tokens as f64,
    );
    metric(
        "vllm:generation_tokens_total",
        "counter",
        "Number of generation tokens processed.",
        stats.generation_tokens as f64,
    );
    metric(
        "vllm:request_success_total",
        "counter",
        "Count of successfully processed requests.",
        stats.requests_success as f64,
    );

    let name = "vllm:request_prefill_time_seconds";
    let _ = writeln!(
        out,
        "# HELP {name} Histogram of time spent in PREFILL phase for request."
    );
    let _ = writeln!(out, "# TYPE {name} histogram");
    for (bound, count) in stats_buckets().iter().zip(stats.prefill_time.buckets) {
        let _ = writeln!(
            out,
            "{name}_bucket{{engine=\"0\",le=\"{}\",model_name=\"{}\"}} {}",
            float(*bound),
            profile.model,
            float(count as f64)
        );
    }
    let count = float(stats.prefill_time.count as f64);
    let _ = writeln!(
        out,
        "{name}_bucket{{engine=\"0\",le=\"+Inf\",model_name=\"{}\"}} {count}",
        profile.model
    );
    let _ = writeln!(out, "{name}_count{{{labels}}} {count}");
    let _ = writeln!(out, "{name}_sum{{{labels}}} {}", stats.prefill_time.sum);

    let kv_tokens = profile.kv_cache_tokens();
    let max_concurrency = kv_tokens as f64 / profile.max_model_len as f64;
    let _ = writeln!(
        out,
        "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig"
    );
    let _ = writeln!(out, "# TYPE vllm:cache_config_info gauge");
    let _ = writeln!(
        out,
        "vllm:cache_config_info{{block_size=\"{}\",cache_dtype=\"auto\",enable_prefix_caching=\"True\",engine=\"0\",gpu_memory_utilization=\"0.9\",kv_cache_max_concurrency=\"{}\",kv_cache_size_tokens=\"{kv_tokens}\",num_cpu_blocks=\"None\",num_gpu_blocks=\"{}\",prefix_caching_hash_algo=\"sha256\"}} 1.0",
        profile.block_size,
        float(max_concurrency),
        profile.num_gpu_blocks
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_vllm_prints_them() {
        assert_eq!(float(0.0), "0.0");
        assert_eq!(float(12834.0), "12834.0");
        assert_eq!(float(0.25), "0.25");
    }

    #[test]
    fn the_text_names_what_a_harness_reads() {
        let profile = Profile::load("rtx3060-nemotron-nano-12b-awq").unwrap();
        let mut stats = Stats::default();
        stats.prefill_time.observe(0.4);
        stats.generation_tokens = 7;
        let text = render(&profile, &stats);
        for needle in [
            "vllm:num_requests_running{engine=\"0\",model_name=\"bench\"} 0.0",
            "vllm:generation_tokens_total{engine=\"0\",model_name=\"bench\"} 7.0",
            "vllm:request_prefill_time_seconds_bucket{engine=\"0\",le=\"0.3\",model_name=\"bench\"} 0.0",
            "vllm:request_prefill_time_seconds_bucket{engine=\"0\",le=\"0.5\",model_name=\"bench\"} 1.0",
            "vllm:request_prefill_time_seconds_count{engine=\"0\",model_name=\"bench\"} 1.0",
            "vllm:request_prefill_time_seconds_sum{engine=\"0\",model_name=\"bench\"} 0.4",
            "num_gpu_blocks=\"7424\"",
            "kv_cache_size_tokens=\"118784\"",
            "block_size=\"16\"",
        ] {
            assert!(text.contains(needle), "missing {needle}\n{text}");
        }
    }
}
