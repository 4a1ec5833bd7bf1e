//! The procedure of the standard: preflight, prefill, the decode cells, compliance.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::watch;

use crate::BenchError;
use crate::cell::{self, Recording, Request};
use crate::client::{ChunkSink, Engine, StreamClient, Timeline};
use crate::params::Parameters;
use crate::prom::Snapshot;
use crate::prompt::{self, Counter};
use crate::report::{
    Compliance, DecodeCell, EngineFacts, Evidence, Harness, PrefillEntry, PrefillRepeat,
    PromptRecord, Report, STANDARD, Status,
};
use crate::stats::{median, secs};

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    pub base_url: String,
    /// The served model to use; `None` takes the server's first.
    pub model: Option<String>,
    /// The bearer token the engine requires, if any.
    pub api_key: Option<String>,
    pub params: Parameters,
}

/// What a run reports as it goes, for progress bars and live event streams.
#[derive(Debug, Clone)]
pub enum Progress {
    /// The run's shape: how many prefill contexts and decode cells it has, and how many of
    /// the cells will run.
    Plan {
        prefill: usize,
        decode: usize,
        decode_to_run: usize,
    },
    Phase(String),
    PrefillFinished(PrefillEntry),
    CellStarted {
        context_tokens: u64,
        concurrency: u64,
    },
    /// Output tokens per second across the running cell's streams, about twice a second.
    Live {
        tokens_per_s: f64,
    },
    CellFinished(DecodeCell),
}

/// Runs the matrix. Stops early, with `partial` set, when `cancel` turns true.
pub async fn run(
    options: Options,
    progress: Option<UnboundedSender<Progress>>,
    cancel: watch::Receiver<bool>,
) -> Result<Report, BenchError> {
    options.params.validate().map_err(BenchError::Setup)?;
    let started_at = chrono::Utc::now();
    let engine = Engine::new(&options.base_url, options.api_key.as_deref())?;
    let mut runner = Runner::preflight(engine, options, progress, cancel).await?;
    runner.prefill_phase().await;
    runner.decode_phase().await;
    Ok(runner.finish(started_at))
}

struct PromptState {
    sized: prompt::Sized,
    /// The body of the decode request (`max_tokens` = max output) and of the warm-up.
    decode_body: Arc<Vec<u8>>,
    warm_body: Vec<u8>,
    warmed: bool,
    record: usize,
}

struct Runner {
    engine: Engine,
    params: Parameters,
    model: String,
    facts: EngineFacts,
    evidence: Evidence,
    counter: Counter,
    prompts: HashMap<(&'static str, u64, u64), PromptState>,
    prefill: Vec<PrefillEntry>,
    decode: Vec<DecodeCell>,
    progress: Option<UnboundedSender<Progress>>,
    cancel: watch::Receiver<bool>,
    partial: bool,
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn request_body(model: &str, prompt: &str, max_tokens: u64) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "model": model,
        "prompt": prompt,
        "max_tokens": max_tokens,
        "temperature": 0,
        "ignore_eos": true,
        "stream": true,
        "stream_options": {"include_usage": true, "continuous_usage_stats": true},
    }))
    .unwrap_or_default()
}

/// Seconds of CPU this process has used (user + system), from `/proc/self/stat`.
fn process_cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    // Linux reports them in USER_HZ, which is 100 on every mainstream architecture.
    Some((utime + stime) / 100.0)
}

/// Counts a slot's tokens into the cell's live total; notes the slot's first token.
struct SlotSink {
    tokens: Arc<AtomicU64>,
    ready: Arc<AtomicUsize>,
    seen_first: bool,
}

impl ChunkSink for SlotSink {
    fn tokens(&mut self, _: Instant, count: u64) {
        self.tokens.fetch_add(count, Ordering::Relaxed);
        if !self.seen_first {
            self.seen_first = true;
            self.ready.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Runner {
    fn emit(&self, event: Progress) {
        if let Some(progress) = &self.progress {
            let _ = progress.send(event);
        }
    }

    fn cancelled(&self) -> bool {
        *self.cancel.borrow()
    }

    async fn preflight(
        engine: Engine,
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
                .ok_or_else(|| BenchError::NotVllm("/v1/models lists no model".to_owned()))?,
        };
        let version = engine.version().await?;
        let metrics = engine.metrics().await?;
        let kv = metrics
            .as_ref()
            .and_then(|m| m.cache.as_ref())
            .and_then(|c| c.kv_tokens());
        let facts = EngineFacts {
            name: "vllm".to_owned(),
            version,
            base_url: engine.base_url().to_owned(),
            model: model.id.clone(),
            max_model_len: model.max_model_len,
            kv_cache_tokens: kv.map(|(tokens, _)| tokens),
            kv_cache_source: kv.map(|(_, source)| source.to_owned()),
            cache_config: metrics
                .as_ref()
                .and_then(|m| m.cache.as_ref())
                .and_then(|c| serde_json::to_value(&c.labels).ok()),
        };
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
            progress,
            cancel,
            partial: false,
        };
        if !runner.wait_idle().await {
            return Err(BenchError::Engine(format!(
                "the server did not become idle within {} s (other clients are using it?)",
                runner.params.idle_timeout_secs
            )));
        }
        // Continuous usage: does every chunk carry `usage`?
        let probe = runner
            .stream_once(&request_body(&runner.model, "Hello", 4))
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
                .stream_once(&request_body(&runner.model, "Hi", 1))
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

    fn capacity_problem(&self, concurrency: u64, context: u64) -> Option<String> {
        cell::over_capacity(
            concurrency,
            context,
            self.params.max_output,
            self.facts.kv_cache_tokens,
            self.facts.max_model_len,
        )
    }

    /// One streamed request on a fresh connection, to its end.
    async fn stream_once(&self, body: &[u8]) -> Result<Timeline, BenchError> {
        let client = self.engine.stream_client()?;
        let idle = Duration::from_secs_f64(self.params.stream_idle_timeout_secs);
        Ok(client
            .stream(body, idle, &mut (), std::future::pending())
            .await)
    }

    /// Waits until the server shows no running or waiting request for `idle_secs`; `false`
    /// after `idle_timeout_secs`. Without `/metrics` it can only wait out `idle_secs`.
    async fn wait_idle(&self) -> bool {
        let hold = Duration::from_secs_f64(self.params.idle_secs);
        if !self.evidence.metrics_endpoint {
            tokio::time::sleep(hold).await;
            return true;
        }
        let deadline = Instant::now() + Duration::from_secs_f64(self.params.idle_timeout_secs);
        let mut idle_since: Option<Instant> = None;
        while Instant::now() < deadline {
            let idle = matches!(self.engine.metrics().await, Ok(Some(s)) if s.is_idle());
            let now = Instant::now();
            match (idle, idle_since) {
                (true, Some(since)) if now - since >= hold => return true,
                (true, None) => idle_since = Some(now),
                (false, _) => idle_since = None,
                _ => {}
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }

    async fn metrics(&self) -> Option<Snapshot> {
        self.engine.metrics().await.ok().flatten()
    }

    /// The prompt (phase, context, index), sized on first use.
    async fn prompt(
        &mut self,
        phase: &'static str,
        context: u64,
        index: u64,
    ) -> Result<&mut PromptState, BenchError> {
        let key = (phase, context, index);
        if !self.prompts.contains_key(&key) {
            let sized = prompt::size(
                &self.engine,
                &self.model,
                self.counter,
                self.params.prompt_seed,
                phase,
                context,
                index,
            )
            .await?;
            let decode_body = request_body(&self.model, &sized.text, self.params.max_output);
            let warm_body = request_body(&self.model, &sized.text, 1);
            let mut hashes = vec![sha256(&warm_body)];
            if phase == "decode" {
                hashes.push(sha256(&decode_body));
            }
            self.evidence.prompts.push(PromptRecord {
                phase: phase.to_owned(),
                context_tokens: context,
                index,
                prompt_tokens: sized.tokens,
                confirmed_tokens: None,
                body_sha256: hashes,
            });
            let record = self.evidence.prompts.len() - 1;
            self.prompts.insert(
                key,
                PromptState {
                    sized,
                    decode_body: Arc::new(decode_body),
                    warm_body,
                    warmed: false,
                    record,
                },
            );
        }
        self.prompts
            .get_mut(&key)
            .ok_or_else(|| BenchError::Setup("prompt vanished".to_owned()))
    }

    /// Notes the server's count of a prompt; `false` when it differs from the sizing count.
    fn confirm(&mut self, record: usize, reported: Option<u64>) -> bool {
        let Some(entry) = self.evidence.prompts.get_mut(record) else {
            return false;
        };
        entry.confirmed_tokens = reported;
        reported == Some(entry.prompt_tokens)
    }

    async fn prefill_phase(&mut self) {
        let contexts = self.params.prefill_contexts.clone();
        for context in contexts {
            if self.cancelled() {
                self.partial = true;
                return;
            }
            self.emit(Progress::Phase(format!("prefill {context}")));
            let entry = self.prefill_context(context).await;
            self.emit(Progress::PrefillFinished(entry.clone()));
            self.prefill.push(entry);
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
        ) {
            entry.status = Status::OverCapacity;
            entry.reasons.push(why);
            return entry;
        }
        let mut rates = Vec::new();
        let mut ttfts = Vec::new();
        for repeat in 0..u64::from(self.params.prefill_repeats) {
            if self.cancelled() {
                break;
            }
            if !self.wait_idle().await {
                entry
                    .reasons
                    .push("the server was not idle before a prefill".to_owned());
                continue;
            }
            let (body, tokens, record) = match self.prompt("prefill", context, repeat).await {
                Ok(state) => (state.warm_body.clone(), state.sized.tokens, state.record),
                Err(e) => {
                    entry.reasons.push(e.to_string());
                    continue;
                }
            };
            let before = self.metrics().await;
            let timeline = match self.stream_once(&body).await {
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

    async fn decode_phase(&mut self) {
        let contexts = self.params.contexts.clone();
        let levels = self.params.concurrency.clone();
        for context in contexts {
            for &concurrency in &levels {
                if self.cancelled() {
                    self.partial = true;
                    return;
                }
                let cell = match self.capacity_problem(concurrency, context) {
                    Some(why) => {
                        DecodeCell::not_run(context, concurrency, Status::OverCapacity, why)
                    }
                    None => {
                        self.emit(Progress::CellStarted {
                            context_tokens: context,
                            concurrency,
                        });
                        match self.decode_cell(context, concurrency).await {
                            Some(cell) => cell,
                            None => {
                                self.partial = true;
                                return;
                            }
                        }
                    }
                };
                self.emit(Progress::CellFinished(cell.clone()));
                self.decode.push(cell);
            }
        }
    }

    /// Runs one cell; `None` when the run was cancelled during it.
    async fn decode_cell(&mut self, context: u64, concurrency: u64) -> Option<DecodeCell> {
        let idle_before = self.wait_idle().await;
        let mut problems = Vec::new();

        // The prompts: stream i always gets prompt i of its context (prompt 0 for all in
        // shared-prefix mode); those not yet cached are warmed with a one-token request.
        let mut bodies = Vec::new();
        let mut to_warm = Vec::new();
        for slot in 0..concurrency {
            let index = if self.params.shared_prefix { 0 } else { slot };
            match self.prompt("decode", context, index).await {
                Ok(state) => {
                    bodies.push(Arc::clone(&state.decode_body));
                    if !state.warmed {
                        state.warmed = true;
                        to_warm.push((state.warm_body.clone(), state.record));
                    }
                }
                Err(e) => {
                    return Some(DecodeCell::not_run(
                        context,
                        concurrency,
                        Status::Invalid,
                        e.to_string(),
                    ));
                }
            }
        }
        let warmups =
            futures_util::future::join_all(to_warm.iter().map(|(body, _)| self.stream_once(body)))
                .await;
        for ((_, record), result) in to_warm.iter().zip(warmups) {
            match result {
                Ok(timeline) if timeline.error.is_none() => {
                    if !self.confirm(*record, timeline.prompt_tokens) {
                        problems.push(format!(
                            "a prompt was not confirmed: the server counted {:?} tokens",
                            timeline.prompt_tokens
                        ));
                    }
                }
                Ok(timeline) => problems.push(format!(
                    "warming a prompt failed: {}",
                    timeline.error.unwrap_or_default()
                )),
                Err(e) => problems.push(format!("warming a prompt failed: {e}")),
            }
        }
        if !problems.is_empty() {
            let mut cell =
                DecodeCell::not_run(context, concurrency, Status::Invalid, problems.remove(0));
            cell.reasons.extend(problems);
            return Some(cell);
        }

        // The streams.
        let (stop_tx, stop_rx) = watch::channel(false);
        let tokens = Arc::new(AtomicU64::new(0));
        let ready = Arc::new(AtomicUsize::new(0));
        let idle_timeout = Duration::from_secs_f64(self.params.stream_idle_timeout_secs);
        let mut slots = Vec::new();
        for (slot, body) in bodies.into_iter().enumerate() {
            let client = match self.engine.stream_client() {
                Ok(c) => c,
                Err(e) => {
                    return Some(DecodeCell::not_run(
                        context,
                        concurrency,
                        Status::Invalid,
                        e.to_string(),
                    ));
                }
            };
            let sink = SlotSink {
                tokens: Arc::clone(&tokens),
                ready: Arc::clone(&ready),
                seen_first: false,
            };
            slots.push(tokio::spawn(run_slot(
                slot,
                client,
                body,
                sink,
                idle_timeout,
                stop_rx.clone(),
            )));
        }

        // Ready when every stream has a token and nothing waits, or at the timeout.
        let readiness_deadline =
            Instant::now() + Duration::from_secs_f64(self.params.readiness_timeout_secs);
        let mut readiness_timed_out = false;
        loop {
            if self.cancelled() {
                let _ = stop_tx.send(true);
                return None;
            }
            if slots.iter().any(|s| s.is_finished()) {
                break; // a stream failed; the evaluation says so
            }
            if ready.load(Ordering::Relaxed) as u64 >= concurrency {
                let waiting = self.metrics().await.and_then(|m| m.waiting).unwrap_or(0.0);
                if waiting == 0.0 {
                    break;
                }
            }
            if Instant::now() >= readiness_deadline {
                readiness_timed_out = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }

        // The window; none when a stream already failed (the cell is invalid either way).
        let failed_early = slots.iter().any(|s| s.is_finished());
        let window = if failed_early {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(self.params.measure_secs)
        };
        let start = Instant::now();
        let cpu_start = process_cpu_secs();
        let sampler = tokio::spawn(sample_metrics(
            self.engine.clone(),
            Duration::from_millis(self.params.metrics_interval_ms),
            stop_rx.clone(),
        ));
        let lag_probe = tokio::spawn(probe_timer_lag(stop_rx.clone()));
        let end_at = start + window;
        let mut last_tokens = tokens.load(Ordering::Relaxed);
        let mut last_live = start;
        let mut cancelled = false;
        while Instant::now() < end_at {
            let next = (Instant::now() + Duration::from_millis(500)).min(end_at);
            let mut cancel = self.cancel.clone();
            tokio::select! {
                () = tokio::time::sleep_until(next.into()) => {}
                _ = cancel.wait_for(|c| *c) => { cancelled = true; break; }
            }
            let now = Instant::now();
            let total = tokens.load(Ordering::Relaxed);
            let rate = (total - last_tokens) as f64 / secs(last_live, now).max(1e-3);
            self.emit(Progress::Live { tokens_per_s: rate });
            last_tokens = total;
            last_live = now;
        }
        let end = Instant::now();
        let final_sample = self.metrics().await.map(|m| (end, m));
        let cpu_end = process_cpu_secs();
        let _ = stop_tx.send(true);
        let mut requests = Vec::new();
        for handle in slots {
            if let Ok(timelines) = handle.await {
                requests.extend(timelines);
            }
        }
        let mut samples = sampler.await.unwrap_or_default();
        samples.extend(final_sample);
        let timer_lags_ms = lag_probe.await.unwrap_or_default();
        if cancelled {
            return None;
        }
        let idle_after = self.wait_idle().await;
        let cpu_percent = match (cpu_start, cpu_end) {
            (Some(a), Some(b)) => Some((b - a) / secs(start, end) * 100.0),
            _ => None,
        };
        Some(cell::evaluate(&Recording {
            context_tokens: context,
            concurrency,
            start,
            end,
            requests,
            samples,
            timer_lags_ms,
            cpu_percent,
            idle_before,
            idle_after,
            readiness_timed_out,
            problems,
        }))
    }

    fn finish(mut self, started_at: chrono::DateTime<chrono::Utc>) -> Report {
        if self.cancelled() {
            self.partial = true;
        }
        let mut reasons = Vec::new();
        if !self.evidence.continuous_usage {
            reasons.push("the server does not send continuous usage stats; tokens were counted one per chunk".to_owned());
        }
        if !self.evidence.tokenize_endpoint {
            reasons.push("the server has no /tokenize; prompts were sized from usage".to_owned());
        }
        if !self.evidence.metrics_endpoint {
            reasons.push("the server has no /metrics: idleness, queueing, KV size and token counts could not be checked".to_owned());
        }
        let unconfirmed = self
            .evidence
            .prompts
            .iter()
            .filter(|p| p.confirmed_tokens.is_some_and(|c| c != p.prompt_tokens))
            .count();
        if unconfirmed > 0 {
            reasons.push(format!(
                "{unconfirmed} prompt lengths were not confirmed by the server"
            ));
        }
        for cell in &self.decode {
            if matches!(cell.status, Status::Invalid | Status::ClientBound) {
                reasons.push(format!(
                    "decode {} x {} is {}: {}",
                    cell.context_tokens,
                    cell.concurrency,
                    cell.status.words(),
                    cell.reasons.join("; ")
                ));
            }
        }
        for entry in &self.prefill {
            if entry.status == Status::Invalid {
                reasons.push(format!(
                    "prefill {} is invalid: {}",
                    entry.context_tokens,
                    entry.reasons.join("; ")
                ));
            }
        }
        if self.params.shared_prefix {
            reasons.push("shared-prefix mode: every stream of a cell used one prompt".to_owned());
        }
        if self.partial {
            reasons.push("the run was stopped before its end".to_owned());
        }
        Report {
            standard: STANDARD.to_owned(),
            parameters: self.params,
            engine: self.facts,
            hardware: serde_json::json!({}),
            prefill: self.prefill,
            decode: self.decode,
            compliance: Compliance {
                compliant: reasons.is_empty(),
                reasons,
            },
            harness: Harness::this(),
            evidence: self.evidence,
            partial: self.partial,
            started_at: started_at.to_rfc3339(),
            finished_at: chrono::Utc::now().to_rfc3339(),
        }
    }
}

/// One stream slot: streams its prompt, restarts it at once when it finishes, until told to
/// stop (or a request fails). Returns every request's timeline.
async fn run_slot(
    slot: usize,
    client: StreamClient,
    body: Arc<Vec<u8>>,
    mut sink: SlotSink,
    idle_timeout: Duration,
    mut stop: watch::Receiver<bool>,
) -> Vec<Request> {
    let mut requests = Vec::new();
    loop {
        let stop_signal = {
            let mut stop = stop.clone();
            async move {
                let _ = stop.wait_for(|s| *s).await;
            }
        };
        let timeline = client
            .stream(&body, idle_timeout, &mut sink, stop_signal)
            .await;
        let failed = timeline.error.is_some();
        requests.push(Request { slot, timeline });
        if *stop.borrow_and_update() || failed {
            return requests;
        }
    }
}

/// Samples `/metrics` every `interval` until stopped; each sample is stamped with the middle
/// of its request.
async fn sample_metrics(
    engine: Engine,
    interval: Duration,
    mut stop: watch::Receiver<bool>,
) -> Vec<(Instant, Snapshot)> {
    let mut samples = Vec::new();
    loop {
        let sent = Instant::now();
        if let Ok(Some(snapshot)) = engine.metrics().await {
            let received = Instant::now();
            samples.push((sent + (received - sent) / 2, snapshot));
        }
        let next = sent + interval;
        tokio::select! {
            () = tokio::time::sleep_until(next.into()) => {}
            _ = stop.wait_for(|s| *s) => return samples,
        }
    }
}

/// The client's own lag, every millisecond until stopped: how long a task that is ready to
/// run waits before the runtime resumes it (a yield's round trip). This is the delay every
/// token-arrival handler suffers on top of the network; tokio's timers round to whole
/// milliseconds, so timing a sleep would mostly measure that rounding.
async fn probe_timer_lag(mut stop: watch::Receiver<bool>) -> Vec<f64> {
    let mut lags = Vec::new();
    loop {
        let ready = Instant::now();
        tokio::task::yield_now().await;
        lags.push(secs(ready, Instant::now()) * 1000.0);
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(1)) => {}
            _ = stop.wait_for(|s| *s) => return lags,
        }
    }
}
