//! Step 1, preflight: what the server is, its KV cache, whether it is idle, whether it sends
//! continuous usage, its idle TTFT.

use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::watch;

use std::collections::HashMap;
use std::time::Duration;

use super::{Meter, Options, Progress, Runner, request_body};
use crate::BenchError;
use crate::cell;
use crate::client::Engine;
use crate::engine::Dialect;
use crate::plan::ServerSizes;
use crate::prompt::Counter;
use crate::report::{EngineFacts, Evidence};
use crate::stats::{median, secs};

impl Runner {
    pub(super) async fn preflight(
        mut engine: Engine,
        options: Options,
        progress: Option<UnboundedSender<Progress>>,
        cancel: watch::Receiver<bool>,
    ) -> Result<Self, BenchError> {
        if let Some(p) = &progress {
            let _ = p.send(Progress::Phase("preflight".to_owned()));
        }
        let models = engine.models().await?;
        let model = match &options.model {
            Some(wanted) => models
                .iter()
                .find(|m| &m.id == wanted)
                .cloned()
                .ok_or_else(|| {
                    BenchError::UnknownModel(format!(
                        "the server does not serve model {wanted:?}; it serves: {}",
                        models
                            .iter()
                            .map(|m| m.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?,
            None => models
                .first()
                .cloned()
                .ok_or_else(|| BenchError::Unsupported("/v1/models lists no model".to_owned()))?,
        };
        // The dialect, from what its metrics are named: one a verification requires; vLLM's
        // otherwise when they name none known.
        let mut text = engine.metrics_text().await?;
        let dialect = match text.as_deref().and_then(Dialect::detect) {
            Some(dialect) => dialect,
            None if options.require_dialect => {
                return Err(BenchError::Unsupported(format!(
                    "the server's /metrics name no engine the standard reads ({}); a \
                     verification needs an engine's own counters (vLLM serves them; llama.cpp \
                     with --metrics, SGLang with --enable-metrics, TGI always)",
                    Dialect::ALL.map(Dialect::name).join(", ")
                )));
            }
            // Measured as a server without metrics: nothing in them says what it does.
            None => {
                text = None;
                engine = engine.unread_metrics();
                Dialect::default()
            }
        };
        if let Some(stated) = &options.expect_engine
            && stated != dialect.name()
        {
            return Err(BenchError::Mismatch(format!(
                "the listing states engine {stated:?}, but the server speaks {}'s dialect",
                dialect.name()
            )));
        }
        engine = engine.speaking(dialect);
        let info = engine.info().await?;
        let metrics = text
            .map(|text| dialect.snapshot(&text))
            .transpose()
            .map_err(|e| BenchError::Engine(e.to_string()))?;
        let (sizes, kv_source) = ServerSizes::of(metrics.as_ref(), &info, &model);
        let mut facts = EngineFacts {
            name: dialect.name().to_owned(),
            version: info.version,
            base_url: Some(engine.base_url().to_owned()),
            model: model.id.clone(),
            max_model_len: sizes.max_model_len,
            kv_cache_tokens: sizes.kv_cache_tokens,
            kv_cache_source: kv_source.map(str::to_owned),
            cache_config: metrics
                .as_ref()
                .and_then(|m| m.cache.as_ref())
                .and_then(|c| serde_json::to_value(&c.labels).ok()),
            slots: sizes.slots,
            fingerprint: None,
        };
        facts.fingerprint = Some(facts.compute_fingerprint());
        let tokenize = engine.tokenize(&model.id, "probe").await?.is_some();
        let mut runner = Self {
            engine,
            params: options.params,
            model: model.id,
            facts,
            evidence: Evidence {
                metrics_endpoint: metrics.is_some(),
                tokenize_endpoint: tokenize,
                ..Evidence::default()
            },
            counter: if tokenize {
                Counter::Tokenize
            } else {
                Counter::Usage
            },
            prompts: HashMap::new(),
            prefill: Vec::new(),
            decode: Vec::new(),
            warmup_ttft_s: HashMap::new(),
            progress,
            cancel,
            partial: false,
            meter: Meter::default(),
        };
        let hold = Duration::from_secs_f64(runner.params.idle_secs);
        if !runner.wait_idle(hold).await {
            return Err(BenchError::Engine(format!(
                "the server did not become idle within {} s (other clients are using it?)",
                runner.params.idle_timeout_secs
            )));
        }
        // Continuous usage: does every chunk carry `usage`?
        let probe = runner
            .stream_once(&request_body(&runner.model, "Hello", 4), 4)
            .await?;
        if let Some(error) = probe.error {
            return Err(BenchError::Engine(format!(
                "a probe completion failed: {error}"
            )));
        }
        runner.evidence.continuous_usage = probe.saw_usage;
        // Idle TTFT of a tiny prompt, median of 5.
        let mut ttfts = Vec::new();
        for _ in 0..5 {
            let timeline = runner
                .stream_once(&request_body(&runner.model, "Hi", 1), 1)
                .await?;
            if let (Some(sent), Some(first)) = (timeline.sent, timeline.first_token()) {
                ttfts.push(secs(sent, first) * 1000.0);
            }
        }
        runner.evidence.idle_ttft_ms = median(&ttfts);
        let decode_total = runner.params.contexts.len() * runner.params.concurrency.len();
        let to_run = runner
            .params
            .contexts
            .iter()
            .flat_map(|p| runner.params.concurrency.iter().map(move |c| (*p, *c)))
            .filter(|(p, c)| runner.capacity_problem(*c, *p).is_none())
            .count();
        runner.emit(Progress::Plan {
            prefill: runner.params.prefill_contexts.len(),
            decode: decode_total,
            decode_to_run: to_run,
        });
        Ok(runner)
    }

    pub(super) fn capacity_problem(&self, concurrency: u64, context: u64) -> Option<String> {
        cell::over_capacity(
            concurrency,
            context,
            self.params.max_output,
            self.facts.kv_cache_tokens,
            self.facts.max_model_len,
            self.facts.slots,
        )
    }
}
