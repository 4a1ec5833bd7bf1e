//! The engine: one scheduler thread runs the whole batch in steps, like vLLM's engine core.
//!
//! Each step it picks the work (running sequences first: a decode is one token, a prefill a
//! chunk; then waiting sequences are admitted while the token budget, `max_num_seqs` and free
//! KV blocks allow), asks the performance model how long the step takes, waits that long, and
//! hands every sequence its new token. One loop and one timer drive all sequences, so ten
//! thousand streams cost ten thousand channel sends per step, not ten thousand sleeping tasks.

mod blocks;
mod stats;

use std::collections::VecDeque;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::UnboundedSender;

use self::blocks::{BlockId, BlockPool, block_hash};
pub use self::stats::{Histogram, Stats};

/// The bucket bounds of the prefill-time histogram.
pub fn stats_buckets() -> &'static [f64] {
    &stats::PREFILL_BUCKETS
}
use crate::profile::Profile;
use crate::tokenizer;

/// What a request receives from the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// New output tokens (more than one with `stream_interval` > 1).
    Tokens(Vec<u32>),
    /// The sequence is done; no more events follow.
    Finished,
}

/// A request handed to the engine.
#[derive(Debug)]
pub struct Submission {
    pub prompt: Vec<u32>,
    pub max_tokens: usize,
    /// Seeds the deterministic output tokens.
    pub seed: u64,
    pub events: UnboundedSender<Event>,
    /// Whether the prompt may reuse cached blocks (llama.cpp's `cache_prompt: false` says not).
    pub reuse_cache: bool,
}

enum Command {
    Submit(Submission),
    ResetPrefixCache,
}

/// How many times faster than its profile the simulator runs, shared by the engine and its
/// HTTP layer and changeable while it serves (a machine slowed mid-booking, in tests).
#[derive(Debug, Clone)]
pub struct TimeScale(Arc<std::sync::atomic::AtomicU64>);

impl TimeScale {
    pub fn get(&self) -> f64 {
        f64::from_bits(self.0.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Runs every later step `scale` times faster than the profile (a positive number).
    pub fn set(&self, scale: f64) {
        assert!(scale.is_finite() && scale > 0.0, "a time scale is positive");
        self.0
            .store(scale.to_bits(), std::sync::atomic::Ordering::Relaxed);
    }
}

impl From<f64> for TimeScale {
    fn from(scale: f64) -> Self {
        Self(Arc::new(std::sync::atomic::AtomicU64::new(scale.to_bits())))
    }
}

/// The handle the HTTP layer holds. Dropping every handle stops the engine thread.
#[derive(Debug, Clone)]
pub struct Engine {
    commands: mpsc::Sender<Command>,
    stats: Arc<Mutex<Stats>>,
}

impl Engine {
    /// Starts the scheduler thread. `time_scale` divides every duration of the model.
    pub fn start(profile: Arc<Profile>, time_scale: impl Into<TimeScale>) -> std::io::Result<Self> {
        let (commands, rx) = mpsc::channel();
        let stats = Arc::new(Mutex::new(Stats::default()));
        let scheduler = Scheduler {
            pool: BlockPool::new(profile.num_gpu_blocks),
            profile,
            time_scale: time_scale.into(),
            waiting: VecDeque::new(),
            running: Vec::new(),
            rx,
            stats: Arc::clone(&stats),
            next_id: 0,
        };
        std::thread::Builder::new()
            .name("sim-engine".to_owned())
            .spawn(move || scheduler.run())?;
        Ok(Self { commands, stats })
    }

    /// Queues a request. `false` when the engine has stopped.
    pub fn submit(&self, submission: Submission) -> bool {
        self.commands.send(Command::Submit(submission)).is_ok()
    }

    pub fn reset_prefix_cache(&self) -> bool {
        self.commands.send(Command::ResetPrefixCache).is_ok()
    }

    /// A copy of the counters and gauges, as `/metrics` shows them.
    pub fn stats(&self) -> Stats {
        self.stats.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

#[derive(Debug)]
struct Seq {
    id: u64,
    /// Prompt and output so far.
    tokens: Vec<u32>,
    prompt_len: usize,
    max_tokens: usize,
    /// Tokens whose KV is in the cache.
    computed: usize,
    blocks: Vec<BlockId>,
    /// Hashes of the full blocks registered so far, in order.
    hashes: Vec<u64>,
    seed: u64,
    events: UnboundedSender<Event>,
    pending: Vec<u32>,
    prefill_started: Option<Instant>,
    /// Never admitted before (a preempted sequence is not counted twice).
    fresh: bool,
    reuse_cache: bool,
}

impl Seq {
    fn output_len(&self) -> usize {
        self.tokens.len() - self.prompt_len
    }
}

struct Scheduler {
    profile: Arc<Profile>,
    time_scale: TimeScale,
    pool: BlockPool,
    waiting: VecDeque<Seq>,
    running: Vec<Seq>,
    rx: mpsc::Receiver<Command>,
    stats: Arc<Mutex<Stats>>,
    next_id: u64,
}

/// One sequence's share of a step.
struct Work {
    seq: u64,
    tokens: usize,
}

impl Scheduler {
    fn run(mut self) {
        let mut clock = Instant::now();
        loop {
            // Take every command that arrived; when idle, block until one does.
            loop {
                let idle = self.running.is_empty() && self.waiting.is_empty();
                let command = if idle {
                    self.publish();
                    match self.rx.recv() {
                        Ok(command) => command,
                        Err(_) => return,
                    }
                } else {
                    match self.rx.recv_timeout(Duration::ZERO) {
                        Ok(command) => command,
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                };
                if idle {
                    clock = Instant::now();
                }
                self.handle(command);
            }
            let (work, step_ms) = self.schedule();
            self.publish();
            if work.is_empty() {
                // Everything waiting is blocked (e.g. on KV blocks held by nobody that can
                // run); wait for the next request rather than spin.
                match self.rx.recv() {
                    Ok(command) => self.handle(command),
                    Err(_) => return,
                }
                clock = Instant::now();
                continue;
            }
            let duration = Duration::from_secs_f64(step_ms / 1000.0 / self.time_scale.get());
            // Deadlines are absolute, so the schedule never drifts; if the thread fell far
            // behind (it was descheduled), start afresh instead of bursting.
            let now = Instant::now();
            clock = if now.duration_since(clock) > duration * 4 {
                now + duration
            } else {
                clock + duration
            };
            sleep_until(clock);
            self.apply(&work, Instant::now());
        }
    }

    fn handle(&mut self, command: Command) {
        match command {
            Command::Submit(submission) => {
                self.next_id += 1;
                let prompt_len = submission.prompt.len();
                self.waiting.push_back(Seq {
                    id: self.next_id,
                    tokens: submission.prompt,
                    prompt_len,
                    max_tokens: submission.max_tokens,
                    computed: 0,
                    blocks: Vec::new(),
                    hashes: Vec::new(),
                    seed: submission.seed,
                    events: submission.events,
                    pending: Vec::new(),
                    prefill_started: None,
                    fresh: true,
                    reuse_cache: submission.reuse_cache,
                });
            }
            Command::ResetPrefixCache => self.pool.reset_prefix_cache(),
        }
    }

    fn blocks_for(&self, tokens: usize) -> usize {
        tokens.div_ceil(self.profile.block_size)
    }

    /// Picks this step's work and prices it.
    fn schedule(&mut self) -> (Vec<Work>, f64) {
        // Requests whose client went away are dropped before they cost anything.
        self.waiting.retain(|seq| !seq.events.is_closed());
        let closed: Vec<u64> = self
            .running
            .iter()
            .filter(|s| s.events.is_closed())
            .map(|s| s.id)
            .collect();
        for id in closed {
            self.finish(id);
        }

        let mut budget = self.profile.max_num_batched_tokens;
        let mut work = Vec::new();
        let mut preempted = false;
        let mut index = 0;
        while index < self.running.len() && budget > 0 {
            let seq = &self.running[index];
            let tokens = (seq.tokens.len() - seq.computed).min(budget);
            let needed = self.blocks_for(seq.computed + tokens);
            let mut fits = true;
            while self.running[index].blocks.len() < needed {
                if let Some(block) = self.pool.allocate() {
                    self.running[index].blocks.push(block);
                } else {
                    // Out of KV blocks: the most recently admitted sequence gives its blocks
                    // back and will be recomputed later (vLLM's recompute preemption).
                    let victim = self.running.len() - 1;
                    self.preempt(victim);
                    preempted = true;
                    if victim == index {
                        fits = false;
                        break;
                    }
                }
            }
            if !fits {
                break;
            }
            let seq = &self.running[index];
            work.push(Work {
                seq: seq.id,
                tokens,
            });
            budget -= tokens;
            index += 1;
        }

        while !preempted && budget > 0 && self.running.len() < self.profile.max_num_seqs {
            let Some(mut seq) = self.waiting.pop_front() else {
                break;
            };
            // Reuse cached blocks of the known prefix, leaving at least one token to compute.
            let bs = self.profile.block_size;
            let cacheable = if seq.reuse_cache {
                (seq.tokens.len() - 1) / bs
            } else {
                0
            };
            let mut previous = None;
            for block in 0..cacheable {
                let hash = block_hash(previous, &seq.tokens[block * bs..(block + 1) * bs]);
                match self.pool.reuse(hash) {
                    Some(id) => {
                        seq.blocks.push(id);
                        seq.hashes.push(hash);
                        previous = Some(hash);
                    }
                    None => break,
                }
            }
            seq.computed = seq.blocks.len() * bs;
            let tokens = (seq.tokens.len() - seq.computed).min(budget);
            let needed = self.blocks_for(seq.computed + tokens) - seq.blocks.len();
            if self.pool.free() < needed {
                self.pool.release(&seq.blocks);
                seq.blocks.clear();
                seq.hashes.clear();
                seq.computed = 0;
                self.waiting.push_front(seq);
                break;
            }
            for _ in 0..needed {
                if let Some(block) = self.pool.allocate() {
                    seq.blocks.push(block);
                }
            }
            if seq.fresh {
                let mut stats = self.lock_stats();
                stats.prefix_cache_queries += seq.tokens.len() as u64;
                stats.prefix_cache_hits += seq.computed as u64;
                seq.fresh = false;
            }
            work.push(Work {
                seq: seq.id,
                tokens,
            });
            budget -= tokens;
            self.running.push(seq);
        }

        let mut batch = 0;
        let mut context = 0;
        let mut prefill_ms = 0.0;
        let now = Instant::now();
        for item in &work {
            let Some(seq) = self.running.iter_mut().find(|s| s.id == item.seq) else {
                continue;
            };
            if item.tokens == 1 && seq.output_len() > 0 {
                batch += 1;
                context += seq.computed + 1;
            } else {
                prefill_ms += self
                    .profile
                    .performance
                    .prefill_ms(seq.computed, seq.computed + item.tokens);
                seq.prefill_started.get_or_insert(now);
            }
        }
        let step_ms = self.profile.performance.step_ms(batch, context, prefill_ms);
        (work, step_ms)
    }

    fn preempt(&mut self, index: usize) {
        let mut seq = self.running.remove(index);
        self.pool.release(&seq.blocks);
        seq.blocks.clear();
        seq.hashes.clear();
        seq.computed = 0;
        self.lock_stats().preemptions += 1;
        self.waiting.push_front(seq);
    }

    /// Applies a finished step: KV computed, full blocks published, tokens sampled and sent.
    /// The counters are updated before anything is sent, so `/metrics` never lags behind
    /// what a client has received.
    fn apply(&mut self, work: &[Work], now: Instant) {
        let bs = self.profile.block_size;
        let interval = self.profile.stream_interval;
        let max_model_len = self.profile.max_model_len;
        let mut outbox: Vec<(u64, UnboundedSender<Event>, Vec<u32>, bool)> = Vec::new();
        let mut generated = 0u64;
        let mut ended_tokens = 0u64;
        let mut ended_prompt_tokens = 0u64;
        let mut prefills_done = Vec::new();
        for item in work {
            let Some(seq) = self.running.iter_mut().find(|s| s.id == item.seq) else {
                continue;
            };
            seq.computed += item.tokens;
            while (seq.hashes.len() + 1) * bs <= seq.computed {
                let start = seq.hashes.len() * bs;
                let hash = block_hash(seq.hashes.last().copied(), &seq.tokens[start..start + bs]);
                self.pool.register(seq.blocks[seq.hashes.len()], hash);
                seq.hashes.push(hash);
            }
            if seq.computed < seq.tokens.len() {
                continue; // a prefill chunk that is not the last
            }
            let token = tokenizer::sample(seq.seed, seq.output_len());
            seq.tokens.push(token);
            seq.pending.push(token);
            generated += 1;
            if seq.output_len() == 1
                && let Some(started) = seq.prefill_started
            {
                prefills_done.push((now.duration_since(started), seq.prompt_len));
            }
            let finished = seq.output_len() >= seq.max_tokens || seq.tokens.len() >= max_model_len;
            if finished {
                ended_tokens += seq.output_len() as u64;
                ended_prompt_tokens += seq.prompt_len as u64;
            }
            if seq.pending.len() >= interval || finished {
                outbox.push((
                    seq.id,
                    seq.events.clone(),
                    std::mem::take(&mut seq.pending),
                    finished,
                ));
            }
        }
        {
            let mut stats = self.lock_stats();
            stats.generation_tokens += generated;
            stats.generation_tokens_ended += ended_tokens;
            stats.prompt_tokens_ended += ended_prompt_tokens;
            if generated > 0 {
                stats.decode_steps += 1;
            }
            for (elapsed, prompt_len) in prefills_done {
                stats.prefill_time.observe(elapsed.as_secs_f64());
                stats.prompt_tokens += prompt_len as u64;
            }
            stats.requests_success +=
                outbox.iter().filter(|(.., finished)| *finished).count() as u64;
        }
        // Finished sequences leave the batch, and the gauges say so, before their clients hear.
        for (id, .., finished) in &outbox {
            if *finished {
                self.finish(*id);
            }
        }
        self.publish();
        let mut gone = Vec::new();
        for (id, events, tokens, finished) in outbox {
            let alive = events.send(Event::Tokens(tokens)).is_ok();
            if finished {
                let _ = events.send(Event::Finished);
            } else if !alive {
                gone.push(id);
            }
        }
        for id in gone {
            self.finish(id);
        }
    }

    fn finish(&mut self, id: u64) {
        if let Some(index) = self.running.iter().position(|s| s.id == id) {
            let seq = self.running.remove(index);
            self.pool.release(&seq.blocks);
        }
    }

    fn lock_stats(&self) -> std::sync::MutexGuard<'_, Stats> {
        self.stats
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn publish(&self) {
        let running = self.running.len();
        let waiting = self.waiting.len();
        let usage = self.pool.used() as f64 / self.pool.total() as f64;
        let mut stats = self.lock_stats();
        stats.running = running;
        stats.waiting = waiting;
        stats.kv_cache_usage = usage;
    }
}

/// Sleeps until `deadline` with sub-millisecond precision: the OS sleep for all but the last
/// fraction of a millisecond, then a yielding spin. Token gaps at `--time-scale 10` are a few
/// milliseconds, so a timer that rounds to whole milliseconds would distort them by a third.
fn sleep_until(deadline: Instant) {
    const SPIN: Duration = Duration::from_micros(200);
    let now = Instant::now();
    if deadline <= now {
        return;
    }
    let remaining = deadline - now;
    if remaining > SPIN {
        std::thread::sleep(remaining - SPIN);
    }
    while Instant::now() < deadline {
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests;
