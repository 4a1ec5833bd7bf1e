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
            let decided = over_capacity(c, p, max_output, Some(kv), Some(90_112), None).is_some();
            let published = cell["status"] == "over_capacity";
            assert_eq!(decided, published, "{p} x {c} with a KV cache of {kv}");
        }
    }
    // One token less of KV and 16K × 4 would not fit.
    assert!(over_capacity(4, 16_384, 8_192, Some(98_303), None, None).is_some());
    assert!(
        over_capacity(1, 85_000, 8_192, Some(1 << 20), Some(90_112), None)
            .unwrap()
            .contains("max_model_len")
    );
    // Two slots of 1024 tokens (llama.cpp's): four streams of 768 hold two slots and wait for
    // the others, so they fit; a stream longer than a slot does not.
    assert_eq!(
        over_capacity(4, 256, 512, Some(2048), Some(1024), Some(2)),
        None
    );
    assert!(over_capacity(4, 256, 512, Some(2048), Some(1024), None).is_some());
    assert!(
        over_capacity(1, 768, 512, Some(2048), Some(1024), Some(2))
            .unwrap()
            .contains("max_model_len 1024")
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
        final_usage: None,
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
        rules: crate::engine::Dialect::Vllm.rules(),
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
    // Ready without saturation (as when queued streams got a slot before the running count
    // held still): the window's samples say how many ran, beside the queue and the deficit.
    assert_eq!(cell.reasons.len(), 3, "{:?}", cell.reasons);
    assert_eq!(
        cell.reasons[0],
        "the server ran at most 1 of 2 requests at once"
    );
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

/// llama.cpp's counter moves as requests end. Two streams each run two requests of 40 tokens
/// (one every 25 ms: 1000 ms each), ending at 1975 and 2975 ms; samples every 250 ms through
/// the window [1000, 3000] ms.
fn requests_ending(base: Instant) -> Vec<Request> {
    let mut requests = Vec::new();
    for slot in 0..2 {
        for (k, first) in [(0, 1000), (1, 2000)] {
            let mut timeline = steady(base, first - 10, first, 25, 40);
            timeline.completed = true;
            timeline.saw_usage = false;
            timeline.final_usage = Some(crate::client::FinalUsage {
                completion_tokens: 40,
                added: 0,
            });
            requests.push(request(slot, k == 0, timeline));
        }
    }
    requests
}

/// The server's counter at `ms`: the tokens of the requests it had counted, each counted
/// `lag` ms before the client read its end (or after, when negative).
fn ended_counter(ms: u64, lag: i64) -> f64 {
    let counted = |end: i64| (ms as i64) >= end - lag;
    1000.0 + [1975, 2975].iter().filter(|e| counted(**e)).count() as f64 * 80.0
}

fn at_request_end(base: Instant, lag: i64, extra: f64) -> Recording {
    let samples = (0..8)
        .map(|i| 1001 + i * 250)
        .chain([2999])
        .map(|ms| {
            let generated = ended_counter(ms, lag) + if ms > 2000 { extra } else { 0.0 };
            sample(base, ms, snapshot(2.0, 0.0, generated))
        })
        .collect();
    let mut rec = recording(base, requests_ending(base), samples);
    rec.rules = crate::engine::Dialect::LlamaCpp.rules();
    rec
}

#[test]
fn a_counter_that_moves_as_requests_end_is_checked_against_the_requests_that_ended() {
    let base = Instant::now();
    // Counted as the client reads the end, or up to one sampling interval (250 ms) before.
    for lag in [0, 100, 240] {
        let cell = evaluate(&at_request_end(base, lag, 0.0));
        assert_eq!(cell.status, Status::Valid, "lag {lag}: {:?}", cell.reasons);
        // Every request ended inside the samples' span: 4 × 40 tokens.
        assert_eq!(cell.server_generation_tokens, Some(160.0), "lag {lag}");
        assert_eq!(cell.client_generation_tokens, Some(160), "lag {lag}");
    }
    // A server that counts 10 tokens more than the requests that ended made.
    let cell = evaluate(&at_request_end(base, 0, 10.0));
    assert_eq!(cell.status, Status::Invalid, "{:?}", cell.reasons);
    assert!(
        cell.reasons[0].contains("requests that ended"),
        "{:?}",
        cell.reasons
    );
}

#[test]
fn no_request_ending_inside_the_window_makes_no_check() {
    let base = Instant::now();
    let mut rec = at_request_end(base, 0, 0.0);
    for request in &mut rec.requests {
        request.timeline.completed = false;
    }
    let cell = evaluate(&rec);
    assert_eq!(cell.status, Status::Valid, "{:?}", cell.reasons);
    assert_eq!(cell.server_generation_tokens, None);
}

#[test]
fn a_final_usage_beyond_the_chunks_makes_the_cell_invalid_where_tokens_are_counted_by_chunk() {
    let base = Instant::now();
    let mut rec = at_request_end(base, 0, 0.0);
    // One request's usage says 50 tokens; it sent 40 content chunks (the last carried 10).
    rec.requests[0].timeline.final_usage = Some(crate::client::FinalUsage {
        completion_tokens: 50,
        added: 10,
    });
    let cell = evaluate(&rec);
    assert_eq!(cell.status, Status::Invalid, "{:?}", cell.reasons);
    assert!(
        cell.reasons
            .iter()
            .any(|r| r.contains("1 requests' final usage disagreed")
                && r.contains("50 tokens in 40 chunks")),
        "{:?}",
        cell.reasons
    );
    // Within 2 %: one token in fifty is the standard's tolerance.
    rec.requests[0].timeline.final_usage = Some(crate::client::FinalUsage {
        completion_tokens: 50,
        added: 1,
    });
    assert_ne!(evaluate(&rec).status, Status::Invalid);
}
