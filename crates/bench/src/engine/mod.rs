//! What differs between inference engines, behind one seam: how each names its `/metrics`
//! (mapped here onto the normalised [`Snapshot`] the standard reads), how it answers
//! `/version` and `/tokenize`, and the name its facts carry. One module per dialect; the
//! dialect is picked at preflight from what the server's `/metrics` names, never guessed from
//! its address. Each is measured by the standard's rules for it ([`Rules`]): vLLM's
//! ([`vllm`]) and llama.cpp's ([`llamacpp`]) checked against the real servers in the suite,
//! SGLang's ([`sglang`]) and TGI's ([`tgi`]) written from their source
//! ([`Dialect::checked_against_real_server`]). A server
//! whose metrics name no known dialect is refused by a verification
//! ([`crate::Options::require_dialect`]) and otherwise read as vLLM, as before the seam.

pub mod llamacpp;
pub mod sglang;
pub mod tgi;
pub mod vllm;

use std::collections::BTreeMap;

use prom_text_format_parser::{Scrape, ValueType};
use serde::Serialize;

/// An engine's dialect.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub enum Dialect {
    #[default]
    Vllm,
    LlamaCpp,
    Sglang,
    Tgi,
}

/// When an engine's generated-token counter moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterMoves {
    /// As tokens are made (vLLM's, SGLang's): a window's delta is the tokens made in it.
    EachStep,
    /// As requests end (llama.cpp's `tokens_predicted_total`, TGI's histograms): a window's
    /// delta is the tokens of the requests that ended in it, whole; requests a client stops
    /// are never counted.
    AtRequestEnd,
}

/// How a dialect's server sends its tokens in chunks, for counting them without running usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chunks {
    /// Any number of tokens a chunk (vLLM's, SGLang's): each chunk with text counts one, a
    /// fallback that under-counts, so a run that needed it is not compliant.
    Text,
    /// One chunk per token, text or not, and the answer's end in a chunk of its own
    /// (llama.cpp's, whose tokens that render as nothing come as empty text): each chunk with
    /// a choice that is not the end counts one.
    PerToken,
    /// One chunk per token, the last carrying the finish reason with the last token (TGI's,
    /// `router/src/server.rs`: its final `CompletionFinal` and its chat's last chunk are the
    /// last token's): each chunk with a choice counts one.
    PerTokenToTheEnd,
}

/// How the standard measures one dialect's server (its "Targets" table): how its streams'
/// tokens are counted, when its counter moves, and what a cold request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Its streams carry each chunk's running usage when asked (`continuous_usage_stats`):
    /// then a run without it is not compliant. Otherwise tokens are counted one per content
    /// chunk, and each request's final usage must agree with its chunks.
    pub continuous_usage: bool,
    /// How a stream's chunks are counted without running usage.
    pub chunks: Chunks,
    pub counter: CounterMoves,
    /// A field a request carries to be measured on a cold cache (prefill, and the warm-up
    /// whose first token is a prefill): llama.cpp's `cache_prompt: false`. Decode streams and
    /// other warm-ups keep the cache.
    pub cold_field: Option<(&'static str, bool)>,
}

/// A figure of the normalised snapshot a dialect's metric feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Running,
    Waiting,
    KvCacheUsage,
    Preemptions,
    GenerationTokens,
    PromptTokens,
    /// Prompt tokens reused from a cache and not counted in [`Field::PromptTokens`]
    /// (llama.cpp): added to the prompt tokens, and the prefix cache's hits.
    PromptTokensCached,
    PrefixCacheQueries,
    PrefixCacheHits,
    /// A histogram of prefill times: its sum and count.
    PrefillTime,
    /// The KV cache's configuration, in the labels of an info gauge.
    CacheConfig,
}

/// The KV-cache facts an engine states (vLLM: `cache_config_info`).
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

/// What an engine's info endpoint states of its capacity (llama.cpp's `/props`); vLLM states
/// its capacity in `/v1/models` and `/metrics` instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capacity {
    /// The most tokens (prompt and output) one request may hold.
    pub max_model_len: Option<u64>,
    /// KV-cache capacity in tokens, and where it came from.
    pub kv_tokens: Option<(u64, &'static str)>,
    /// The requests it runs at once, each in a slot of its own.
    pub slots: Option<u64>,
}

/// One reading of `/metrics`, whatever the engine calls its figures.
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

impl Snapshot {
    /// Running and waiting are both zero.
    pub fn is_idle(&self) -> bool {
        self.running.unwrap_or(0.0) == 0.0 && self.waiting.unwrap_or(0.0) == 0.0
    }
}

#[derive(Debug, thiserror::Error)]
#[error("the /metrics text is not in the Prometheus format: {0}")]
pub struct ParseError(String);

impl Dialect {
    /// Every dialect the harness reads.
    pub const ALL: [Self; 4] = [Self::Vllm, Self::LlamaCpp, Self::Sglang, Self::Tgi];

    /// The dialect of this name (`engine.name`); `None` for a name the harness does not read.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|dialect| dialect.name() == name)
    }

    /// The name an engine's facts carry (`engine.name` in reports).
    pub fn name(self) -> &'static str {
        match self {
            Self::Vllm => vllm::NAME,
            Self::LlamaCpp => llamacpp::NAME,
            Self::Sglang => sglang::NAME,
            Self::Tgi => tgi::NAME,
        }
    }

    /// Whether this dialect's rules were checked against its real server in the suite (vLLM's
    /// and llama.cpp's); SGLang's and TGI's are written from their source, which their pages
    /// in the book say.
    pub fn checked_against_real_server(self) -> bool {
        matches!(self, Self::Vllm | Self::LlamaCpp)
    }

    /// How the standard measures this dialect's server.
    pub fn rules(self) -> Rules {
        match self {
            Self::Vllm => vllm::RULES,
            Self::LlamaCpp => llamacpp::RULES,
            Self::Sglang => sglang::RULES,
            Self::Tgi => tgi::RULES,
        }
    }

    /// The dialect whose metric names a `/metrics` text uses; `None` when it names none known.
    pub fn detect(metrics: &str) -> Option<Self> {
        let names: Vec<&str> = metrics
            .lines()
            .filter(|line| !line.starts_with('#'))
            .map(metric_name)
            .collect();
        Self::ALL
            .into_iter()
            .find(|dialect| names.iter().any(|name| dialect.field(name).is_some()))
    }

    fn field(self, metric: &str) -> Option<Field> {
        match self {
            Self::Vllm => vllm::field(metric),
            Self::LlamaCpp => llamacpp::field(metric),
            Self::Sglang => sglang::field(metric),
            Self::Tgi => tgi::field(metric),
        }
    }

    /// Where the engine states its version: vLLM's `/version`, llama.cpp's `/props`.
    pub fn info_path(self) -> &'static str {
        match self {
            Self::Vllm => vllm::INFO_PATH,
            Self::LlamaCpp => llamacpp::INFO_PATH,
            Self::Sglang => sglang::INFO_PATH,
            Self::Tgi => tgi::INFO_PATH,
        }
    }

    /// Reads `/metrics` (Prometheus text, with a real exposition-format parser) into the
    /// normalised snapshot. Values are summed over label sets, so a server running several
    /// engines reports its totals.
    pub fn snapshot(self, text: &str) -> Result<Snapshot, ParseError> {
        let lines = text.lines().count();
        if lines > crate::bounds::METRIC_SAMPLES {
            return Err(ParseError(format!(
                "/metrics has {lines} lines, more than the {} read",
                crate::bounds::METRIC_SAMPLES
            )));
        }
        let scrape = Scrape::parse(text).map_err(|e| ParseError(format!("{e:?}")))?;
        let mut snapshot = Snapshot::default();
        let mut cached = None;
        for metric in &scrape.metrics {
            let Some(field) = self.field(metric.name.as_str()) else {
                continue;
            };
            let sum_of = |kind: ValueType| -> Option<f64> {
                let mut total = None;
                for sample in &metric.samples {
                    let is_bucket = sample.labels.iter().any(|l| l.key == "le");
                    if sample.value.value_type == kind
                        && !is_bucket
                        && let Ok(v) = sample.value.value.parse::<f64>()
                    {
                        *total.get_or_insert(0.0) += v;
                    }
                }
                total
            };
            let sample = || sum_of(ValueType::Sample);
            match field {
                Field::Running => snapshot.running = sample(),
                Field::Waiting => snapshot.waiting = sample(),
                Field::KvCacheUsage => snapshot.kv_cache_usage = sample(),
                Field::Preemptions => snapshot.preemptions = sample(),
                // A counter, or a histogram of tokens per request (TGI's): its sum.
                Field::GenerationTokens => {
                    snapshot.generation_tokens = sample().or_else(|| sum_of(ValueType::Sum))
                }
                Field::PromptTokens => {
                    snapshot.prompt_tokens = sample().or_else(|| sum_of(ValueType::Sum))
                }
                Field::PromptTokensCached => cached = sample(),
                Field::PrefixCacheQueries => snapshot.prefix_cache_queries = sample(),
                Field::PrefixCacheHits => snapshot.prefix_cache_hits = sample(),
                Field::PrefillTime => {
                    snapshot.prefill_time_sum = sum_of(ValueType::Sum);
                    snapshot.prefill_time_count = sum_of(ValueType::Count);
                }
                Field::CacheConfig => {
                    if let Some(first) = metric.samples.first() {
                        snapshot.cache = Some(cache_config(
                            first
                                .labels
                                .iter()
                                .map(|l| (l.key.as_str(), l.value.as_str())),
                        ));
                    }
                }
            }
        }
        if let Some(cached) = cached {
            let all = snapshot.prompt_tokens.unwrap_or(0.0) + cached;
            snapshot.prompt_tokens = Some(all);
            snapshot.prefix_cache_queries = Some(all);
            snapshot.prefix_cache_hits = Some(cached);
        }
        Ok(snapshot)
    }

    /// The version the engine's [`Dialect::info_path`] answered, when it says.
    pub fn version(self, body: &[u8]) -> Option<String> {
        match self {
            Self::Vllm => vllm::version(body),
            Self::LlamaCpp => llamacpp::version(body),
            Self::Sglang => sglang::version(body),
            Self::Tgi => tgi::version(body),
        }
    }

    /// The capacity the engine's [`Dialect::info_path`] answer states.
    pub fn capacity(self, body: &[u8]) -> Capacity {
        match self {
            Self::LlamaCpp => llamacpp::capacity(body),
            Self::Vllm | Self::Sglang | Self::Tgi => Capacity::default(),
        }
    }

    /// The body of a `POST /tokenize` of `prompt`; `None` for a dialect whose tokenizing
    /// endpoint the harness does not know (none today). SGLang's takes and answers vLLM's
    /// shape (`python/sglang/srt/entrypoints/openai/protocol.py`, `TokenizeRequest`).
    pub fn tokenize_request(self, model: &str, prompt: &str) -> Option<serde_json::Value> {
        match self {
            Self::Vllm | Self::Sglang => Some(vllm::tokenize_request(model, prompt)),
            Self::LlamaCpp => Some(llamacpp::tokenize_request(prompt)),
            Self::Tgi => Some(tgi::tokenize_request(prompt)),
        }
    }

    /// The token count a `/tokenize` answer gives; `None` when it gives none.
    pub fn token_count(self, body: &[u8]) -> Option<u64> {
        match self {
            Self::Vllm | Self::Sglang => vllm::token_count(body),
            Self::LlamaCpp => llamacpp::token_count(body),
            Self::Tgi => tgi::token_count(body),
        }
    }

    /// The token ids a `/tokenize` answer lists (at most [`crate::bounds::TOKEN_IDS`]);
    /// `None` when it lists none the harness reads.
    pub fn token_ids(self, body: &[u8]) -> Option<Vec<u64>> {
        let answer = serde_json::from_slice::<serde_json::Value>(body).ok()?;
        let list = match self {
            Self::Vllm | Self::LlamaCpp | Self::Sglang => answer.get("tokens")?.as_array()?,
            Self::Tgi => answer.as_array()?,
        };
        list.iter()
            .take(crate::bounds::TOKEN_IDS)
            .map(|token| token.as_u64().or_else(|| token.get("id")?.as_u64()))
            .collect()
    }
}

/// A string field of an engine's JSON answer, clipped: where each states its version.
fn json_text(body: &[u8], key: &str) -> Option<String> {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()?
        .get(key)?
        .as_str()
        .map(|v| crate::bounds::clip(v, crate::bounds::VERSION))
}

/// The length of a list of tokens: a tokenize answer's count.
fn count_of(tokens: &serde_json::Value) -> Option<u64> {
    u64::try_from(tokens.as_array()?.len()).ok()
}

/// The metric name of one exposition line (`name{labels} value` or `name value`).
fn metric_name(line: &str) -> &str {
    let end = line
        .find(|c: char| c == '{' || c.is_whitespace())
        .unwrap_or(line.len());
    &line[..end]
}

/// A cache configuration from an info gauge's labels, kept in reports: bounded in number and
/// length.
fn cache_config<'a>(labels: impl Iterator<Item = (&'a str, &'a str)>) -> CacheConfig {
    let labels: BTreeMap<String, String> = labels
        .take(crate::bounds::LABELS)
        .map(|(key, value)| {
            (
                crate::bounds::clip(key, crate::bounds::LABEL_VALUE),
                crate::bounds::clip(value, crate::bounds::LABEL_VALUE),
            )
        })
        .collect();
    let int = |key: &str| labels.get(key).and_then(|v| v.parse::<u64>().ok());
    CacheConfig {
        block_size: int("block_size"),
        num_gpu_blocks: int("num_gpu_blocks"),
        kv_cache_size_tokens: int("kv_cache_size_tokens"),
        labels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_of_no_known_dialect_pick_none() {
        assert_eq!(Dialect::detect("# TYPE up gauge\nup 1\n"), None);
        assert_eq!(Dialect::detect(""), None);
    }

    #[test]
    fn garbage_is_an_error_not_zeroes() {
        assert!(
            Dialect::Vllm
                .snapshot("<html>not metrics</html>\n")
                .is_err()
        );
    }

    #[test]
    fn metrics_of_no_known_dialect_read_as_nothing() {
        let snapshot = Dialect::Vllm
            .snapshot("# TYPE other_running gauge\nother_running 3\n")
            .unwrap();
        assert_eq!(snapshot, Snapshot::default());
    }
}
