//! One decode cell's figures and status, computed from what was recorded — timelines of the
//! streams, `/metrics` samples, the client's own load — with no I/O, so the rules can be
//! tested on hand-made inputs.

mod checks;

use std::time::Instant;

use crate::client::Timeline;
use crate::engine::{CounterMoves, Rules, Snapshot};
use crate::report::{ClientLoad, DecodeCell, Status};
use crate::stats::{
    decode_span, itl_samples, mean_overlap, median, percentile, secs, time_weighted_mean,
};
use checks::{cross_check, cross_check_ended, final_usage_disagreements, started_on_idle_slot};

pub use checks::{MAX_CLIENT_CPU_PERCENT, MAX_TIMER_LAG_P99_MS, MAX_TOKEN_MISMATCH, over_capacity};

/// One request of the cell: which stream slot sent it, whether it was the slot's first
/// request of the cell (started with the others before readiness), and its timeline.
#[derive(Debug, Clone)]
pub struct Request {
    pub slot: usize,
    pub initial: bool,
    pub timeline: Timeline,
}

/// One `/metrics` reading: when the request for it was sent and when its answer arrived.
/// The server's values were true at some instant between the two.
#[derive(Debug, Clone)]
pub struct Sample {
    pub sent: Instant,
    pub received: Instant,
    pub snapshot: Snapshot,
}

impl Sample {
    /// The best single time for the reading: the middle of its request.
    pub fn at(&self) -> Instant {
        self.sent + (self.received - self.sent) / 2
    }
}

/// How a cell's wait for readiness ended (step 5 of the standard).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Readiness {
    /// Every stream produced a token and nothing waited.
    Ready,
    /// The server could not run every stream: some waited while the number running stopped
    /// growing. `running` is the most it ran; `from_metrics` is false when only the client's
    /// own evidence (streams without a first token while others stream) said so.
    Saturated { running: u64, from_metrics: bool },
    /// No progress at all before the safety-net timeout.
    TimedOut { waited_s: f64 },
    /// A stream failed before readiness.
    StreamFailed,
}

/// Everything recorded about a cell that ran.
#[derive(Debug, Clone)]
pub struct Recording {
    pub context_tokens: u64,
    pub concurrency: u64,
    /// The window.
    pub start: Instant,
    pub end: Instant,
    /// Seconds from starting the streams to the window's start.
    pub readiness_s: f64,
    pub readiness: Readiness,
    /// The 95 % confidence half-width of `total_tok_s` the window reached, in percent.
    pub window_half_width_pct: Option<f64>,
    pub requests: Vec<Request>,
    /// `/metrics` samples in time order, including one at the start and one at the end.
    pub samples: Vec<Sample>,
    /// The interval `/metrics` was sampled at.
    pub sampling_interval_s: f64,
    pub timer_lags_ms: Vec<f64>,
    pub cpu_percent: Option<f64>,
    pub idle_before: bool,
    pub idle_after: bool,
    /// Problems found while running (a failed warm-up, an unconfirmed prompt, ...).
    pub problems: Vec<String>,
    /// How the standard measures the engine's dialect: how its tokens are counted and when
    /// its counter moves.
    pub rules: Rules,
}

/// The cell's figures and status.
pub fn evaluate(rec: &Recording) -> DecodeCell {
    let (start, end) = (rec.start, rec.end);
    let measured_s = secs(start, end);
    let in_window = |at: &Instant| *at >= start && *at <= end;
    let tokens_in = |from: Instant, to: Instant| -> u64 {
        rec.requests
            .iter()
            .flat_map(|r| r.timeline.chunks.iter())
            .filter(|(at, _)| *at > from && *at <= to)
            .map(|(_, n)| n)
            .sum()
    };

    let (output_tokens, token_chunks) = rec
        .requests
        .iter()
        .flat_map(|r| r.timeline.chunks.iter())
        .filter(|(at, _)| in_window(at))
        .fold((0u64, 0u64), |(tokens, chunks), (_, n)| {
            (tokens + n, chunks + 1)
        });

    // Per stream slot: decode tokens over decode time, summed over its requests.
    let slots = rec
        .requests
        .iter()
        .map(|r| r.slot)
        .max()
        .map_or(0, |m| m + 1);
    let mut per_slot = Vec::new();
    for slot in 0..slots {
        let (mut tokens, mut time) = (0u64, 0.0f64);
        for request in rec.requests.iter().filter(|r| r.slot == slot) {
            let (t, d) = decode_span(&request.timeline.chunks, start, end);
            tokens += t;
            time += d.as_secs_f64();
        }
        if time > 0.0 {
            per_slot.push(tokens as f64 / time);
        }
    }
    let per_request = median(&per_slot);

    let eligible = started_on_idle_slot(rec);
    let ttfts: Vec<f64> = rec
        .requests
        .iter()
        .zip(&eligible)
        .filter(|(_, counts)| **counts)
        .filter_map(|(r, _)| Some(secs(r.timeline.sent?, r.timeline.first_token()?) * 1000.0))
        .collect();
    let mut itls = Vec::new();
    for request in &rec.requests {
        itl_samples(&request.timeline.chunks, start, end, &mut itls);
    }

    let series = |pick: fn(&Snapshot) -> Option<f64>| -> Vec<(Instant, f64)> {
        rec.samples
            .iter()
            .filter_map(|s| pick(&s.snapshot).map(|v| (s.at(), v)))
            .collect()
    };
    let running = series(|s| s.running);
    let waiting = series(|s| s.waiting);
    let delta = |pick: fn(&Snapshot) -> Option<f64>| -> Option<f64> {
        let values = series(pick);
        Some(values.last()?.1 - values.first()?.1)
    };
    let running_inside = running.iter().filter(|(at, _)| in_window(at)).count();
    let avg_active = if running_inside > 0 {
        time_weighted_mean(&running, start, end)
    } else {
        None
    };
    let waiting_inside: Vec<f64> = waiting
        .iter()
        .filter(|(at, _)| in_window(at))
        .map(|(_, v)| *v)
        .collect();
    let max_waiting = waiting_inside.iter().copied().reduce(f64::max);
    let waited_twice = waiting_inside.windows(2).any(|w| w[0] > 0.0 && w[1] > 0.0);
    let cross = match rec.rules.counter {
        CounterMoves::EachStep => cross_check(rec, &tokens_in),
        CounterMoves::AtRequestEnd => cross_check_ended(rec),
    };
    let preemptions = delta(|s| s.preemptions);
    let in_flight: Vec<(Instant, Option<Instant>)> = rec
        .requests
        .iter()
        .filter_map(|r| Some((r.timeline.sent?, r.timeline.ended)))
        .collect();
    let client_in_flight = mean_overlap(&in_flight, start, end);
    let completed = rec
        .requests
        .iter()
        .filter(|r| r.timeline.completed && r.timeline.ended.is_some_and(|e| in_window(&e)))
        .count() as u64;
    let timer_lag_p99 = percentile(&rec.timer_lags_ms, 99.0).unwrap_or(0.0);

    // What no client can explain: a failed stream, a busy server, no progress.
    let mut broken = rec.problems.clone();
    for request in &rec.requests {
        if let Some(error) = &request.timeline.error {
            broken.push(format!("stream {} failed: {error}", request.slot));
        }
    }
    if !rec.idle_before {
        broken.push("the server was not idle before the cell".to_owned());
    }
    if !rec.idle_after {
        broken.push("the server did not become idle after the cell".to_owned());
    }
    if let Readiness::TimedOut { waited_s } = rec.readiness {
        broken.push(format!(
            "the server made no progress: not every stream produced a token within {waited_s:.0} s, and it did not saturate"
        ));
    }
    // What a starved client misreads: counts and timings.
    let mut disagreements = Vec::new();
    if let Some(problem) = cross.as_ref().and_then(|c| c.problem.clone()) {
        disagreements.push(problem);
    }
    if !rec.rules.continuous_usage
        && let Some(problem) = final_usage_disagreements(rec)
    {
        disagreements.push(problem);
    }
    if !rec.samples.is_empty() && running_inside == 0 {
        disagreements.push("no /metrics sample arrived inside the window".to_owned());
    }
    let mut client_bound = Vec::new();
    if timer_lag_p99 > MAX_TIMER_LAG_P99_MS {
        client_bound.push(format!(
            "the client's timer lag p99 was {timer_lag_p99:.1} ms (limit {MAX_TIMER_LAG_P99_MS} ms)"
        ));
    }
    if let Some(cpu) = rec.cpu_percent
        && cpu > MAX_CLIENT_CPU_PERCENT
    {
        client_bound.push(format!(
            "the client used {cpu:.0} % of a core (limit {MAX_CLIENT_CPU_PERCENT} %)"
        ));
    }
    let mut queued = Vec::new();
    if let Readiness::Saturated {
        running,
        from_metrics,
    } = rec.readiness
    {
        queued.push(if from_metrics {
            format!(
                "the server ran at most {running} of {} requests at once",
                rec.concurrency
            )
        } else {
            format!(
                "only {running} of {} streams produced tokens while the others waited (the client's own evidence: no /metrics)",
                rec.concurrency
            )
        });
    }
    if waited_twice && let Some(waiting) = max_waiting {
        // Readiness may have come without saturation (the queued streams got a slot as the
        // first requests ended, before the running count held still): the window's own
        // samples say how many the server ran.
        let most_running = running
            .iter()
            .filter(|(at, _)| in_window(at))
            .map(|(_, v)| *v)
            .reduce(f64::max);
        if !matches!(rec.readiness, Readiness::Saturated { .. })
            && let Some(most) = most_running.filter(|m| *m < rec.concurrency as f64)
        {
            queued.push(format!(
                "the server ran at most {most:.0} of {} requests at once",
                rec.concurrency
            ));
        }
        queued.push(format!(
            "up to {waiting:.0} requests waited in the server's queue"
        ));
    }
    // A time-weighted mean from samples moves by a whole sample's share when one sample
    // falls into a restart gap (the server shows a request as running a little later and
    // shorter than the client has it in flight), so the deficit must also hold in two
    // consecutive samples, as a real queue does and independent restart gaps rarely do.
    let open_at = |t: Instant| {
        in_flight
            .iter()
            .filter(|(from, to)| *from <= t && to.is_none_or(|to| t < to))
            .count() as f64
    };
    let short: Vec<bool> = running
        .iter()
        .filter(|(at, _)| in_window(at))
        .map(|(at, value)| *value < open_at(*at) - 0.5)
        .collect();
    let short_twice = short.windows(2).any(|w| w[0] && w[1]);
    if let Some(active) = avg_active
        && active < 0.95 * client_in_flight
        && short_twice
    {
        queued.push(format!(
            "on average {active:.2} requests were running while the client had {client_in_flight:.2} in flight"
        ));
    }
    if let Some(p) = preemptions
        && p > 0.0
    {
        queued.push(format!("the server preempted {p:.0} times"));
    }
    let (status, reasons) = if !broken.is_empty() {
        (Status::Invalid, broken)
    } else if !client_bound.is_empty() {
        // A starved client misreads counts and timings: say what else looked wrong, but
        // blame the client, not the server.
        client_bound.extend(
            disagreements
                .into_iter()
                .map(|d| format!("{d} (explained by the starved client)")),
        );
        (Status::ClientBound, client_bound)
    } else if !disagreements.is_empty() {
        (Status::Invalid, disagreements)
    } else if !queued.is_empty() {
        (Status::RequestsQueued, queued)
    } else {
        (Status::Valid, Vec::new())
    };

    DecodeCell {
        context_tokens: rec.context_tokens,
        concurrency: rec.concurrency,
        status,
        reasons,
        total_tok_s: (measured_s > 0.0).then(|| output_tokens as f64 / measured_s),
        per_request_tok_s: per_request,
        ttft_ms_median: median(&ttfts),
        ttft_ms_p99: percentile(&ttfts, 99.0),
        ttft_samples: Some(ttfts.len() as u64),
        tbt_ms_median: per_request.filter(|r| *r > 0.0).map(|r| 1000.0 / r),
        itl_ms_p50: median(&itls),
        itl_ms_p99: percentile(&itls, 99.0),
        tokens_per_chunk: (token_chunks > 0).then(|| output_tokens as f64 / token_chunks as f64),
        avg_active_requests: avg_active,
        client_in_flight: Some(client_in_flight),
        completed_requests: Some(completed),
        output_tokens: Some(output_tokens),
        measured_s: Some(measured_s),
        readiness_s: Some(rec.readiness_s),
        window_half_width_pct: rec.window_half_width_pct,
        server_generation_tokens: cross.as_ref().map(|c| c.server),
        client_generation_tokens: cross.as_ref().map(|c| c.client),
        preemptions,
        max_waiting,
        client: Some(ClientLoad {
            timer_lag_p99_ms: timer_lag_p99,
            cpu_percent: rec.cpu_percent,
        }),
        window_started_at: Some(wall_clock(start)),
        mean_power_w: None,
        energy_j_per_token: None,
        energy_status: None,
    }
}

/// `at` on the wall clock (RFC 3339, milliseconds): now, less how long ago `at` was.
fn wall_clock(at: Instant) -> String {
    let ago = chrono::Duration::from_std(at.elapsed()).unwrap_or_default();
    (chrono::Utc::now() - ago).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests;
