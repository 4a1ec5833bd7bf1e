//! Step 4, prefill: per context, a fresh prompt on a cold cache. Under `prefill_mode:
//! repeats`, dedicated prompts, repeated, and the median rate; under `warmup` (standard,
//! "Cost"), the first request of the context's decode warm-up, measured at the start of that
//! context's cells, and one dedicated request for a prefill context that is not a decode
//! context.

use super::{Progress, Runner};
use crate::cell;
use crate::engine::Snapshot;
use crate::params::PrefillMode;
use crate::report::{PrefillEntry, PrefillRepeat, Status};
use crate::stats::{median, secs};

impl Runner {
    /// The prefill contexts measured on their own, before the decode cells.
    pub(super) async fn prefill_phase(&mut self) {
        let contexts = self.params.prefill_contexts.clone();
        for context in contexts {
            if self.cancelled() {
                self.partial = true;
                return;
            }
            if !self.prefill_in_warmup(context) {
                self.prefill_measured(context).await;
            }
        }
    }

    /// At the start of a decode context: its prefill, when it comes from the warm-up.
    pub(super) async fn prefill_before_cells(&mut self, context: u64) {
        if self.prefill_in_warmup(context) && self.params.prefill_contexts.contains(&context) {
            self.prefill_measured(context).await;
        }
    }

    fn prefill_in_warmup(&self, context: u64) -> bool {
        self.params.prefill_mode == PrefillMode::Warmup && self.params.contexts.contains(&context)
    }

    async fn prefill_measured(&mut self, context: u64) {
        self.emit(Progress::Phase(format!("prefill {context}")));
        let entry = self.prefill_context(context).await;
        self.emit(Progress::PrefillFinished(entry.clone()));
        self.prefill.push(entry);
    }

    /// The prompts (phase, index) a context's prefill is measured with.
    fn prefill_prompts(&self, context: u64) -> Vec<(&'static str, u64)> {
        match self.params.prefill_mode {
            PrefillMode::Repeats => (0..u64::from(self.params.prefill_repeats))
                .map(|i| ("prefill", i))
                .collect(),
            // Decode prompt 0 serves stream 0 of every cell of the context (and every stream
            // in shared-prefix mode): measuring its prefill warms it.
            PrefillMode::Warmup if self.prefill_in_warmup(context) => vec![("decode", 0)],
            PrefillMode::Warmup => vec![("prefill", 0)],
        }
    }

    async fn prefill_context(&mut self, context: u64) -> PrefillEntry {
        let mut entry = PrefillEntry {
            context_tokens: context,
            concurrency: 1,
            status: Status::Valid,
            reasons: Vec::new(),
            prompt_tok_s: None,
            ttft_ms: None,
            prompt_tokens: None,
            repeats: Vec::new(),
        };
        if let Some(why) = cell::over_capacity(
            1,
            context,
            1,
            self.facts.kv_cache_tokens,
            self.facts.max_model_len,
            self.facts.slots,
        ) {
            entry.status = Status::OverCapacity;
            entry.reasons.push(why);
            return entry;
        }
        let mut rates = Vec::new();
        let mut ttfts = Vec::new();
        for (phase, index) in self.prefill_prompts(context) {
            if self.cancelled() {
                break;
            }
            if !self.quiet().await {
                entry
                    .reasons
                    .push("the server was not idle before a prefill".to_owned());
                continue;
            }
            let (body, tokens, record) = match self.prompt(phase, context, index).await {
                Ok(state) => (state.cold_body.clone(), state.sized.tokens, state.record),
                Err(e) => {
                    entry.reasons.push(e.to_string());
                    continue;
                }
            };
            let before = self.metrics().await;
            let timeline = match self.stream_once(&body, Self::WARM_TOKENS).await {
                Ok(t) => t,
                Err(e) => {
                    entry.reasons.push(e.to_string());
                    continue;
                }
            };
            let after = self.metrics().await;
            if let Some(error) = &timeline.error {
                entry
                    .reasons
                    .push(format!("a prefill request failed: {error}"));
                continue;
            }
            if !self.confirm(record, timeline.prompt_tokens) {
                entry.reasons.push(format!(
                    "the server counted {:?} prompt tokens, /tokenize {tokens}",
                    timeline.prompt_tokens
                ));
            }
            let (Some(sent), Some(first)) = (timeline.sent, timeline.first_token()) else {
                entry
                    .reasons
                    .push("a prefill request produced no token".to_owned());
                continue;
            };
            let ttft = secs(sent, first);
            if phase == "decode" {
                // It was the prompt's warm-up too.
                self.warmed(context, index, ttft);
            }
            let delta = |pick: fn(&Snapshot) -> Option<f64>| -> Option<f64> {
                Some(pick(after.as_ref()?)? - pick(before.as_ref()?)?)
            };
            let hits = delta(|s| s.prefix_cache_hits);
            if hits.is_some_and(|h| h > 0.0) {
                entry.reasons.push(format!(
                    "the prompt hit the prefix cache ({:.0} tokens), so the cache was not cold",
                    hits.unwrap_or_default()
                ));
            }
            let (prefill_s, source) = match (
                delta(|s| s.prefill_time_sum),
                delta(|s| s.prefill_time_count),
            ) {
                (Some(sum), Some(count)) if count == 1.0 && sum > 0.0 => (sum, "server_histogram"),
                _ => (
                    ttft - self.evidence.idle_ttft_ms.unwrap_or(0.0) / 1000.0,
                    "ttft_minus_idle",
                ),
            };
            let prompt_tokens = timeline.prompt_tokens.unwrap_or(tokens);
            if prefill_s > 0.0 {
                rates.push(prompt_tokens as f64 / prefill_s);
            }
            ttfts.push(ttft * 1000.0);
            entry.prompt_tokens = Some(prompt_tokens);
            entry.repeats.push(PrefillRepeat {
                prompt_tokens,
                ttft_ms: ttft * 1000.0,
                prefill_s,
                prefill_source: source.to_owned(),
                prefix_cache_hits: hits,
            });
        }
        entry.prompt_tok_s = median(&rates);
        entry.ttft_ms = median(&ttfts);
        if !entry.reasons.is_empty() || entry.repeats.is_empty() {
            entry.status = Status::Invalid;
            if entry.repeats.is_empty() && entry.reasons.is_empty() {
                entry.reasons.push("no repeat was measured".to_owned());
            }
        }
        entry
    }
}
