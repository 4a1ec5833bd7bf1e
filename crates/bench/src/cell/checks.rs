//! What makes a cell's measurement valid or not: the engine's capacity, the client's own
//! limits, and the cross-check of the tokens counted against the engine's counters.

use std::time::Instant;

use super::{Readiness, Recording, Sample};
use crate::stats::secs;

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

/// The standard's limits on the measuring client.
pub const MAX_TIMER_LAG_P99_MS: f64 = 5.0;

pub const MAX_CLIENT_CPU_PERCENT: f64 = 70.0;

/// Server and client token counts must agree within this share (plus what the server makes
/// in one sampling interval).
pub const MAX_TOKEN_MISMATCH: f64 = 0.02;

/// The server's token counter against the client's count over the same interval.
pub(super) struct CrossCheck {
    pub(super) server: f64,
    /// The client's tokens between the two samples' middles.
    pub(super) client: u64,
    pub(super) problem: Option<String>,
}

/// Compares `generation_tokens_total` between the first sample taken wholly inside the window
/// and the last one, with the client's tokens over the same interval. A sample's reading is
/// true somewhere between its request and its answer, so the client's count is bounded by
/// the widest and the narrowest interval the two samples allow; the server's delta must fall
/// within those bounds, widened by 2 % and by the tokens the server makes in one sampling
/// interval (how late a counter may be published).
pub(super) fn cross_check(
    rec: &Recording,
    tokens_in: &dyn Fn(Instant, Instant) -> u64,
) -> Option<CrossCheck> {
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
pub(super) fn started_on_idle_slot(rec: &Recording) -> Vec<bool> {
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
