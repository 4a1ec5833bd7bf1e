//! One decode cell's figures and status, computed from what was recorded — timelines of the
//! streams, `/metrics` samples, the client's own load — with no I/O, so the rules can be
//! tested on hand-made inputs.

use std::time::Instant;

use crate::client::Timeline;
use crate::engine::Snapshot;
use crate::report::{ClientLoad, DecodeCell, Status};
use crate::stats::{
    decode_span, itl_samples, mean_overlap, median, percentile, secs, time_weighted_mean,
};

/// Decides, before running, whether a cell cannot fit: `C × (P + O) > kv_cache_tokens` or
/// `P + O > max_model_len`. Returns why, or `None` when it fits (or the sizes are unknown).
pub fn over_capacity(
    concurrency: u64,
    context: u64,
    max_output: u64,
    kv_cache_tokens: Option<u64>,
    max_model_len: Option<u64>,
) -> Option<String> {
    // Saturating: a hostile report's figures must not overflow (they only ever compare).
    let per_stream = context.saturating_add(max_output);
    if let Some(limit) = max_model_len
        && per_stream > limit
    {
        return Some(format!(
            "context {context} + max output {max_output} = {per_stream} tokens exceeds max_model_len {limit}"
        ));
    }
    let needed = concurrency.saturating_mul(per_stream);
    if let Some(kv) = kv_cache_tokens
        && needed > kv
    {
        return Some(format!(
            "{concurrency} × ({context} + {max_output}) = {needed} tokens exceeds the KV cache of {kv} tokens"
        ));
    }
    None
}

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
}

/// The standard's limits on the measuring client.
pub const MAX_TIMER_LAG_P99_MS: f64 = 5.0;
pub const MAX_CLIENT_CPU_PERCENT: f64 = 70.0;
/// Server and client token counts must agree within this share (plus what the server makes
/// in one sampling interval).
pub const MAX_TOKEN_MISMATCH: f64 = 0.02;

/// The server's token counter against the client's count over the same interval.
struct CrossCheck {
    server: f64,
    /// The client's tokens between the two samples' middles.
    client: u64,
    problem: Option<String>,
}

/// Compares `generation_tokens_total` between the first sample taken wholly inside the window
/// and the last one, with the client's tokens over the same interval. A sample's reading is
/// true somewhere between its request and its answer, so the client's count is bounded by
/// the widest and the narrowest interval the two samples allow; the server's delta must fall
/// within those bounds, widened by 2 % and by the tokens the server makes in one sampling
/// interval (how late a counter may be published).
fn cross_check(rec: &Recording, tokens_in: &dyn Fn(Instant, Instant) -> u64) -> Option<CrossCheck> {
    let counted: Vec<(&Sample, f64)> = rec
        .samples
        .iter()
        .filter(|s| s.sent >= rec.start && s.received <= rec.end)
        .filter_map(|s| Some((s, s.snapshot.generation_tokens?)))
        .collect();
    let (&(first, a), &(last, b)) = (counted.first()?, counted.last()?);
    if std::ptr::eq(first, last) {
        return None;
    }
    let server = b - a;
    let client = tokens_in(first.at(), last.at());
    let narrow = tokens_in(first.received, last.sent) as f64;
    let wide = tokens_in(first.sent, last.received) as f64;
    let span = secs(first.at(), last.at());
    let rate = if span > 0.0 {
        client as f64 / span
    } else {
        0.0
    };
    let slack = MAX_TOKEN_MISMATCH * wide + rate * rec.sampling_interval_s;
    let problem = (server < narrow - slack || server > wide + slack).then(|| {
        format!(
            "the server generated {server:.0} tokens between two /metrics samples {span:.2} s apart, the client received {client} (allowed {:.0}..={:.0})",
            (narrow - slack).max(0.0),
            wide + slack
        )
    });
    Some(CrossCheck {
        server,
        client,
        problem,
    })
}

/// Whether a request started on an idle slot, so its TTFT is the server's answer time and
/// not time spent in its queue: the first R of the initial requests to produce a token (R =
/// every stream, or the most a saturated server ran), and any restart sent while the latest
/// `/metrics` sample showed nothing waiting.
fn started_on_idle_slot(rec: &Recording) -> Vec<bool> {
    let admitted = match rec.readiness {
        Readiness::Saturated { running, .. } => running as usize,
        _ => usize::MAX,
    };
    let mut initial_firsts: Vec<Instant> = rec
        .requests
        .iter()
        .filter(|r| r.initial)
        .filter_map(|r| r.timeline.first_token())
        .collect();
    initial_firsts.sort();
    let cutoff = initial_firsts.get(admitted.saturating_sub(1)).copied();
    rec.requests
        .iter()
        .map(|r| {
            if r.initial {
                return match (r.timeline.first_token(), cutoff) {
                    (Some(first), Some(cutoff)) => first <= cutoff,
                    (Some(_), None) => true,
                    (None, _) => false,
                };
            }
            let Some(sent) = r.timeline.sent else {
                return false;
            };
            match rec.samples.iter().rev().find(|s| s.received <= sent) {
                Some(sample) => sample.snapshot.waiting.unwrap_or(0.0) == 0.0,
                None => rec.samples.is_empty(),
            }
        })
        .collect()
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
    let cross = cross_check(rec, &tokens_in);
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
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::Value;

    use super::*;

    fn at(base: Instant, ms: u64) -> Instant {
        base + Duration::from_millis(ms)
    }

    #[test]
    fn every_over_capacity_cell_of_the_reference_page_follows_the_rule() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/rtx3060-nemotron-nano-12b-awq.json"
        ))
        .unwrap();
        let page: Value = serde_json::from_str(&text).unwrap();
        let max_output = page["run"]["max_output_tokens"].as_u64().unwrap();
        // The page's statuses pin the KV cache to 98,304..=131,071 tokens; both ends agree.
        for kv in [98_304, 118_784, 131_071] {
            for cell in page["decode"].as_array().unwrap() {
                let c = cell["concurrency"].as_u64().unwrap();
                let p = cell["context_tokens"].as_u64().unwrap();
                let decided = over_capacity(c, p, max_output, Some(kv), Some(90_112)).is_some();
                let published = cell["status"] == "over_capacity";
                assert_eq!(decided, published, "{p} x {c} with a KV cache of {kv}");
            }
        }
        // One token less of KV and 16K × 4 would not fit.
        assert!(over_capacity(4, 16_384, 8_192, Some(98_303), None).is_some());
        assert!(
            over_capacity(1, 85_000, 8_192, Some(1 << 20), Some(90_112))
                .unwrap()
                .contains("max_model_len")
        );
    }

    /// A steady stream: one token every `gap` ms from `first` ms on, `n` tokens.
    fn steady(base: Instant, sent: u64, first: u64, gap: u64, n: u64) -> Timeline {
        Timeline {
            sent: Some(at(base, sent)),
            retried: false,
            chunks: (0..n).map(|i| (at(base, first + i * gap), 1)).collect(),
            prompt_tokens: Some(100),
            saw_usage: true,
            completed: false,
            ended: Some(at(base, first + (n - 1) * gap)),
            error: None,
        }
    }

    fn request(slot: usize, initial: bool, timeline: Timeline) -> Request {
        Request {
            slot,
            initial,
            timeline,
        }
    }

    /// Two streams at 20 ms per token (50 tok/s each) through the whole window.
    fn two_streams(base: Instant) -> Vec<Request> {
        vec![
            request(0, true, steady(base, 0, 100, 20, 200)),
            request(1, true, steady(base, 0, 110, 20, 200)),
        ]
    }

    fn snapshot(running: f64, waiting: f64, generated: f64) -> Snapshot {
        Snapshot {
            running: Some(running),
            waiting: Some(waiting),
            generation_tokens: Some(generated),
            preemptions: Some(0.0),
            ..Snapshot::default()
        }
    }

    /// A sample whose request took 2 ms around `ms`.
    fn sample(base: Instant, ms: u64, snapshot: Snapshot) -> Sample {
        Sample {
            sent: at(base, ms - 1),
            received: at(base, ms + 1),
            snapshot,
        }
    }

    fn recording(base: Instant, requests: Vec<Request>, samples: Vec<Sample>) -> Recording {
        Recording {
            context_tokens: 0,
            concurrency: 2,
            start: at(base, 1000),
            end: at(base, 3000),
            readiness_s: 1.0,
            window_half_width_pct: None,
            readiness: Readiness::Ready,
            requests,
            samples,
            sampling_interval_s: 0.25,
            timer_lags_ms: vec![0.5; 100],
            cpu_percent: Some(10.0),
            idle_before: true,
            idle_after: true,
            problems: Vec::new(),
        }
    }

    /// Samples every 250 ms through the window [1000, 3000] ms of two streams at 50 tok/s
    /// each, the server counting `extra` tokens more per second than the client received.
    fn steady_samples(base: Instant, running: f64, waiting: f64, extra: f64) -> Vec<Sample> {
        (0..8)
            .map(|i| 1001 + i * 250)
            .chain([2999])
            .map(|ms| {
                let generated = 1000.0 + (100.0 + extra) * (ms - 1001) as f64 / 1000.0;
                sample(base, ms, snapshot(running, waiting, generated))
            })
            .collect()
    }

    #[test]
    fn figures_of_two_steady_streams() {
        let base = Instant::now();
        let cell = evaluate(&recording(
            base,
            two_streams(base),
            steady_samples(base, 2.0, 0.0, 0.0),
        ));
        assert_eq!(cell.status, Status::Valid, "{:?}", cell.reasons);
        // 101 + 100 tokens arrive inside [1000, 3000] ms.
        assert_eq!(cell.output_tokens, Some(201));
        assert!((cell.total_tok_s.unwrap() - 100.5).abs() < 1e-9);
        assert!((cell.per_request_tok_s.unwrap() - 50.0).abs() < 1e-6);
        // TBT as the reference page defines it: 1000 / per-request tok/s.
        assert!((cell.tbt_ms_median.unwrap() - 20.0).abs() < 1e-6);
        assert!((cell.itl_ms_p50.unwrap() - 20.0).abs() < 1e-9);
        assert!((cell.ttft_ms_median.unwrap() - 105.0).abs() < 1e-9);
        assert_eq!(cell.ttft_samples, Some(2));
        assert!((cell.avg_active_requests.unwrap() - 2.0).abs() < 1e-9);
        assert!((cell.client_in_flight.unwrap() - 2.0).abs() < 1e-9);
        // Compared over the samples' interval, [1001, 2999] ms at their middles.
        assert!((cell.server_generation_tokens.unwrap() - 199.8).abs() < 1e-9);
        assert_eq!(cell.client_generation_tokens, Some(199));
    }

    #[test]
    fn coalesced_chunks_leave_tbt_alone_and_show_in_the_gaps() {
        let base = Instant::now();
        // Tokens made every 20 ms but read two at a time: pairs share a timestamp.
        let paired = |first: u64| Timeline {
            chunks: (0..200)
                .map(|i| (at(base, first + (i / 2) * 40), 1))
                .collect(),
            ..steady(base, 0, first, 20, 200)
        };
        let requests = vec![request(0, true, paired(100)), request(1, true, paired(110))];
        let cell = evaluate(&recording(
            base,
            requests,
            steady_samples(base, 2.0, 0.0, 0.0),
        ));
        assert_eq!(cell.tokens_per_chunk, Some(1.0));
        // Half the gaps are 0: the per-chunk median collapses, the page's TBT does not.
        assert!(cell.itl_ms_p50.unwrap() < 21.0);
        let tbt = cell.tbt_ms_median.unwrap();
        assert!((tbt - 20.0).abs() < 0.5, "{tbt}");
    }

    #[test]
    fn tokens_per_chunk_is_what_each_chunk_carried() {
        let base = Instant::now();
        // Three tokens every 60 ms (speculative decoding, or a stream interval of 3).
        let triples = |first: u64| Timeline {
            chunks: (0..70).map(|i| (at(base, first + i * 60), 3)).collect(),
            ..steady(base, 0, first, 20, 200)
        };
        let requests = vec![
            request(0, true, triples(100)),
            request(1, true, triples(110)),
        ];
        let cell = evaluate(&recording(
            base,
            requests,
            steady_samples(base, 2.0, 0.0, 0.0),
        ));
        assert_eq!(cell.tokens_per_chunk, Some(3.0));
    }

    #[test]
    fn a_server_count_that_disagrees_makes_the_cell_invalid() {
        let base = Instant::now();
        // 20 % more tokens counted by the server than received.
        let samples = steady_samples(base, 2.0, 0.0, 20.0);
        let cell = evaluate(&recording(base, two_streams(base), samples));
        assert_eq!(cell.status, Status::Invalid, "{:?}", cell.reasons);
        assert!(cell.reasons[0].contains("240 tokens"), "{:?}", cell.reasons);
    }

    #[test]
    fn a_counter_published_late_stays_within_one_sampling_interval() {
        let base = Instant::now();
        // The server publishes its counter 100 ms late at the last sample (a stats logger's
        // period): 10 tokens short, within 2 % + one 250 ms interval's 25 tokens.
        let mut samples = steady_samples(base, 2.0, 0.0, 0.0);
        let last = samples.last_mut().unwrap();
        last.snapshot.generation_tokens = last.snapshot.generation_tokens.map(|g| g - 10.0);
        let cell = evaluate(&recording(base, two_streams(base), samples));
        assert_eq!(cell.status, Status::Valid, "{:?}", cell.reasons);
        assert!((cell.server_generation_tokens.unwrap() - 189.8).abs() < 1e-9);
    }

    #[test]
    fn waiting_twice_or_fewer_running_than_in_flight_mean_requests_queued() {
        let base = Instant::now();
        let samples = steady_samples(base, 1.0, 1.0, 0.0);
        let cell = evaluate(&recording(base, two_streams(base), samples));
        assert_eq!(cell.status, Status::RequestsQueued);
        assert_eq!(cell.reasons.len(), 2, "{:?}", cell.reasons);
        // One sample with a waiting request is a blip, not a queue.
        let mut samples = steady_samples(base, 2.0, 0.0, 0.0);
        samples[3].snapshot.waiting = Some(1.0);
        let cell = evaluate(&recording(base, two_streams(base), samples));
        assert_eq!(cell.status, Status::Valid, "{:?}", cell.reasons);
    }

    #[test]
    fn one_sample_in_a_restart_gap_is_not_a_queue() {
        let base = Instant::now();
        // One stream in flight all along; one of the nine samples caught the server between
        // two requests. The time-weighted mean falls to 0.88, the queue is not real.
        let mut samples = steady_samples(base, 1.0, 0.0, -50.0);
        samples[4].snapshot.running = Some(0.0);
        let mut rec = recording(
            base,
            vec![request(0, true, steady(base, 0, 100, 20, 200))],
            samples.clone(),
        );
        rec.concurrency = 1;
        let cell = evaluate(&rec);
        assert!(cell.avg_active_requests.unwrap() < 0.95);
        assert_eq!(cell.status, Status::Valid, "{:?}", cell.reasons);
        // Two in a row is a queue.
        samples[5].snapshot.running = Some(0.0);
        rec.samples = samples;
        let cell = evaluate(&rec);
        assert_eq!(cell.status, Status::RequestsQueued, "{:?}", cell.reasons);
    }

    #[test]
    fn restart_gaps_lower_both_active_counts_alike() {
        let base = Instant::now();
        // One slot whose requests leave gaps: the client has 0.9 in flight, the server ran
        // 0.9 on average. Below 0.95 of the concurrency, but not queued.
        let mut rec = recording(
            base,
            vec![request(0, true, steady(base, 0, 100, 20, 200))],
            steady_samples(base, 0.9, 0.0, -50.0),
        );
        rec.concurrency = 1;
        rec.requests[0].timeline.sent = Some(at(base, 1200));
        rec.requests[0]
            .timeline
            .chunks
            .retain(|(t, _)| *t >= at(base, 1200));
        let cell = evaluate(&rec);
        assert!((cell.client_in_flight.unwrap() - 0.9).abs() < 0.01);
        assert_ne!(cell.status, Status::RequestsQueued, "{:?}", cell.reasons);
    }

    #[test]
    fn a_saturated_server_is_queued_and_only_admitted_requests_give_ttft() {
        let base = Instant::now();
        // Four streams; the server runs two. Streams 2 and 3 got their first token only
        // when 0 and 1 finished, at 2000 ms.
        let mut first = steady(base, 0, 100, 20, 95);
        first.completed = true;
        let mut second = steady(base, 0, 110, 20, 95);
        second.completed = true;
        let requests = vec![
            request(0, true, first),
            request(1, true, second),
            request(2, true, steady(base, 0, 2000, 20, 50)),
            request(3, true, steady(base, 0, 2010, 20, 50)),
            // Restarts of 0 and 1, sent while requests waited: their TTFT is queueing.
            request(0, false, steady(base, 1990, 2900, 20, 5)),
            request(1, false, steady(base, 2000, 2950, 20, 3)),
        ];
        let mut rec = recording(base, requests, steady_samples(base, 2.0, 2.0, 0.0));
        rec.concurrency = 4;
        rec.readiness = Readiness::Saturated {
            running: 2,
            from_metrics: true,
        };
        let cell = evaluate(&rec);
        assert_eq!(cell.status, Status::RequestsQueued, "{:?}", cell.reasons);
        assert!(
            cell.reasons[0].contains("at most 2 of 4"),
            "{:?}",
            cell.reasons
        );
        assert_eq!(cell.ttft_samples, Some(2), "the two admitted at once");
        assert!((cell.ttft_ms_median.unwrap() - 105.0).abs() < 1e-9);
    }

    #[test]
    fn no_sample_inside_the_window_gives_no_active_count_rather_than_zero() {
        let base = Instant::now();
        // The sampler got nothing in while the streams ran: one reading from before the
        // streams started (nothing running) and one after the end.
        let samples = vec![
            sample(base, 500, snapshot(0.0, 0.0, 1000.0)),
            sample(base, 3500, snapshot(0.0, 0.0, 1300.0)),
        ];
        let mut rec = recording(base, two_streams(base), samples);
        let cell = evaluate(&rec);
        assert_eq!(
            cell.avg_active_requests, None,
            "not a 0 read off a stale sample"
        );
        assert_eq!(cell.status, Status::Invalid, "{:?}", cell.reasons);
        assert!(
            cell.reasons[0].contains("no /metrics sample"),
            "{:?}",
            cell.reasons
        );
        // Which a starved client explains.
        rec.timer_lags_ms = vec![40.0; 100];
        assert_eq!(evaluate(&rec).status, Status::ClientBound);
    }

    #[test]
    fn no_progress_is_invalid_not_queued() {
        let base = Instant::now();
        let mut rec = recording(base, two_streams(base), Vec::new());
        rec.readiness = Readiness::TimedOut { waited_s: 60.0 };
        let cell = evaluate(&rec);
        assert_eq!(cell.status, Status::Invalid);
        assert!(
            cell.reasons[0].contains("no progress"),
            "{:?}",
            cell.reasons
        );
    }

    #[test]
    fn a_starved_client_is_client_bound_before_invalid_but_a_failed_stream_is_invalid() {
        let base = Instant::now();
        // Counts disagree and the client lagged: the client is to blame.
        let samples = steady_samples(base, 2.0, 0.0, 30.0);
        let mut rec = recording(base, two_streams(base), samples);
        rec.timer_lags_ms = vec![7.0; 100];
        let cell = evaluate(&rec);
        assert_eq!(cell.status, Status::ClientBound, "{:?}", cell.reasons);
        assert!(cell.reasons[0].contains("timer lag p99 was 7.0 ms"));
        assert!(
            cell.reasons[1].contains("explained by the starved client"),
            "{:?}",
            cell.reasons
        );
        rec.timer_lags_ms = vec![0.5; 100];
        rec.cpu_percent = Some(85.0);
        assert_eq!(evaluate(&rec).status, Status::ClientBound);
        // A failed stream is the server's, whatever the client's state.
        rec.requests[1].timeline.error = Some("connection reset".into());
        let cell = evaluate(&rec);
        assert_eq!(cell.status, Status::Invalid);
        assert!(cell.reasons[0].contains("stream 1 failed: connection reset"));
    }

    #[test]
    fn restarts_count_decode_time_only() {
        let base = Instant::now();
        // Slot 0: a request that finishes at 1990 ms, then a restart whose first token
        // comes 100 ms later. Its decode rate ignores the gap.
        let mut first = steady(base, 0, 100, 10, 190);
        first.completed = true;
        let second = steady(base, 1990, 2090, 10, 92);
        let requests = vec![request(0, true, first), request(0, false, second)];
        let mut rec = recording(base, requests, Vec::new());
        rec.concurrency = 1;
        let cell = evaluate(&rec);
        assert!((cell.per_request_tok_s.unwrap() - 100.0).abs() < 1e-6);
        assert_eq!(cell.completed_requests, Some(1));
        // TTFTs: 100 ms and 100 ms; the restart counts (nothing waited).
        assert!((cell.ttft_ms_median.unwrap() - 100.0).abs() < 1e-9);
        assert_eq!(cell.ttft_samples, Some(2));
    }
}
