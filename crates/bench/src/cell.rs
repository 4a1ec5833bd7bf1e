//! One decode cell's figures and status, computed from what was recorded — timelines of the
//! streams, `/metrics` samples, the client's own load — with no I/O, so the rules can be
//! tested on hand-made inputs.

use std::time::Instant;

use crate::client::Timeline;
use crate::prom::Snapshot;
use crate::report::{ClientLoad, DecodeCell, Status};
use crate::stats::{
    decode_span, mean_overlap, median, percentile, secs, tbt_samples, time_weighted_mean,
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
    let per_stream = context + max_output;
    if let Some(limit) = max_model_len
        && per_stream > limit
    {
        return Some(format!(
            "context {context} + max output {max_output} = {per_stream} tokens exceeds max_model_len {limit}"
        ));
    }
    if let Some(kv) = kv_cache_tokens
        && concurrency * per_stream > kv
    {
        return Some(format!(
            "{concurrency} × ({context} + {max_output}) = {} tokens exceeds the KV cache of {kv} tokens",
            concurrency * per_stream
        ));
    }
    None
}

/// One request of the cell: which stream slot sent it, and its timeline.
#[derive(Debug, Clone)]
pub struct Request {
    pub slot: usize,
    pub timeline: Timeline,
}

/// Everything recorded about a cell that ran.
#[derive(Debug, Clone)]
pub struct Recording {
    pub context_tokens: u64,
    pub concurrency: u64,
    pub start: Instant,
    pub end: Instant,
    pub requests: Vec<Request>,
    /// `/metrics` samples in time order, including one at the start and one at the end.
    pub samples: Vec<(Instant, Snapshot)>,
    pub timer_lags_ms: Vec<f64>,
    pub cpu_percent: Option<f64>,
    pub idle_before: bool,
    pub idle_after: bool,
    pub readiness_timed_out: bool,
    /// Problems found while running (a failed warm-up, an unconfirmed prompt, ...).
    pub problems: Vec<String>,
}

/// The standard's limits on the measuring client.
pub const MAX_TIMER_LAG_P99_MS: f64 = 5.0;
pub const MAX_CLIENT_CPU_PERCENT: f64 = 70.0;
/// Server and client token counts must agree within this share.
pub const MAX_TOKEN_MISMATCH: f64 = 0.02;

/// The cell's figures and status.
pub fn evaluate(rec: &Recording) -> DecodeCell {
    let (start, end) = (rec.start, rec.end);
    let measured_s = secs(start, end);
    let in_window = |at: &Instant| *at >= start && *at <= end;

    let output_tokens: u64 = rec
        .requests
        .iter()
        .flat_map(|r| r.timeline.chunks.iter())
        .filter(|(at, _)| in_window(at))
        .map(|(_, n)| n)
        .sum();

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

    let ttfts: Vec<f64> = rec
        .requests
        .iter()
        .filter_map(|r| Some(secs(r.timeline.sent?, r.timeline.first_token()?) * 1000.0))
        .collect();
    let mut tbts = Vec::new();
    for request in &rec.requests {
        tbt_samples(&request.timeline.chunks, start, end, &mut tbts);
    }

    let series = |pick: fn(&Snapshot) -> Option<f64>| -> Vec<(Instant, f64)> {
        rec.samples
            .iter()
            .filter_map(|(at, s)| pick(s).map(|v| (*at, v)))
            .collect()
    };
    let running = series(|s| s.running);
    let waiting = series(|s| s.waiting);
    let delta = |pick: fn(&Snapshot) -> Option<f64>| -> Option<f64> {
        let values = series(pick);
        Some(values.last()?.1 - values.first()?.1)
    };
    let avg_active = time_weighted_mean(&running, start, end);
    let max_waiting = waiting
        .iter()
        .filter(|(at, _)| in_window(at))
        .map(|(_, v)| *v)
        .reduce(f64::max);
    let server_tokens = delta(|s| s.generation_tokens);
    let preemptions = delta(|s| s.preemptions);
    let in_flight: Vec<(Instant, Option<Instant>)> = rec
        .requests
        .iter()
        .filter_map(|r| Some((r.timeline.sent?, r.timeline.ended)))
        .collect();
    let completed = rec
        .requests
        .iter()
        .filter(|r| r.timeline.completed && r.timeline.ended.is_some_and(|e| in_window(&e)))
        .count() as u64;
    let timer_lag_p99 = percentile(&rec.timer_lags_ms, 99.0).unwrap_or(0.0);

    // The status: invalid > client_bound > requests_queued > valid.
    let mut invalid = rec.problems.clone();
    for request in &rec.requests {
        if let Some(error) = &request.timeline.error {
            invalid.push(format!("stream {} failed: {error}", request.slot));
        }
    }
    if !rec.idle_before {
        invalid.push("the server was not idle before the cell".to_owned());
    }
    if !rec.idle_after {
        invalid.push("the server did not become idle after the cell".to_owned());
    }
    if let Some(server) = server_tokens {
        let client = output_tokens as f64;
        if (server - client).abs() > MAX_TOKEN_MISMATCH * client.max(1.0) {
            invalid.push(format!(
                "the server generated {server:.0} tokens in the window, the client received {client:.0} (more than 2 % apart)"
            ));
        }
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
    if rec.readiness_timed_out {
        queued.push("not every stream produced a token before the readiness timeout".to_owned());
    }
    if let Some(waiting) = max_waiting
        && waiting > 0.0
    {
        queued.push(format!(
            "up to {waiting:.0} requests waited in the server's queue"
        ));
    }
    let c = rec.concurrency as f64;
    if let Some(active) = avg_active
        && active < 0.95 * c
    {
        queued.push(format!(
            "on average {active:.2} of {c} requests were running"
        ));
    }
    if let Some(p) = preemptions
        && p > 0.0
    {
        queued.push(format!("the server preempted {p:.0} times"));
    }
    let (status, reasons) = if !invalid.is_empty() {
        (Status::Invalid, invalid)
    } else if !client_bound.is_empty() {
        (Status::ClientBound, client_bound)
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
        per_request_tok_s: median(&per_slot),
        ttft_ms_median: median(&ttfts),
        ttft_ms_p99: percentile(&ttfts, 99.0),
        tbt_ms_median: median(&tbts),
        tbt_ms_p99: percentile(&tbts, 99.0),
        avg_active_requests: avg_active,
        client_in_flight: Some(mean_overlap(&in_flight, start, end)),
        completed_requests: Some(completed),
        output_tokens: Some(output_tokens),
        measured_s: Some(measured_s),
        server_generation_tokens: server_tokens,
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
            "/../../../shared/reference/rtx3060-nemotron-nano-12b-awq.json"
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
            chunks: (0..n).map(|i| (at(base, first + i * gap), 1)).collect(),
            prompt_tokens: Some(100),
            saw_usage: true,
            completed: false,
            ended: Some(at(base, first + (n - 1) * gap)),
            error: None,
        }
    }

    /// Two streams at 20 ms per token (50 tok/s each) through the whole window.
    fn two_streams(base: Instant) -> Vec<Request> {
        vec![
            Request {
                slot: 0,
                timeline: steady(base, 0, 100, 20, 200),
            },
            Request {
                slot: 1,
                timeline: steady(base, 0, 110, 20, 200),
            },
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

    fn recording(
        base: Instant,
        requests: Vec<Request>,
        samples: Vec<(Instant, Snapshot)>,
    ) -> Recording {
        Recording {
            context_tokens: 0,
            concurrency: 2,
            start: at(base, 1000),
            end: at(base, 3000),
            requests,
            samples,
            timer_lags_ms: vec![0.5; 100],
            cpu_percent: Some(10.0),
            idle_before: true,
            idle_after: true,
            readiness_timed_out: false,
            problems: Vec::new(),
        }
    }

    #[test]
    fn figures_of_two_steady_streams() {
        let base = Instant::now();
        // Two streams at 20 ms per token (50 tok/s each) through the whole window.
        let requests = two_streams(base);
        let samples = vec![
            (at(base, 1000), snapshot(2.0, 0.0, 1000.0)),
            (at(base, 2000), snapshot(2.0, 0.0, 1100.0)),
            (at(base, 3000), snapshot(2.0, 0.0, 1200.0)),
        ];
        let cell = evaluate(&recording(base, requests, samples));
        assert_eq!(cell.status, Status::Valid, "{:?}", cell.reasons);
        // 101 + 100 tokens arrive inside [1000, 3000] ms.
        assert_eq!(cell.output_tokens, Some(201));
        assert!((cell.total_tok_s.unwrap() - 100.5).abs() < 1e-9);
        assert!((cell.per_request_tok_s.unwrap() - 50.0).abs() < 1e-6);
        assert!((cell.tbt_ms_median.unwrap() - 20.0).abs() < 1e-9);
        assert!((cell.ttft_ms_median.unwrap() - 105.0).abs() < 1e-9);
        assert_eq!(cell.avg_active_requests, Some(2.0));
        assert!((cell.client_in_flight.unwrap() - 2.0).abs() < 1e-9);
    }

    #[test]
    fn a_server_count_that_disagrees_makes_the_cell_invalid() {
        let base = Instant::now();
        let requests = two_streams(base);
        let samples = vec![
            (at(base, 1000), snapshot(2.0, 0.0, 1000.0)),
            (at(base, 3000), snapshot(2.0, 0.0, 1300.0)),
        ];
        let cell = evaluate(&recording(base, requests, samples));
        assert_eq!(cell.status, Status::Invalid);
        assert!(cell.reasons[0].contains("300"), "{:?}", cell.reasons);
    }

    #[test]
    fn waiting_requests_or_few_active_mean_requests_queued() {
        let base = Instant::now();
        let requests = two_streams(base);
        let samples = vec![
            (at(base, 1000), snapshot(1.0, 1.0, 1000.0)),
            (at(base, 3000), snapshot(1.0, 1.0, 1201.0)),
        ];
        let cell = evaluate(&recording(base, requests, samples));
        assert_eq!(cell.status, Status::RequestsQueued);
        assert_eq!(cell.reasons.len(), 2, "{:?}", cell.reasons);
    }

    #[test]
    fn a_lagging_client_is_client_bound_and_a_failed_stream_invalid() {
        let base = Instant::now();
        let requests = two_streams(base);
        let samples = vec![
            (at(base, 1000), snapshot(2.0, 0.0, 1000.0)),
            (at(base, 3000), snapshot(2.0, 0.0, 1201.0)),
        ];
        let mut rec = recording(base, requests, samples);
        rec.timer_lags_ms = vec![7.0; 100];
        assert_eq!(evaluate(&rec).status, Status::ClientBound);
        rec.timer_lags_ms = vec![0.5; 100];
        rec.cpu_percent = Some(85.0);
        assert_eq!(evaluate(&rec).status, Status::ClientBound);
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
        let requests = vec![
            Request {
                slot: 0,
                timeline: first,
            },
            Request {
                slot: 0,
                timeline: second,
            },
        ];
        let mut rec = recording(base, requests, Vec::new());
        rec.concurrency = 1;
        let cell = evaluate(&rec);
        assert!((cell.per_request_tok_s.unwrap() - 100.0).abs() < 1e-6);
        assert_eq!(cell.completed_requests, Some(1));
        // TTFTs: 100 ms and 100 ms.
        assert!((cell.ttft_ms_median.unwrap() - 100.0).abs() < 1e-9);
    }
}
