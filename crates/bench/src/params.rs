//! The run's parameters: the `standard` profile (the reference page's), `quick` (tests and
//! demos), and any override. The report records the values used.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameters {
    /// The profile the values started from: `standard` or `quick`.
    pub profile: String,
    /// Decode contexts, in tokens.
    pub contexts: Vec<u64>,
    /// Concurrency levels: streams at once.
    pub concurrency: Vec<u64>,
    /// Prefill contexts, in tokens.
    pub prefill_contexts: Vec<u64>,
    /// Length of each decode cell's measurement window.
    pub measure_secs: f64,
    /// `max_tokens` of each decode stream.
    pub max_output: u64,
    /// Prefill measurements per context; the median is reported.
    pub prefill_repeats: u32,
    /// Send one prompt to every stream of a cell (the reference tool's way). Not compliant.
    pub shared_prefix: bool,
    /// Seeds the prompt text; recorded so the prompts can be regenerated.
    pub prompt_seed: u64,
    /// How long the server must show no running or waiting request to count as idle.
    pub idle_secs: f64,
    /// The longest wait for the server to become idle.
    pub idle_timeout_secs: f64,
    /// The longest wait for every stream of a cell to produce its first token.
    pub readiness_timeout_secs: f64,
    /// A stream that receives no byte for this long has failed.
    pub stream_idle_timeout_secs: f64,
    /// How often `/metrics` is sampled during a window (the standard asks for at least 2 Hz).
    pub metrics_interval_ms: u64,
    /// Where prefill is measured ("Cost" in the standard). Reports from before the rule
    /// measured it in dedicated repeats.
    #[serde(default = "PrefillMode::before_cost_rules")]
    pub prefill_mode: PrefillMode,
    /// How long a decode window runs ("Cost" in the standard). Reports from before the rule
    /// ran every window its full length.
    #[serde(default = "WindowRule::before_cost_rules")]
    pub window_rule: WindowRule,
}

/// Where each context's prefill is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrefillMode {
    /// The first request of the context's decode warm-up: a fresh prompt on a cold cache,
    /// sent alone on an idle server. Prefill contexts that are not decode contexts get one
    /// such request of their own.
    Warmup,
    /// `prefill_repeats` dedicated fresh prompts per context; the median.
    Repeats,
}

impl PrefillMode {
    fn before_cost_rules() -> Self {
        Self::Repeats
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Warmup => "warmup",
            Self::Repeats => "repeats",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "warmup" => Some(Self::Warmup),
            "repeats" => Some(Self::Repeats),
            _ => None,
        }
    }
}

/// How long each decode window runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowRule {
    /// Ends once a third of the nominal length is measured and the 95 % confidence interval
    /// of `total_tok_s` (batch means, batches of a thirtieth of the length) is within ±1 %;
    /// otherwise runs the full length.
    Adaptive,
    /// Always the full `measure_secs`.
    Fixed,
}

impl WindowRule {
    fn before_cost_rules() -> Self {
        Self::Fixed
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Adaptive => "adaptive",
            Self::Fixed => "fixed",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "adaptive" => Some(Self::Adaptive),
            "fixed" => Some(Self::Fixed),
            _ => None,
        }
    }
}

/// The adaptive window's constants, as fractions of the nominal window so that a simulator
/// at `--time-scale 10` with 3 s windows behaves as a real server with 30 s windows.
pub mod adaptive {
    /// The shortest share of the nominal window that is measured.
    pub const MIN_SHARE: f64 = 1.0 / 3.0;
    /// Batches for the batch means: this share of the nominal window each.
    pub const BATCH_SHARE: f64 = 1.0 / 30.0;
    /// The 95 % confidence interval's half-width, relative to the estimate, that ends a window.
    pub const PRECISION: f64 = 0.01;
}

/// The reference page's parameters.
pub fn standard() -> Parameters {
    Parameters {
        profile: "standard".to_owned(),
        contexts: vec![0, 16_384, 32_768, 65_536, 81_920],
        concurrency: vec![1, 2, 4, 8, 16, 32, 64, 128],
        prefill_contexts: vec![8_192, 16_384, 32_768, 65_536, 81_920],
        measure_secs: 30.0,
        max_output: 8_192,
        prefill_repeats: 3,
        shared_prefix: false,
        prompt_seed: 0x5eed,
        idle_secs: 2.0,
        idle_timeout_secs: 600.0,
        readiness_timeout_secs: 900.0,
        stream_idle_timeout_secs: 900.0,
        metrics_interval_ms: 250,
        prefill_mode: PrefillMode::Warmup,
        window_rule: WindowRule::Adaptive,
    }
}

/// Small and fast, for tests and demos.
pub fn quick() -> Parameters {
    Parameters {
        profile: "quick".to_owned(),
        contexts: vec![0, 1_024],
        concurrency: vec![1, 2, 4],
        prefill_contexts: vec![1_024],
        measure_secs: 3.0,
        max_output: 256,
        prefill_repeats: 3,
        shared_prefix: false,
        prompt_seed: 0x5eed,
        idle_secs: 0.5,
        idle_timeout_secs: 60.0,
        readiness_timeout_secs: 60.0,
        stream_idle_timeout_secs: 60.0,
        metrics_interval_ms: 250,
        prefill_mode: PrefillMode::Warmup,
        window_rule: WindowRule::Adaptive,
    }
}

/// A profile by name.
pub fn profile(name: &str) -> Option<Parameters> {
    match name {
        "standard" => Some(standard()),
        "quick" => Some(quick()),
        _ => None,
    }
}

impl Parameters {
    /// Checks the values make a meaningful run; the message names the parameter.
    pub fn validate(&self) -> Result<(), String> {
        if self.concurrency.contains(&0) {
            return Err("concurrency: levels must be at least 1".into());
        }
        if !(self.measure_secs.is_finite() && self.measure_secs > 0.0) {
            return Err("measure_secs: must be a positive number of seconds".into());
        }
        if self.max_output == 0 {
            return Err("max_output: must be at least 1".into());
        }
        if self.prefill_repeats == 0 {
            return Err("prefill_repeats: must be at least 1".into());
        }
        if self.metrics_interval_ms == 0 || self.metrics_interval_ms > 500 {
            return Err(
                "metrics_interval_ms: the standard samples at 2 Hz or more (1..=500)".into(),
            );
        }
        for (name, value) in [
            ("idle_secs", self.idle_secs),
            ("idle_timeout_secs", self.idle_timeout_secs),
            ("readiness_timeout_secs", self.readiness_timeout_secs),
            ("stream_idle_timeout_secs", self.stream_idle_timeout_secs),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(format!("{name}: must be a non-negative number of seconds"));
            }
        }
        Ok(())
    }
}

/// Parses a list like `0,16384, 32K` (K = 1024). An empty string is an empty list.
pub fn parse_list(raw: &str) -> Result<Vec<u64>, String> {
    raw.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|item| {
            let (digits, factor) = match item.strip_suffix(['K', 'k']) {
                Some(digits) => (digits, 1024),
                None => (item, 1),
            };
            digits
                .parse::<u64>()
                .map(|n| n * factor)
                .map_err(|_| format!("{item:?} is not a whole number"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_with_binary_k() {
        assert_eq!(parse_list("0, 16K,32768").unwrap(), vec![0, 16384, 32768]);
        assert_eq!(parse_list("").unwrap(), Vec::<u64>::new());
        assert!(parse_list("1,two").unwrap_err().contains("two"));
    }

    #[test]
    fn profiles_are_valid_and_standard_is_the_page() {
        standard().validate().unwrap();
        quick().validate().unwrap();
        let s = standard();
        assert_eq!(s.contexts, vec![0, 16384, 32768, 65536, 81920]);
        assert_eq!(s.concurrency, vec![1, 2, 4, 8, 16, 32, 64, 128]);
        assert_eq!((s.measure_secs, s.max_output), (30.0, 8192));
        assert!(profile("huge").is_none());
    }
}
