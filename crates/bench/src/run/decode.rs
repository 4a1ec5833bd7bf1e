//! Step 5, the decode cells: warm-up, C streams, readiness or saturation, the window with
//! `/metrics` sampled and the client's own lag measured, then the evaluation (`crate::cell`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};

use super::{Progress, Runner};
use crate::cell::{self, Readiness, Recording, Request, Sample};
use crate::client::{ChunkSink, Engine, StreamClient, StreamLimits};
use crate::params::{self, WindowRule};
use crate::report::{DecodeCell, Status};
use crate::stats::{self, secs};

/// How long the number of running requests must stay flat, with requests waiting, for a
/// server to count as saturated (step 5).
const SATURATION_HOLD: Duration = Duration::from_secs(2);
/// Readiness is polled at 5 Hz (the standard asks for at least 4 Hz), and checked at once when
/// the last stream produces its first token.
const READINESS_POLL: Duration = Duration::from_millis(200);
/// No cell waits less than this for readiness before the safety net trips.
const MIN_READINESS_LIMIT_SECS: f64 = 60.0;
/// How often a running cell reports its live rate.
const LIVE_EVERY_SECS: f64 = 0.5;

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

/// How many of a cell's streams have produced a token; wakes the readiness wait the moment
/// the last one does.
struct Produced {
    count: AtomicUsize,
    of: usize,
    all: Notify,
}

/// Counts a slot's tokens into the cell's live total; notes the slot's first token.
struct SlotSink {
    tokens: Arc<AtomicU64>,
    produced: Arc<Produced>,
    seen_first: bool,
}

impl ChunkSink for SlotSink {
    fn tokens(&mut self, _: Instant, count: u64) {
        self.tokens.fetch_add(count, Ordering::Relaxed);
        if !self.seen_first {
            self.seen_first = true;
            if self.produced.count.fetch_add(1, Ordering::Relaxed) + 1 == self.produced.of {
                self.produced.all.notify_one();
            }
        }
    }
}

impl Runner {
    pub(super) async fn decode_phase(&mut self) {
        let contexts = self.params.contexts.clone();
        let levels = self.params.concurrency.clone();
        for context in contexts {
            self.prefill_before_cells(context).await;
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
                self.emit(Progress::CellFinished(Box::new(cell.clone())));
                self.decode.push(cell);
            }
        }
    }

    /// Runs one cell; `None` when the run was cancelled during it.
    async fn decode_cell(&mut self, context: u64, concurrency: u64) -> Option<DecodeCell> {
        let idle_before = self.settle().await;
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
        let warmups = self
            .busy(futures_util::future::join_all(
                to_warm
                    .iter()
                    .map(|(body, _)| self.send_once(body, Self::WARM_TOKENS)),
            ))
            .await;
        for ((_, record), result) in to_warm.iter().zip(warmups) {
            match result {
                Ok(timeline) if timeline.error.is_none() => {
                    if let (Some(sent), Some(first)) = (timeline.sent, timeline.first_token()) {
                        self.note_warmup_ttft(context, secs(sent, first));
                    }
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
        let produced = Arc::new(Produced {
            count: AtomicUsize::new(0),
            of: bodies.len(),
            all: Notify::new(),
        });
        let limits = StreamLimits {
            max_tokens: self.params.max_output,
            idle: Duration::from_secs_f64(self.params.stream_idle_timeout_secs),
            total: None,
        };
        let mut slots = Vec::new();
        let sending = self.sending();
        self.meter.streamed.store(true, Ordering::Relaxed);
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
                produced: Arc::clone(&produced),
                seen_first: false,
            };
            slots.push(tokio::spawn(run_slot(
                slot,
                client,
                body,
                sink,
                limits,
                stop_rx.clone(),
            )));
        }

        let streams_started = Instant::now();
        let readiness = match self
            .await_readiness(concurrency, context, &produced, &slots)
            .await
        {
            Some(readiness) => readiness,
            None => {
                let _ = stop_tx.send(true);
                return None;
            }
        };

        // The window; none when a stream already failed or nothing progressed (the cell is
        // invalid either way).
        let window = match readiness {
            Readiness::Ready | Readiness::Saturated { .. } => {
                Duration::from_secs_f64(self.params.measure_secs)
            }
            Readiness::TimedOut { .. } | Readiness::StreamFailed => Duration::ZERO,
        };
        let start = Instant::now();
        let cpu_start = process_cpu_secs();
        let sampler = tokio::spawn(sample_metrics(
            self.engine.clone(),
            Duration::from_millis(self.params.metrics_interval_ms),
            stop_rx.clone(),
        ));
        let lags = Arc::new(LagTally::default());
        let lag_probe = tokio::spawn(probe_timer_lag(Arc::clone(&lags), stop_rx.clone()));
        let (end, window_half_width_pct, cancelled) =
            self.measure(start, window, &tokens, &lags, cpu_start).await;
        let final_sample = sample_once(&self.engine).await;
        let cpu_end = process_cpu_secs();
        let _ = stop_tx.send(true);
        let mut requests = Vec::new();
        for handle in slots {
            if let Ok(timelines) = handle.await {
                requests.extend(timelines);
            }
        }
        self.charge(sending);
        let mut samples = sampler.await.unwrap_or_default();
        samples.extend(final_sample);
        let timer_lags_ms = lag_probe.await.unwrap_or_default();
        if cancelled {
            return None;
        }
        let idle_after = self.settle().await;
        let cpu_percent = match (cpu_start, cpu_end) {
            (Some(a), Some(b)) => Some((b - a) / secs(start, end) * 100.0),
            _ => None,
        };
        Some(cell::evaluate(&Recording {
            context_tokens: context,
            concurrency,
            start,
            end,
            readiness_s: secs(streams_started, start),
            readiness,
            window_half_width_pct,
            requests,
            samples,
            sampling_interval_s: self.params.metrics_interval_ms as f64 / 1000.0,
            timer_lags_ms,
            cpu_percent,
            idle_before,
            idle_after,
            problems,
            rules: self.engine.dialect().rules(),
        }))
    }

    /// The window from `start`: its nominal length `window`, or less under the adaptive rule
    /// (standard, "Cost"): `tokens` is read at every batch boundary (a thirtieth of the
    /// nominal length); from a third of the length on, the window ends at the first boundary
    /// where the 95 % confidence interval of the batch means is within ±1 % of their mean.
    /// A window never ends early while the client so far looks bound (its timer lag p99 or
    /// CPU over the standard's limits): the client's verdict then rests on the whole window,
    /// as under the fixed rule. Returns the window's end, the half-width reached (percent of
    /// the mean), and whether the run was cancelled meanwhile.
    async fn measure(
        &self,
        start: Instant,
        window: Duration,
        tokens: &AtomicU64,
        lags: &LagTally,
        cpu_start: Option<f64>,
    ) -> (Instant, Option<f64>, bool) {
        let adaptive = self.params.window_rule == WindowRule::Adaptive;
        let end_at = start + window;
        let batch = window.mul_f64(params::adaptive::BATCH_SHARE);
        let shortest = window.mul_f64(params::adaptive::MIN_SHARE);
        let mut rates = Vec::new();
        let (mut batch_start, mut batch_tokens) = (start, tokens.load(Ordering::Relaxed));
        let (mut live_start, mut live_tokens) = (batch_start, batch_tokens);
        let half_width = |rates: &[f64]| {
            stats::mean_ci95(rates)
                .filter(|(mean, _)| *mean > 0.0)
                .map(|(mean, half)| half / mean * 100.0)
        };
        let mut cancel = self.cancel.clone();
        while Instant::now() < end_at {
            let next = (batch_start + batch).min(end_at);
            tokio::select! {
                () = tokio::time::sleep_until(next.into()) => {}
                _ = cancel.wait_for(|c| *c) => return (Instant::now(), half_width(&rates), true),
            }
            let now = Instant::now();
            let total = tokens.load(Ordering::Relaxed);
            if now < end_at || secs(batch_start, now) >= batch.as_secs_f64() / 2.0 {
                rates.push((total - batch_tokens) as f64 / secs(batch_start, now).max(1e-6));
            }
            (batch_start, batch_tokens) = (now, total);
            if secs(live_start, now) >= LIVE_EVERY_SECS {
                let rate = (total - live_tokens) as f64 / secs(live_start, now);
                self.emit(Progress::Live { tokens_per_s: rate });
                (live_start, live_tokens) = (now, total);
            }
            if adaptive
                && now - start >= shortest
                && half_width(&rates).is_some_and(|pct| pct <= params::adaptive::PRECISION * 100.0)
                && lags.within_limit()
                && cpu_within_limit(cpu_start, start, now)
            {
                return (now, half_width(&rates), false);
            }
        }
        (Instant::now(), half_width(&rates), false)
    }

    /// Waits for step 5's readiness: every stream has produced a token and nothing waits.
    /// A server that cannot run all C streams never gets there; it is saturated (and so ready)
    /// once something waits and the number running has not grown for `SATURATION_HOLD` since
    /// every admitted stream produced a token. Without `/metrics`, the client's own evidence
    /// decides: some streams produce tokens while the others' first token does not come.
    /// The safety net is max(60 s, 10 × the context's warm-up TTFT), capped by the
    /// configured readiness timeout. `None` when the run was cancelled.
    async fn await_readiness(
        &self,
        concurrency: u64,
        context: u64,
        produced: &Produced,
        slots: &[tokio::task::JoinHandle<Vec<Request>>],
    ) -> Option<Readiness> {
        let warmup = self.warmup_ttft_s.get(&context).copied().unwrap_or(0.0);
        let limit = (10.0 * warmup)
            .max(MIN_READINESS_LIMIT_SECS)
            .min(self.params.readiness_timeout_secs);
        let began = Instant::now();
        let deadline = began + Duration::from_secs_f64(limit);
        let with_metrics = self.evidence.metrics_endpoint;
        // The most streams seen running (or, without metrics, producing), and since when.
        let mut most = 0u64;
        let mut most_since = began;
        let mut all_admitted_since: Option<Instant> = None;
        loop {
            if self.cancelled() {
                return None;
            }
            if slots.iter().any(|s| s.is_finished()) {
                return Some(Readiness::StreamFailed);
            }
            let now = Instant::now();
            let streams = produced.count.load(Ordering::Relaxed) as u64;
            let (running, waiting) = if with_metrics {
                match self.metrics().await {
                    Some(m) => (m.running.map(|r| r as u64), m.waiting.map(|w| w > 0.0)),
                    None => (None, None),
                }
            } else {
                (Some(streams), Some(streams < concurrency))
            };
            if streams >= concurrency && waiting != Some(true) {
                return Some(Readiness::Ready);
            }
            if let Some(running) = running {
                if running > most {
                    most = running;
                    most_since = now;
                }
                // Every admitted stream has produced a token.
                if waiting == Some(true) && most > 0 && streams >= most {
                    let since = *all_admitted_since.get_or_insert(now);
                    let stable = since.max(most_since);
                    if now.duration_since(stable) >= SATURATION_HOLD {
                        return Some(Readiness::Saturated {
                            running: most,
                            from_metrics: with_metrics,
                        });
                    }
                } else {
                    all_admitted_since = None;
                }
            }
            if Instant::now() >= deadline {
                return Some(Readiness::TimedOut {
                    waited_s: secs(began, Instant::now()),
                });
            }
            // The next poll, or at once when the last stream produces its first token.
            let polled = tokio::select! {
                polled = self.engine.pause(READINESS_POLL) => polled,
                () = produced.all.notified() => true,
            };
            if !polled {
                return None;
            }
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
    limits: StreamLimits,
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
        let timeline = client.stream(&body, limits, &mut sink, stop_signal).await;
        let failed = timeline.error.is_some();
        requests.push(Request {
            slot,
            initial: requests.is_empty(),
            timeline,
        });
        if *stop.borrow_and_update() || failed {
            return requests;
        }
    }
}

/// One `/metrics` reading with the times its request was sent and answered.
async fn sample_once(engine: &Engine) -> Option<Sample> {
    let sent = Instant::now();
    let snapshot = engine.metrics().await.ok().flatten()?;
    Some(Sample {
        sent,
        received: Instant::now(),
        snapshot,
    })
}

/// Samples `/metrics` every `interval` until stopped.
async fn sample_metrics(
    engine: Engine,
    interval: Duration,
    mut stop: watch::Receiver<bool>,
) -> Vec<Sample> {
    let mut samples = Vec::new();
    loop {
        let next = Instant::now() + interval;
        samples.extend(sample_once(&engine).await);
        tokio::select! {
            () = tokio::time::sleep_until(next.into()) => {}
            _ = stop.wait_for(|s| *s) => return samples,
        }
    }
}

/// The probe's running count of its lags, and of those over the standard's p99 limit.
#[derive(Debug, Default)]
struct LagTally {
    samples: AtomicU64,
    over: AtomicU64,
}

impl LagTally {
    fn add(&self, lag_ms: f64) {
        self.samples.fetch_add(1, Ordering::Relaxed);
        if lag_ms > cell::MAX_TIMER_LAG_P99_MS {
            self.over.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// At most 1 % of the lags so far passed the limit: their p99 is within it.
    fn within_limit(&self) -> bool {
        self.over.load(Ordering::Relaxed) * 100 <= self.samples.load(Ordering::Relaxed)
    }
}

/// The process's CPU use since `start` is within the standard's limit for the client.
fn cpu_within_limit(cpu_start: Option<f64>, start: Instant, now: Instant) -> bool {
    match (cpu_start, process_cpu_secs()) {
        (Some(a), Some(b)) => {
            (b - a) / secs(start, now).max(1e-3) * 100.0 <= cell::MAX_CLIENT_CPU_PERCENT
        }
        _ => true,
    }
}

/// The client's own lag, about every millisecond until stopped. Each probe records the larger
/// of two delays: how long a task that is ready to run waits before the runtime resumes it (a
/// yield's round trip: what every token-arrival handler suffers on top of the network), and
/// how late the probe itself woke (a 1 ms sleep wakes within 2 ms on a free machine; a
/// process the kernel does not schedule wakes later, and so does every read it would make).
async fn probe_timer_lag(tally: Arc<LagTally>, mut stop: watch::Receiver<bool>) -> Vec<f64> {
    const EXPECTED_WAKE_MS: f64 = 2.0;
    let mut lags = Vec::new();
    loop {
        let ready = Instant::now();
        tokio::task::yield_now().await;
        let resumed = Instant::now();
        let yield_ms = secs(ready, resumed) * 1000.0;
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(1)) => {}
            _ = stop.wait_for(|s| *s) => {
                lags.push(yield_ms);
                return lags;
            }
        }
        let late = secs(resumed, Instant::now()) * 1000.0 - EXPECTED_WAKE_MS;
        let lag = yield_ms.max(late);
        tally.add(lag);
        lags.push(lag);
    }
}
