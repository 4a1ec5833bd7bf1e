//! The procedure of the standard: preflight (`preflight.rs`), prefill (`prefill.rs`), the
//! decode cells (`decode.rs`), and the compliance verdict (here).

mod decode;
mod prefill;
mod preflight;

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::watch;

use crate::BenchError;
use crate::client::{Engine, StreamLimits, Timeline};
use crate::engine::Snapshot;
use crate::params::Parameters;
use crate::prompt::{self, Counter};
use crate::report::{
    Compliance, Cost, DecodeCell, EngineFacts, Evidence, Harness, PrefillEntry, PromptRecord,
    Report, STANDARD, Status,
};

/// What to measure.
#[derive(Debug, Clone)]
pub struct Options {
    pub base_url: String,
    /// The served model to use; `None` takes the server's first.
    pub model: Option<String>,
    /// The bearer token the engine requires, if any (never printed).
    pub api_key: Option<secrecy::SecretString>,
    pub params: Parameters,
    /// Where the harness may connect ([`outbound`]).
    pub outbound: outbound::Policy,
    /// Whether the server must speak a dialect the harness knows (a verification: its badge
    /// rests on the engine's own counters). Without it, a server whose `/metrics` name no known
    /// engine is measured as vLLM's would be, its queueing and counters unobserved
    /// (`gpumarket bench` on Ollama, say).
    pub require_dialect: bool,
    /// The engine the listing states it runs (`engine.name`): a server speaking another
    /// dialect is refused ([`BenchError::Mismatch`]).
    pub expect_engine: Option<String>,
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
    CellFinished(Box<DecodeCell>),
}

/// Runs the matrix. Stops early, with `partial` set, when `cancel` turns true.
pub async fn run(
    options: Options,
    progress: Option<UnboundedSender<Progress>>,
    cancel: watch::Receiver<bool>,
) -> Result<Report, BenchError> {
    options.params.validate().map_err(BenchError::Setup)?;
    // Until the run ends: no CPU sleeps so deeply that the lag probe's timers fire late.
    let _wakeups = crate::wakeup::FastWakeups::request();
    let started_at = chrono::Utc::now();
    let began = Instant::now();
    let engine = Engine::new(
        &options.base_url,
        options
            .api_key
            .as_ref()
            .map(secrecy::ExposeSecret::expose_secret),
        options.outbound,
    )?
    .stopped_by(cancel.clone());
    let mut runner = Runner::preflight(engine, options, progress, cancel).await?;
    runner.prefill_phase().await;
    runner.decode_phase().await;
    Ok(runner.finish(started_at, began))
}

struct PromptState {
    sized: prompt::Sized,
    /// The body of the decode request (`max_tokens` = max output) and of the warm-up.
    decode_body: Arc<Vec<u8>>,
    warm_body: Vec<u8>,
    /// The warm-up's body as a cold request, for a prefill measurement: the same unless the
    /// dialect's rules add a field ([`crate::engine::Rules::cold_field`]).
    cold_body: Vec<u8>,
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
    /// The slowest warm-up TTFT seen per decode context, in seconds: it bounds how long a
    /// cell of that context may take to become ready.
    warmup_ttft_s: HashMap<u64, f64>,
    progress: Option<UnboundedSender<Progress>>,
    cancel: watch::Receiver<bool>,
    partial: bool,
    /// What the run costs the server, as it goes.
    meter: Meter,
}

/// The server time a run takes, and whether the server is known to be idle (nothing sent
/// since it last showed idle), so that back-to-back waits for idleness do not repeat.
#[derive(Debug, Default)]
struct Meter {
    busy_ns: AtomicU64,
    idle_known: AtomicBool,
    /// Decode streams ran since the server last held idle for `idle_secs`.
    streamed: AtomicBool,
}

/// Between cells the server is idle once it shows no running or waiting request for this
/// long (two readings or more): it needs no longer to let go of closed streams. Preflight
/// (step 1), and a cold prefill after decode cells ([`Runner::quiet`]), hold `idle_secs`.
const SETTLE_HOLD: Duration = Duration::from_millis(100);

/// Seconds to the millisecond.
fn round_ms(secs: f64) -> f64 {
    (secs * 1000.0).round() / 1000.0
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn request_body(model: &str, prompt: &str, max_tokens: u64) -> Vec<u8> {
    serde_json::to_vec(&request_json(model, prompt, max_tokens)).unwrap_or_default()
}

/// A request that reads the server's cache cold: [`request_body`] with the dialect's field.
fn cold_request_body(
    model: &str,
    prompt: &str,
    max_tokens: u64,
    field: Option<(&str, bool)>,
) -> Vec<u8> {
    let mut json = request_json(model, prompt, max_tokens);
    if let (Some((key, value)), Some(object)) = (field, json.as_object_mut()) {
        object.insert(key.to_owned(), value.into());
    }
    serde_json::to_vec(&json).unwrap_or_default()
}

fn request_json(model: &str, prompt: &str, max_tokens: u64) -> serde_json::Value {
    serde_json::json!({
        "model": model,
        "prompt": prompt,
        "max_tokens": max_tokens,
        "temperature": 0,
        "ignore_eos": true,
        "stream": true,
        "stream_options": {"include_usage": true, "continuous_usage_stats": true},
    })
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

    /// The prompt's token count, the warm-up's `max_tokens`.
    const WARM_TOKENS: u64 = 1;

    /// One short streamed request (`max_tokens` at most a few) on a fresh connection, to
    /// its end, counted as server time: the whole request is bounded by the stream idle
    /// timeout.
    async fn stream_once(&self, body: &[u8], max_tokens: u64) -> Result<Timeline, BenchError> {
        self.busy(self.send_once(body, max_tokens)).await
    }

    /// [`Runner::stream_once`] without counting server time: for requests sent together,
    /// whose caller counts them once.
    async fn send_once(&self, body: &[u8], max_tokens: u64) -> Result<Timeline, BenchError> {
        let client = self.engine.stream_client()?;
        let idle = Duration::from_secs_f64(self.params.stream_idle_timeout_secs);
        let limits = StreamLimits {
            max_tokens,
            idle,
            total: Some(idle),
        };
        let timeline = client
            .stream(body, limits, &mut (), std::future::pending())
            .await;
        if self.engine.halted() {
            return Err(BenchError::Stopped);
        }
        Ok(timeline)
    }

    /// Runs `work`, which sends requests to the server, counting its duration as server time
    /// (concurrent requests inside one `work` count once).
    async fn busy<T>(&self, work: impl Future<Output = T>) -> T {
        let began = self.sending();
        let out = work.await;
        self.charge(began);
        out
    }

    /// Notes that requests go out from now on (the server is no longer known to be idle).
    fn sending(&self) -> Instant {
        self.meter.idle_known.store(false, Ordering::Relaxed);
        Instant::now()
    }

    /// Counts the time since `began` as server time.
    fn charge(&self, began: Instant) {
        let spent = u64::try_from(began.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.meter.busy_ns.fetch_add(spent, Ordering::Relaxed);
    }

    /// Waits until the server is idle between measurements (`SETTLE_HOLD`), at once when
    /// nothing was sent since it last was; `false` after `idle_timeout_secs`.
    async fn settle(&self) -> bool {
        if self.meter.idle_known.load(Ordering::Relaxed) {
            return true;
        }
        let hold = if self.evidence.metrics_endpoint {
            SETTLE_HOLD
        } else {
            Duration::from_secs_f64(self.params.idle_secs)
        };
        self.wait_idle(hold).await
    }

    /// Before a cold prefill measurement: the standard's idleness (`idle_secs`, 2 s) when
    /// decode streams ran since it last held — a real engine is still letting go of them
    /// (on real vLLM a 256-token prefill measured 100 ms after a 32-stream cell took 40 %
    /// longer than on a quiet server) — else as between cells.
    async fn quiet(&self) -> bool {
        if !self.meter.streamed.load(Ordering::Relaxed) {
            return self.settle().await;
        }
        let idle = self
            .wait_idle(Duration::from_secs_f64(self.params.idle_secs))
            .await;
        if idle {
            self.meter.streamed.store(false, Ordering::Relaxed);
        }
        idle
    }

    /// Waits until the server shows no running or waiting request for `hold`; `false`
    /// after `idle_timeout_secs`. Without `/metrics` it can only wait out `hold`.
    async fn wait_idle(&self, hold: Duration) -> bool {
        let idle = self.wait_idle_unrecorded(hold).await;
        self.meter.idle_known.store(idle, Ordering::Relaxed);
        idle
    }

    async fn wait_idle_unrecorded(&self, hold: Duration) -> bool {
        if !self.evidence.metrics_endpoint {
            return self.engine.pause(hold).await;
        }
        let deadline = Instant::now() + Duration::from_secs_f64(self.params.idle_timeout_secs);
        let mut idle_since: Option<Instant> = None;
        while Instant::now() < deadline && !self.engine.halted() {
            let idle = matches!(self.engine.metrics().await, Ok(Some(s)) if s.is_idle());
            let now = Instant::now();
            match (idle, idle_since) {
                (true, Some(since)) if now - since >= hold => return true,
                (true, None) => idle_since = Some(now),
                (false, _) => idle_since = None,
                _ => {}
            }
            self.engine.pause(Duration::from_millis(50)).await;
        }
        false
    }

    async fn metrics(&self) -> Option<Snapshot> {
        self.engine.metrics().await.ok().flatten()
    }

    /// Notes a warm-up's TTFT: the slowest per context bounds its cells' readiness wait.
    fn note_warmup_ttft(&mut self, context: u64, ttft_s: f64) {
        let slowest = self.warmup_ttft_s.entry(context).or_insert(0.0);
        *slowest = slowest.max(ttft_s);
    }

    /// A decode prompt was warmed outside its cell (its prefill measured in warm-up mode):
    /// the prompts are the run's, shared by the prefill and decode phases.
    fn warmed(&mut self, context: u64, index: u64, ttft_s: f64) {
        if let Some(state) = self.prompts.get_mut(&("decode", context, index)) {
            state.warmed = true;
        }
        self.note_warmup_ttft(context, ttft_s);
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
            let warm_body = request_body(&self.model, &sized.text, Self::WARM_TOKENS);
            let cold_body = cold_request_body(
                &self.model,
                &sized.text,
                Self::WARM_TOKENS,
                self.engine.dialect().rules().cold_field,
            );
            let mut hashes = vec![sha256(&warm_body)];
            if cold_body != warm_body {
                hashes.push(sha256(&cold_body));
            }
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
                    cold_body,
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

    fn finish(mut self, started_at: chrono::DateTime<chrono::Utc>, began: Instant) -> Report {
        if self.cancelled() {
            self.partial = true;
        }
        let order = |context: &u64| {
            let position = self
                .params
                .prefill_contexts
                .iter()
                .position(|c| c == context);
            position.unwrap_or(usize::MAX)
        };
        self.prefill
            .sort_by_key(|entry| order(&entry.context_tokens));
        let skipped = self
            .decode
            .iter()
            .filter(|c| c.status == Status::OverCapacity)
            .count();
        let cost = Cost {
            wall_s: round_ms(began.elapsed().as_secs_f64()),
            gpu_s_estimate: round_ms(self.meter.busy_ns.load(Ordering::Relaxed) as f64 / 1e9),
            cells_run: (self.decode.len() - skipped) as u64,
            cells_skipped: skipped as u64,
        };
        let mut reasons = Vec::new();
        if self.engine.dialect().rules().continuous_usage && !self.evidence.continuous_usage {
            reasons.push("the server does not send continuous usage stats; tokens were counted one per chunk".to_owned());
        }
        if !self.evidence.tokenize_endpoint {
            reasons.push("the server has no /tokenize; prompts were sized from usage".to_owned());
        }
        if !self.evidence.metrics_endpoint {
            reasons.push("the server has no /metrics the harness reads (none, or none naming an engine it knows): idleness, queueing, KV size and token counts could not be checked".to_owned());
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
            cost: Some(cost),
            energy: None,
        }
    }
}
