//! Properties of the guarantee's judging rules (`domain::guarantee`): what a provider can do
//! to a stream it sends — split its chunks, add empty ones, inflate its usage — never raises
//! the share a request delivered, and what a renter can do — send requests the engine
//! refuses — never lowers a bucket's.

use domain::guarantee::{
    MIN_JUDGED, Outcome, ServedRequest, Verified, VerifiedCell, delivered, judge,
};
use proptest::prelude::*;

/// A report measured at contexts 0 and 8,192, one and four streams, `tokens_per_chunk`
/// tokens a chunk.
fn verified(tokens_per_chunk: f64) -> Verified {
    let cell = |context, concurrency, tok_s| VerifiedCell {
        context,
        concurrency,
        per_request_tok_s: tok_s,
        ttft_ms_p99: Some(40.0),
        tokens_per_chunk: Some(tokens_per_chunk),
    };
    Verified {
        cells: vec![
            cell(0, 1, 100.0),
            cell(0, 4, 70.0),
            cell(8192, 1, 60.0),
            cell(8192, 4, 40.0),
        ],
        prefill: vec![(8192, 20_000.0)],
    }
}

/// An honest stream: `chunks` chunks of exactly the verified tokens per chunk, usage as
/// sent, at `tok_s`, its first token after `ttft` ms.
fn honest(prompt: i64, chunks: i64, tokens_per_chunk: i64, tok_s: f64, ttft: f64) -> ServedRequest {
    let tokens = chunks * tokens_per_chunk;
    ServedRequest {
        outcome: Outcome::Completed,
        comparable: true,
        prompt_tokens: prompt,
        output_tokens: tokens,
        engine_output_tokens: Some(tokens),
        chunks: Some(chunks),
        text_bytes: Some(tokens * 3),
        max_tokens: Some(tokens + 50),
        ttft_ms: Some(ttft),
        last_token_ms: Some(ttft + (tokens - 1).max(0) as f64 / tok_s * 1000.0),
        concurrency: 1,
        client_stall_ms: Some(0.0),
    }
}

fn share(request: &ServedRequest, verified: &Verified) -> Option<f64> {
    let prompt = request.prompt_tokens as u64;
    let context = prompt + request.tokens_received(verified.tokens_per_chunk()) as u64;
    let cell = verified.cell_for(context, 1)?;
    delivered(request, &cell, verified.ttft_allowed_ms(&cell, prompt))
}

fn stream() -> impl Strategy<Value = (ServedRequest, i64)> {
    (
        0i64..6000,
        1i64..300,
        prop_oneof![Just(1i64), Just(2), Just(4)],
        1.0f64..150.0,
        5.0f64..400.0,
    )
        .prop_map(|(prompt, chunks, per_chunk, tok_s, ttft)| {
            (honest(prompt, chunks, per_chunk, tok_s, ttft), per_chunk)
        })
}

proptest! {
    #[test]
    fn splitting_chunks_adding_empty_ones_or_inflating_usage_never_raises_a_share(
        (request, per_chunk) in stream(),
        split in 1i64..8,
        inflation in 1i64..20,
    ) {
        let v = verified(per_chunk as f64);
        let before = share(&request, &v);
        // Each chunk split in `split` (the text unchanged; a chunk's pieces arrive together).
        let mut split_up = request.clone();
        split_up.chunks = request.chunks.map(|n| n * split);
        // Usage inflated `inflation` times.
        let mut inflated = request.clone();
        inflated.engine_output_tokens = request.engine_output_tokens.map(|n| n * inflation);
        inflated.output_tokens *= inflation;
        // Empty chunks carry no text: the gateway does not count them, so the request
        // reads as it did.
        for after in [share(&split_up, &v), share(&inflated, &v)] {
            match (before, after) {
                (Some(b), Some(a)) => prop_assert!(a <= b + 1e-9, "{a} > {b}"),
                (None, Some(a)) => prop_assert!(false, "judged only after: {a}"),
                _ => {}
            }
        }
    }

    #[test]
    fn requests_the_engine_refuses_never_lower_a_bucket(
        requests in prop::collection::vec(stream(), MIN_JUDGED..12),
        refused in 1usize..30,
    ) {
        let v = verified(1.0);
        let served: Vec<ServedRequest> = requests.into_iter().map(|(r, _)| r).collect();
        let before = judge(&served, &v);
        let mut with_refusals = served.clone();
        for i in 0..refused {
            let mut r = served[i % served.len()].clone();
            r.outcome = Outcome::Rejected;
            r.ttft_ms = None;
            r.chunks = Some(0);
            with_refusals.insert(i % (with_refusals.len() + 1), r);
        }
        let after = judge(&with_refusals, &v);
        prop_assert_eq!(after.delivered_fraction, before.delivered_fraction);
        prop_assert_eq!(after.judged, before.judged);
        prop_assert_eq!(after.rejected, refused as u64);
    }
}
