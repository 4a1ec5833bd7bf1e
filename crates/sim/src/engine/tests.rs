//! The scheduler's guarantees, on small engines run fast.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::{Engine, Event, Submission};
use crate::profile::Profile;

fn profile(max_num_seqs: usize, num_gpu_blocks: usize) -> Arc<Profile> {
    let mut profile = Profile::load("tiny").unwrap();
    profile.max_num_seqs = max_num_seqs;
    profile.num_gpu_blocks = num_gpu_blocks;
    profile.performance.step_base_ms = 4.0;
    profile.performance.request_overhead_ms = 0.0;
    Arc::new(profile)
}

fn submit(
    engine: &Engine,
    prompt_len: usize,
    max_tokens: usize,
    seed: u64,
) -> UnboundedReceiver<Event> {
    let (tx, rx) = unbounded_channel();
    let prompt = (0..prompt_len as u32)
        .map(|t| t + seed as u32 * 100_000)
        .collect();
    assert!(engine.submit(Submission {
        prompt,
        max_tokens,
        seed,
        events: tx,
        reuse_cache: true,
    }));
    rx
}

/// Every token a request receives until it finishes.
async fn collect(mut rx: UnboundedReceiver<Event>) -> Vec<u32> {
    let mut tokens = Vec::new();
    let wait = async {
        while let Some(event) = rx.recv().await {
            match event {
                Event::Tokens(t) => tokens.extend(t),
                Event::Finished => return true,
            }
        }
        false
    };
    let finished = tokio::time::timeout(Duration::from_secs(20), wait).await;
    assert_eq!(finished, Ok(true), "the request finishes");
    tokens
}

/// Reads `rx` until `n` more tokens arrived; returns how many did (a step may carry several).
async fn take(rx: &mut UnboundedReceiver<Event>, n: usize) -> usize {
    let mut got = 0;
    let wait = async {
        while got < n {
            match rx.recv().await {
                Some(Event::Tokens(t)) => got += t.len(),
                Some(Event::Finished) | None => break,
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), wait)
        .await
        .expect("tokens arrive");
    got
}

#[tokio::test]
async fn requests_beyond_max_num_seqs_wait_their_turn() {
    let engine = Engine::start(profile(2, 1024), 1.0).unwrap();
    let mut streams: Vec<_> = (0..4).map(|i| submit(&engine, 8, 30, i)).collect();
    // The first two (first come, first served) are running once each has a token.
    let mut taken = vec![0; 4];
    for (i, stream) in streams.iter_mut().enumerate().take(2) {
        taken[i] = take(stream, 1).await;
    }
    let stats = engine.stats();
    assert_eq!((stats.running, stats.waiting), (2, 2));
    for (stream, taken) in streams.into_iter().zip(taken) {
        assert_eq!(taken + collect(stream).await.len(), 30);
    }
    let stats = engine.stats();
    assert_eq!((stats.running, stats.waiting), (0, 0));
    assert_eq!(stats.requests_success, 4);
}

#[tokio::test]
async fn admission_waits_for_kv_blocks() {
    // 8 blocks of 16 = 128 tokens: one 100-token prompt fits, a second does not. Counted in
    // the first request's steps, not in sleeps: on a loaded machine a sleep may end before
    // the engine has looked at its queue.
    let engine = Engine::start(profile(16, 8), 1.0).unwrap();
    let mut first = submit(&engine, 100, 20, 1);
    let mut taken = take(&mut first, 1).await;
    let second = submit(&engine, 100, 20, 2);
    // Five steps later, the second has had five chances to be admitted.
    taken += take(&mut first, 5).await;
    let stats = engine.stats();
    assert_eq!((stats.running, stats.waiting), (1, 1), "{stats:?}");
    assert!(stats.kv_cache_usage > 0.8);
    assert_eq!(taken + collect(first).await.len(), 20);
    assert_eq!(collect(second).await.len(), 20);
    assert_eq!(engine.stats().preemptions, 0);
}

#[tokio::test]
async fn sequences_that_outgrow_the_cache_are_preempted_and_still_complete() {
    // Two 40-token prompts (3 blocks each) growing by 40 tokens need 10 blocks; there are 8.
    let engine = Engine::start(profile(16, 8), 1.0).unwrap();
    let a = submit(&engine, 40, 40, 1);
    let b = submit(&engine, 40, 40, 2);
    let (a, b) = tokio::join!(collect(a), collect(b));
    assert_eq!((a.len(), b.len()), (40, 40));
    let stats = engine.stats();
    assert!(stats.preemptions > 0, "{stats:?}");
    // Recomputation does not count output twice.
    assert_eq!(stats.generation_tokens, 80);
}

#[tokio::test]
async fn a_repeated_prompt_hits_the_prefix_cache() {
    let engine = Engine::start(profile(16, 64), 1.0).unwrap();
    collect(submit(&engine, 64, 1, 7)).await;
    let before = engine.stats();
    assert_eq!(before.prefix_cache_hits, 0);
    assert_eq!(before.prefix_cache_queries, 64);
    collect(submit(&engine, 64, 1, 7)).await;
    let after = engine.stats();
    // Three full blocks are reused; the last must be computed to sample a token.
    assert_eq!(after.prefix_cache_hits, 48);
    assert_eq!(after.prefix_cache_queries, 128);

    assert!(engine.reset_prefix_cache());
    collect(submit(&engine, 64, 1, 7)).await;
    assert_eq!(engine.stats().prefix_cache_hits, 48, "no hit after a reset");
}

/// llama.cpp's `cache_prompt: false`: the same prompt again is computed whole.
#[tokio::test]
async fn a_prompt_that_may_not_reuse_the_cache_is_computed_whole() {
    let engine = Engine::start(profile(16, 64), 1.0).unwrap();
    collect(submit(&engine, 64, 1, 7)).await;
    let (tx, rx) = unbounded_channel();
    assert!(engine.submit(Submission {
        prompt: (0..64).map(|t| t + 7 * 100_000).collect(),
        max_tokens: 1,
        seed: 7,
        events: tx,
        reuse_cache: false,
    }));
    collect(rx).await;
    let stats = engine.stats();
    assert_eq!(stats.prefix_cache_hits, 0, "{stats:?}");
    assert_eq!(stats.prefix_cache_queries, 128);
}

#[tokio::test]
async fn counters_agree_with_what_was_streamed() {
    let engine = Engine::start(profile(16, 512), 1.0).unwrap();
    let lens = [(10, 5), (33, 17), (70, 1), (5, 40)];
    let streams: Vec<_> = lens
        .iter()
        .enumerate()
        .map(|(i, &(prompt, max))| submit(&engine, prompt, max, i as u64 + 1))
        .collect();
    let mut streamed = 0;
    for stream in streams {
        streamed += collect(stream).await.len();
    }
    let stats = engine.stats();
    assert_eq!(stats.generation_tokens as usize, streamed);
    assert_eq!(streamed, 5 + 17 + 1 + 40);
    assert_eq!(stats.prompt_tokens, 10 + 33 + 70 + 5);
    assert_eq!(stats.prefill_time.count, 4);
    assert!(stats.prefill_time.sum > 0.0);
    assert_eq!(stats.requests_success, 4);
}

#[tokio::test]
async fn step_times_follow_the_model_at_any_time_scale() {
    // tiny: 8 ms base + 1 ms per sequence, 9 ms per token for one stream at 1x. At 4x a step
    // is 2.25 ms: a thread descheduled for four steps (9 ms, seen on a loaded two-core VM at
    // 10x, where four steps are 3.6 ms) starts its schedule afresh and the run drifts late.
    for (scale, tokens) in [(1.0, 100), (4.0, 300)] {
        let engine = Engine::start(Arc::new(Profile::load("tiny").unwrap()), scale).unwrap();
        let started = std::time::Instant::now();
        let got = collect(submit(&engine, 4, tokens, 3)).await;
        let elapsed = started.elapsed().as_secs_f64();
        assert_eq!(got.len(), tokens);
        let expected = tokens as f64 * 9.0 / scale / 1000.0;
        assert!(
            (elapsed / expected - 1.0).abs() < 0.10,
            "{elapsed:.4} s for {tokens} tokens at {scale}x, expected {expected:.4} s"
        );
    }
}
