//! Engine profiles: the engine's limits and its performance model, as TOML. Two are built in;
//! any other can be loaded from a file.

use std::path::Path;

use serde::Deserialize;

/// What a simulated engine is: its configuration as vLLM would report it, and how fast it is.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The served model id (`/v1/models`).
    pub model: String,
    /// The vLLM version `/version` reports.
    pub engine_version: String,
    pub max_model_len: usize,
    /// At most this many sequences run at once; more wait.
    pub max_num_seqs: usize,
    /// Tokens one step may process (decodes count one each; prefill is chunked to fit).
    pub max_num_batched_tokens: usize,
    pub block_size: usize,
    pub num_gpu_blocks: usize,
    /// Tokens per streamed chunk (vLLM's `--stream-interval`).
    pub stream_interval: usize,
    /// Whether streamed chunks carry running usage when asked (`continuous_usage_stats`);
    /// older vLLM and other engines do not, which makes a run non-compliant.
    #[serde(default = "yes")]
    pub continuous_usage: bool,
    /// Like vLLM's `--api-key`: when set, `/v1/*` answers 401 without
    /// `Authorization: Bearer <key>`.
    #[serde(default)]
    pub api_key: Option<String>,
    /// Like vLLM's stats logging: `/metrics` shows the engine as it was when last published,
    /// at most this many (simulated) milliseconds ago. 0 publishes live.
    #[serde(default)]
    pub metrics_refresh_ms: f64,
    /// The engine the simulator stands in for: its metric names, info endpoints and
    /// `/tokenize` (`gpumarket sim --dialect`).
    #[serde(default)]
    pub dialect: Dialect,
    pub performance: Performance,
}

/// The performance model, in milliseconds of the simulated hardware (before `--time-scale`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Performance {
    pub request_overhead_ms: f64,
    pub step_base_ms: f64,
    pub decode_per_seq_ms: f64,
    pub decode_per_context_token_ms: f64,
    pub decode_batch_context_ms: f64,
    pub prefill_linear_ms: f64,
    pub prefill_quadratic_ms: f64,
}

fn yes() -> bool {
    true
}

#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("no built-in profile {0:?}; built in: {built_in}", built_in = BUILT_IN.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "))]
    Unknown(String),
    #[error("reading profile {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("profile {name}: {source}")]
    Parse {
        name: String,
        source: toml::de::Error,
    },
    #[error("profile {name}: {why}")]
    Invalid { name: String, why: String },
}

const BUILT_IN: &[(&str, &str)] = &[
    (
        "rtx3060-nemotron-nano-12b-awq",
        include_str!("../profiles/rtx3060-nemotron-nano-12b-awq.toml"),
    ),
    ("tiny", include_str!("../profiles/tiny.toml")),
    ("stress", include_str!("../profiles/stress.toml")),
    ("queued", include_str!("../profiles/queued.toml")),
];

impl Profile {
    /// A built-in profile by name, or a TOML file when `name` is a path to one.
    pub fn load(name: &str) -> Result<Self, ProfileError> {
        if let Some((_, text)) = BUILT_IN.iter().find(|(n, _)| *n == name) {
            return Self::parse(name, text);
        }
        let path = Path::new(name);
        if path.extension().is_some_and(|e| e == "toml") || path.exists() {
            let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Read {
                path: name.to_owned(),
                source,
            })?;
            return Self::parse(name, &text);
        }
        Err(ProfileError::Unknown(name.to_owned()))
    }

    pub fn built_in_names() -> impl Iterator<Item = &'static str> {
        BUILT_IN.iter().map(|(n, _)| *n)
    }

    pub fn parse(name: &str, text: &str) -> Result<Self, ProfileError> {
        let profile: Self = toml::from_str(text).map_err(|source| ProfileError::Parse {
            name: name.to_owned(),
            source,
        })?;
        profile.validate().map_err(|why| ProfileError::Invalid {
            name: name.to_owned(),
            why,
        })?;
        Ok(profile)
    }

    fn validate(&self) -> Result<(), String> {
        let positive = [
            ("max_model_len", self.max_model_len),
            ("max_num_seqs", self.max_num_seqs),
            ("max_num_batched_tokens", self.max_num_batched_tokens),
            ("block_size", self.block_size),
            ("num_gpu_blocks", self.num_gpu_blocks),
            ("stream_interval", self.stream_interval),
        ];
        for (name, value) in positive {
            if value == 0 {
                return Err(format!("{name} must be positive"));
            }
        }
        if !(self.metrics_refresh_ms.is_finite() && self.metrics_refresh_ms >= 0.0) {
            return Err("metrics_refresh_ms must be a non-negative number".to_owned());
        }
        let p = &self.performance;
        let times = [
            ("request_overhead_ms", p.request_overhead_ms),
            ("step_base_ms", p.step_base_ms),
            ("decode_per_seq_ms", p.decode_per_seq_ms),
            ("decode_per_context_token_ms", p.decode_per_context_token_ms),
            ("decode_batch_context_ms", p.decode_batch_context_ms),
            ("prefill_linear_ms", p.prefill_linear_ms),
            ("prefill_quadratic_ms", p.prefill_quadratic_ms),
        ];
        for (name, value) in times {
            if !value.is_finite() || value < 0.0 {
                return Err(format!("performance.{name} must be a non-negative number"));
            }
        }
        if p.step_base_ms + p.decode_per_seq_ms + p.prefill_linear_ms <= 0.0 {
            return Err("a step must take some time".to_owned());
        }
        Ok(())
    }

    /// KV-cache capacity in tokens.
    pub fn kv_cache_tokens(&self) -> usize {
        self.num_gpu_blocks * self.block_size
    }
}

impl Performance {
    /// Milliseconds of one step that decodes `batch` sequences holding `context` tokens in
    /// all, plus `prefill_ms` of prefill chunks. Every step pays the base.
    pub fn step_ms(&self, batch: usize, context: usize, prefill_ms: f64) -> f64 {
        let b = batch as f64;
        let k = context as f64;
        let decode = if batch == 0 {
            0.0
        } else {
            self.decode_per_seq_ms * b
                + self.decode_per_context_token_ms * k
                + self.decode_batch_context_ms * (b - 1.0) * k
        };
        self.step_base_ms + decode + prefill_ms
    }

    /// Milliseconds to prefill positions `start..end` of a sequence.
    pub fn prefill_ms(&self, start: usize, end: usize) -> f64 {
        let (s, e) = (start as f64, end as f64);
        self.prefill_linear_ms * (e - s) + self.prefill_quadratic_ms * (e * e - s * s)
    }
}

/// The engine the simulator stands in for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    #[default]
    Vllm,
    LlamaCpp,
    Sglang,
    Tgi,
}

impl Dialect {
    /// The dialect named so on the command line (`vllm`, `llamacpp`, `sglang`, `tgi`).
    pub fn of_name(name: &str) -> Option<Self> {
        match name {
            "vllm" => Some(Self::Vllm),
            "llamacpp" => Some(Self::LlamaCpp),
            "sglang" => Some(Self::Sglang),
            "tgi" => Some(Self::Tgi),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_profiles_load_and_unknown_names_say_what_exists() {
        for name in Profile::built_in_names() {
            Profile::load(name).unwrap();
        }
        let err = Profile::load("h100-imaginary").unwrap_err().to_string();
        assert!(err.contains("tiny") && err.contains("rtx3060"), "{err}");
    }

    #[test]
    fn the_reference_profile_holds_the_kv_cache_the_page_implies() {
        let p = Profile::load("rtx3060-nemotron-nano-12b-awq").unwrap();
        assert!((98_304..=131_071).contains(&p.kv_cache_tokens()));
        assert_eq!(p.max_model_len, 90_112);
        assert_eq!(p.max_num_seqs, 36);
    }

    #[test]
    fn the_reference_profile_reproduces_the_page_prefill_rates() {
        let p = Profile::load("rtx3060-nemotron-nano-12b-awq").unwrap();
        for (context, page_rate) in [
            (8192, 950.0),
            (16384, 846.0),
            (32768, 716.0),
            (65536, 548.0),
            (81920, 489.0),
        ] {
            // Chunked: each chunk is one step and pays the step base.
            let mut ms = 0.0;
            let mut start = 0;
            while start < context {
                let end = (start + p.max_num_batched_tokens).min(context);
                ms += p
                    .performance
                    .step_ms(0, 0, p.performance.prefill_ms(start, end));
                start = end;
            }
            let rate = context as f64 / (ms / 1000.0);
            assert!(
                (rate / page_rate - 1.0).abs() < 0.03,
                "{context}: {rate:.0} tok/s vs the page's {page_rate}"
            );
        }
    }

    #[test]
    fn the_reference_profile_reproduces_the_page_time_between_tokens() {
        let p = Profile::load("rtx3060-nemotron-nano-12b-awq").unwrap();
        // Context held: the prompt plus ~600 tokens decoded on average over a 30 s window.
        for (context, streams, page_tbt) in [
            (0, 1, 24.8),
            (0, 2, 26.0),
            (0, 4, 28.2),
            (16384, 1, 26.9),
            (16384, 2, 31.0),
            (16384, 4, 39.0),
            (32768, 1, 28.9),
        ] {
            let held = streams * (context + 600);
            let tbt = p.performance.step_ms(streams, held, 0.0);
            assert!(
                (tbt / page_tbt - 1.0).abs() < 0.05,
                "{context}x{streams}: {tbt:.1} ms vs the page's {page_tbt}"
            );
        }
    }
}
