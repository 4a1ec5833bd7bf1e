//! What makes a cell's measurement valid or not: the engine's capacity, the client's own
//! limits, and the cross-check of the tokens counted against the engine's counters.

use std::time::Instant;

use super::{Readiness, Recording, Sample};
use crate::stats::secs;

/// Decides, before running, whether a cell cannot fit: `C × (P + O) > kv_cache_tokens` or
/// `P + O > max_model_len`. Returns why, or `None` when it fits (or the sizes are unknown).
/// An engine of a fixed number of `slots` (llama.cpp's) holds at most that many requests'
/// caches at once, the others waiting for a slot: it counts `min(C, slots)` requests.
pub fn over_capacity(
    concurrency: u64,
    context: u64,
    max_output: u64,
    kv_cache_tokens: Option<u64>,
    max_model_len: Option<u64>,
    slots: Option<u64>,
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
    let held = slots.map_or(concurrency, |slots| concurrency.min(slots));
    let needed = held.saturating_mul(per_stream);
    if let Some(kv) = kv_cache_tokens
        && needed > kv
    {
        return Some(format!(
            "{held} × ({context} + {max_output}) = {needed} tokens exceeds the KV cache of {kv} tokens"
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

/// The first and the last sample taken wholly inside the window that read the generated-token
/// counter, and its delta between them; `None` without two such samples.
fn counter_span(rec: &Recording) -> Option<(&Sample, &Sample, f64)> {
    let counted: Vec<(&Sample, f64)> = rec
        .samples
        .iter()
        .filter(|s| s.sent >= rec.start && s.received <= rec.end)
        .filter_map(|s| Some((s, s.snapshot.generation_tokens?)))
        .collect();
    let (&(first, a), &(last, b)) = (counted.first()?, counted.last()?);
    (!std::ptr::eq(first, last)).then_some((first, last, b - a))
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
    let (first, last, server) = counter_span(rec)?;
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

/// The cross-check of an engine whose counter moves as requests end (llama.cpp's, TGI's): the
/// counter's delta between the first and the last sample inside the window against the
/// tokens of the requests that ended, completed, between them — counted whole, as the server
/// counts them; a request the client stopped is counted by neither. The server counts a
/// request at most one sampling interval before the client reads its end, so a request
/// surely counted ended, at the client, after the first sample's answer plus that interval
/// and before the last sample was asked; one possibly counted, between the first sample's
/// request and the last one's answer plus the interval. The delta must fall within those
/// bounds, widened by 2 %. No request ended between the samples: no check is made.
pub(super) fn cross_check_ended(rec: &Recording) -> Option<CrossCheck> {
    let (first, last, server) = counter_span(rec)?;
    let lateness = std::time::Duration::from_secs_f64(rec.sampling_interval_s.max(0.0));
    let ended_between = |from: Instant, to: Instant| -> u64 {
        rec.requests
            .iter()
            .filter(|r| r.timeline.completed)
            .filter(|r| r.timeline.ended.is_some_and(|e| e > from && e <= to))
            .map(|r| r.timeline.chunks.iter().map(|(_, n)| n).sum::<u64>())
            .sum()
    };
    let narrow = ended_between(first.received + lateness, last.sent) as f64;
    let wide = ended_between(first.sent, last.received + lateness) as f64;
    if wide == 0.0 {
        return None;
    }
    let client = ended_between(first.at(), last.at());
    let slack = MAX_TOKEN_MISMATCH * wide;
    let span = secs(first.at(), last.at());
    let problem = (server < narrow - slack || server > wide + slack).then(|| {
        format!(
            "the server counted {server:.0} tokens of requests that ended between two /metrics samples {span:.2} s apart, the client received {client} in the requests that ended (allowed {:.0}..={:.0})",
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

/// Where tokens are counted one per content chunk (no running usage), each completed
/// request's final usage must agree with its chunks within the standard's 2 %: a server that
/// packs several tokens into a chunk would otherwise time them wrongly. The final usage only
/// ever adds to the count (at the last chunk); what it adds is the disagreement.
pub(super) fn final_usage_disagreements(rec: &Recording) -> Option<String> {
    let off: Vec<(u64, u64)> = rec
        .requests
        .iter()
        .filter_map(|r| r.timeline.final_usage)
        .filter(|u| u.added as f64 > MAX_TOKEN_MISMATCH * u.completion_tokens as f64)
        .map(|u| (u.completion_tokens, u.completion_tokens - u.added))
        .collect();
    let (usage, chunks) = off.first()?;
    Some(format!(
        "{} requests' final usage disagreed with their content chunks (one said {usage} tokens in {chunks} chunks)",
        off.len()
    ))
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
