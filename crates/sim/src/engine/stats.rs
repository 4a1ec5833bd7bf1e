//! The engine's counters and gauges, as vLLM exposes them on `/metrics`.

/// vLLM's bucket bounds for `request_prefill_time_seconds`.
pub const PREFILL_BUCKETS: [f64; 21] = [
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
    480.0, 960.0, 1920.0, 7680.0,
];

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histogram {
    /// Cumulative counts per bound of [`PREFILL_BUCKETS`].
    pub buckets: [u64; 21],
    pub sum: f64,
    pub count: u64,
}

impl Histogram {
    pub fn observe(&mut self, value: f64) {
        for (bound, bucket) in PREFILL_BUCKETS.iter().zip(self.buckets.iter_mut()) {
            if value <= *bound {
                *bucket += 1;
            }
        }
        self.sum += value;
        self.count += 1;
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    pub running: usize,
    pub waiting: usize,
    /// Share of KV blocks held by a sequence, 0..=1.
    pub kv_cache_usage: f64,
    pub preemptions: u64,
    pub generation_tokens: u64,
    /// The tokens of requests that have ended (llama.cpp counts generated tokens so).
    pub generation_tokens_ended: u64,
    /// Steps that generated tokens (llama.cpp's `llama_decode()` calls).
    pub decode_steps: u64,
    pub prompt_tokens: u64,
    /// The prompt tokens of requests that have ended (SGLang counts prompt tokens so).
    pub prompt_tokens_ended: u64,
    pub prefix_cache_queries: u64,
    pub prefix_cache_hits: u64,
    pub requests_success: u64,
    /// Seconds from a request's first scheduled prefill chunk to its first token.
    pub prefill_time: Histogram,
}
