//! The rules of a performance-backed booking: which verified cell a request served through
//! the gateway is held to, what share of that cell it delivered, and a usage bucket's
//! judgement (the median share of its judged requests). Pure: `app` gathers the requests and
//! the report's cells and pays the credits.

use chrono::{DateTime, Duration, DurationRound, Utc};

/// How a request served through the gateway ended, as judging reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The engine finished the answer.
    Completed,
    /// The engine failed it: nothing delivered.
    EngineError,
    /// Anything else (the client left, the gateway refused): not judged.
    Other,
}

/// What the gateway recorded of one request, as judging reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServedRequest {
    pub outcome: Outcome,
    /// Whether the request asked nothing that slows decoding (see the gateway's allow-list).
    pub comparable: bool,
    pub prompt_tokens: i64,
    /// Tokens the gateway counted, and the engine's own usage when it reported one.
    pub output_tokens: i64,
    pub engine_output_tokens: Option<i64>,
    /// Chunks the client received.
    pub chunks: Option<i64>,
    /// From the request's start: its first token and its last.
    pub ttft_ms: Option<f64>,
    pub last_token_ms: Option<f64>,
    /// Streams the gateway had open to the machine during the request; the engine's own
    /// count where it said it ran more.
    pub concurrency: i32,
    pub engine_load: Option<i32>,
    /// The longest a write to the client stayed blocked.
    pub client_stall_ms: Option<f64>,
}

/// The median (the mean of the middle two of an even count); `None` of nothing.
fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// Longer than this, a write to the client blocked makes its bucket a slow reader's.
pub const SLOW_READER_MS: f64 = 50.0;
/// Fewest judged requests a bucket is judged on (by their median): fewer say little.
pub const MIN_JUDGED: usize = 5;
/// Tokens one chunk is believed to carry when the report did not measure it (reports signed
/// before `tokens_per_chunk`).
pub const TOKENS_PER_CHUNK_UNMEASURED: f64 = 8.0;
/// The slack on the time to first token a request is allowed: the verified TTFT p99 at its
/// load plus its prompt's prefill at the verified rate, times this, plus [`TTFT_SLACK_MS`]
/// (the network between the gateway and the machine, and the tail the p99 does not cover).
pub const TTFT_SLACK: f64 = 1.25;
pub const TTFT_SLACK_MS: f64 = 50.0;

/// A cell of a verified report the delivery may be held to: decode, valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VerifiedCell {
    pub context: u64,
    pub concurrency: u64,
    pub per_request_tok_s: f64,
    /// TTFT p99 of a request joining the cell's load (its prompt cached).
    pub ttft_ms_p99: Option<f64>,
    /// Tokens per streamed chunk the verification saw.
    pub tokens_per_chunk: Option<f64>,
}

/// What a verified report holds a booking's requests to: its valid decode cells and its
/// prefill rates (tok/s by context).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verified {
    pub cells: Vec<VerifiedCell>,
    pub prefill: Vec<(u64, f64)>,
}

impl Verified {
    /// The cell a request with `prompt_tokens` served while `concurrency` streams were open
    /// is held to: the largest measured context at or below its prompt, and at that context
    /// the smallest measured concurrency at or above its own (never a lighter load than it
    /// had). `None` when the report measured no such valid cell.
    pub fn cell_for(&self, prompt_tokens: u64, concurrency: u64) -> Option<VerifiedCell> {
        let band = self
            .cells
            .iter()
            .map(|c| c.context)
            .filter(|&context| context <= prompt_tokens)
            .max()?;
        self.cells
            .iter()
            .filter(|c| c.context == band && c.concurrency >= concurrency.max(1))
            .min_by_key(|c| c.concurrency)
            .copied()
    }

    /// The time to first token a request of `prompt_tokens` at `cell` is allowed: as the
    /// standard's derived figures estimate it (the cell's TTFT p99 plus the prompt's prefill
    /// at the rate measured at the smallest prefill context at or above it), with the slack.
    /// `None` when the report lacks either figure.
    pub fn ttft_allowed_ms(&self, cell: &VerifiedCell, prompt_tokens: u64) -> Option<f64> {
        let rate = self
            .prefill
            .iter()
            .filter(|(context, _)| *context >= prompt_tokens)
            .min_by_key(|(context, _)| *context)
            .map(|(_, rate)| *rate)?;
        let estimate = cell.ttft_ms_p99? + prompt_tokens as f64 / rate * 1000.0;
        Some(estimate * TTFT_SLACK + TTFT_SLACK_MS)
    }
}

/// A request's delivered share of its cell, from what the gateway saw:
/// - tokens: the smaller of the engine's usage and the chunks the client received × the
///   tokens per chunk the verification saw (an engine inflating its usage gains nothing);
/// - its per-stream speed, first to last token, over the cell's;
/// - its pace as a whole: the tokens after the first over the time from the TTFT allowed to
///   the last token (an answer held back and sent in one burst is as slow as it was);
/// - its TTFT against the allowed one.
///
/// The smallest of these; 1 when the whole answer came within the TTFT allowed. An answer
/// the engine failed is 0; one the client abandoned is not judged.
pub fn delivered(
    request: &ServedRequest,
    cell: &VerifiedCell,
    ttft_allowed_ms: Option<f64>,
) -> Option<f64> {
    match request.outcome {
        Outcome::Completed => {}
        Outcome::EngineError => return Some(0.0),
        Outcome::Other => return None,
    }
    let chunks = request.chunks.filter(|&n| n > 0)? as f64;
    let (ttft, last) = (request.ttft_ms?, request.last_token_ms?);
    let per_chunk = cell.tokens_per_chunk.unwrap_or(TOKENS_PER_CHUNK_UNMEASURED);
    let claimed = request
        .engine_output_tokens
        .unwrap_or(request.output_tokens)
        .max(0) as f64;
    let tokens = claimed.min(chunks * per_chunk);
    let verified = cell.per_request_tok_s;
    let mut fraction = f64::INFINITY;
    let pace = |from_ms: f64| (tokens - 1.0) / ((last - from_ms) / 1000.0) / verified;
    if tokens > 1.0 && last > ttft {
        fraction = fraction.min(pace(ttft));
    }
    if let Some(allowed) = ttft_allowed_ms {
        if tokens > 1.0 && last > allowed {
            fraction = fraction.min(pace(allowed));
        }
        if ttft > allowed {
            fraction = fraction.min(allowed / ttft);
        }
    } else if fraction.is_infinite() {
        // One burst and no TTFT to hold it to (a report without its p99): nothing to judge.
        return None;
    }
    Some(if fraction.is_finite() { fraction } else { 1.0 })
}

/// What a bucket delivered against its verified cells.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Judgement {
    /// Median per-stream tok/s of the cells the bucket's requests are held to.
    pub verified_tok_s: Option<f64>,
    /// Median of each judged request's delivered share ([`delivered`]), when at least
    /// [`MIN_JUDGED`] were judged.
    pub delivered_fraction: Option<f64>,
    /// Requests judged.
    pub judged: u64,
    /// The longest a write to the client stayed blocked.
    pub client_stall_ms_max: Option<f64>,
    pub slow_reader: bool,
}

impl Judgement {
    /// Whether the bucket under-delivered, by a guarantee of `min_bp` basis points.
    pub fn under(&self, min_bp: i32) -> bool {
        !self.slow_reader
            && self
                .delivered_fraction
                .is_some_and(|f| f < f64::from(min_bp) / 10_000.0)
    }
}

/// The load a request was served at: the gateway's count, or the engine's own where it
/// said it ran more (a booking with direct access can load it around the gateway).
fn load_of(request: &ServedRequest) -> u64 {
    let gateway = request.concurrency.max(1) as u64;
    let engine = request.engine_load.map_or(0, |n| n.max(0) as u64);
    gateway.max(engine)
}

/// Judges one bucket's requests against the report's valid cells.
pub fn judge(requests: &[ServedRequest], verified: &Verified) -> Judgement {
    let mut fractions = Vec::new();
    let mut cells = Vec::new();
    for r in requests.iter().filter(|r| r.comparable) {
        let prompt = r.prompt_tokens.max(0) as u64;
        let Some(cell) = verified.cell_for(prompt, load_of(r)) else {
            continue;
        };
        let Some(fraction) = delivered(r, &cell, verified.ttft_allowed_ms(&cell, prompt)) else {
            continue;
        };
        fractions.push(fraction);
        cells.push(cell.per_request_tok_s);
    }
    let client_stall_ms_max = requests
        .iter()
        .filter_map(|r| r.client_stall_ms)
        .max_by(f64::total_cmp);
    Judgement {
        verified_tok_s: median(&cells),
        delivered_fraction: (fractions.len() >= MIN_JUDGED)
            .then(|| median(&fractions))
            .flatten(),
        judged: fractions.len() as u64,
        client_stall_ms_max,
        slow_reader: client_stall_ms_max.is_some_and(|ms| ms > SLOW_READER_MS),
    }
}

/// A bucket's share of a booking's price: the part of `[starts_at, ends_at)` the bucket
/// covers, in minor units, rounded down.
pub fn bucket_share(
    price_minor: i64,
    (starts_at, ends_at): (DateTime<Utc>, DateTime<Utc>),
    bucket_start: DateTime<Utc>,
    bucket: Duration,
) -> i64 {
    let total = (ends_at - starts_at).num_milliseconds();
    let covered = ((bucket_start + bucket).min(ends_at) - bucket_start.max(starts_at))
        .num_milliseconds()
        .max(0);
    if total <= 0 {
        return 0;
    }
    (i128::from(price_minor.max(0)) * i128::from(covered) / i128::from(total)) as i64
}

/// The start of the bucket `at` falls in.
pub fn bucket_of(at: DateTime<Utc>, bucket: Duration) -> DateTime<Utc> {
    at.duration_trunc(bucket).unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(context: u64, concurrency: u64, tok_s: f64) -> VerifiedCell {
        VerifiedCell {
            context,
            concurrency,
            per_request_tok_s: tok_s,
            ttft_ms_p99: Some(40.0),
            tokens_per_chunk: Some(1.0),
        }
    }

    fn verified(cells: &[VerifiedCell]) -> Verified {
        Verified {
            cells: cells.to_vec(),
            // 10,000 prompt tokens a second up to 2,048 tokens.
            prefill: vec![(2048, 10_000.0)],
        }
    }

    /// A completed stream of `tokens` tokens in as many chunks, its first after `ttft` ms,
    /// at `tok_s` per stream.
    fn request(prompt: i64, concurrency: i32, tok_s: f64, stall: f64) -> ServedRequest {
        let tokens = 100;
        let ttft = 30.0;
        ServedRequest {
            outcome: Outcome::Completed,
            comparable: true,
            prompt_tokens: prompt,
            output_tokens: tokens,
            engine_output_tokens: Some(tokens),
            chunks: Some(tokens),
            ttft_ms: Some(ttft),
            last_token_ms: Some(ttft + (tokens - 1) as f64 / tok_s * 1000.0),
            concurrency,
            engine_load: None,
            client_stall_ms: Some(stall),
        }
    }

    fn five(r: ServedRequest) -> Vec<ServedRequest> {
        vec![r; MIN_JUDGED]
    }

    fn judged(requests: &[ServedRequest], cells: &[VerifiedCell]) -> Judgement {
        judge(requests, &verified(cells))
    }

    #[test]
    fn a_request_is_held_to_its_context_band_at_no_lighter_a_load() {
        let cells = [
            cell(0, 1, 100.0),
            cell(0, 4, 80.0),
            cell(1024, 1, 90.0),
            cell(1024, 4, 70.0),
        ];
        let v = verified(&cells);
        // Prompt 900: band 0; 2 streams: the 4-stream cell.
        assert_eq!(v.cell_for(900, 2), Some(cells[1]));
        assert_eq!(v.cell_for(1024, 1), Some(cells[2]));
        assert_eq!(v.cell_for(5000, 4), Some(cells[3]));
        // More streams than any valid cell measured: no guarantee at that load.
        assert_eq!(v.cell_for(10, 5), None);
        assert_eq!(verified(&[cell(512, 1, 9.0)]).cell_for(100, 1), None);
        // The TTFT allowed: the p99 plus the prompt's prefill, with the slack.
        let allowed = v.ttft_allowed_ms(&cells[0], 1000).unwrap();
        assert!((allowed - ((40.0 + 100.0) * TTFT_SLACK + TTFT_SLACK_MS)).abs() < 1e-9);
        assert_eq!(
            v.ttft_allowed_ms(&cells[0], 4096),
            None,
            "no prefill measured that long"
        );
    }

    #[test]
    fn a_slow_bucket_is_under_unless_its_reader_was_slow_and_few_requests_judge_nothing() {
        let cells = [cell(0, 1, 100.0), cell(0, 4, 80.0)];
        let mut fast = five(request(50, 1, 97.0, 1.0));
        fast.push(request(50, 3, 78.0, 2.0));
        let judgement = judged(&fast, &cells);
        assert!((judgement.delivered_fraction.unwrap() - 0.97).abs() < 1e-6);
        assert!(!judgement.under(8000));
        let slow = five(request(50, 1, 50.0, 1.0));
        assert!(judged(&slow, &cells).under(8000));
        assert!(!judged(&slow, &cells).under(4000));
        // Four slow requests are not enough to judge a bucket by.
        assert_eq!(judged(&slow[..4], &cells).delivered_fraction, None);
        let mut slow_reader = slow.clone();
        slow_reader[0].client_stall_ms = Some(51.0);
        let judgement = judged(&slow_reader, &cells);
        assert!(judgement.slow_reader && !judgement.under(8000));
        // A load the report did not measure as valid is not held to anything, nor a request
        // beyond the allow-list.
        assert!(!judged(&five(request(50, 9, 1.0, 0.0)), &cells).under(8000));
        let mut logprobs = slow.clone();
        logprobs.iter_mut().for_each(|r| r.comparable = false);
        assert!(!judged(&logprobs, &cells).under(8000));
        // Load on the engine around the gateway counts: 1 stream through the gateway, 4 on
        // the engine: held to the 4-stream cell (80), where 78 is plenty.
        let mut around = five(request(50, 1, 78.0, 0.0));
        around.iter_mut().for_each(|r| r.engine_load = Some(4));
        assert!(!judged(&around, &cells).under(9500));
        around.iter_mut().for_each(|r| r.engine_load = None);
        assert!(judged(&around, &cells).under(9500));
    }

    #[test]
    fn a_reshaped_stream_is_judged_by_what_the_gateway_saw() {
        let c = cell(0, 1, 100.0);
        let allowed = verified(&[c]).ttft_allowed_ms(&c, 50);
        let honest = request(50, 1, 100.0, 0.0);
        assert!((delivered(&honest, &c, allowed).unwrap() - 1.0).abs() < 1e-9);
        // The whole answer in one chunk after 2 s: one token is believed (the verification
        // saw a token per chunk), and the TTFT is 2 s against some 100 ms allowed.
        let mut burst = honest.clone();
        (burst.chunks, burst.ttft_ms, burst.last_token_ms) = (Some(1), Some(2000.0), Some(2000.0));
        let fraction = delivered(&burst, &c, allowed).unwrap();
        assert!(fraction < 0.1, "{fraction}");
        // Held back, then sent as two chunks a microsecond apart.
        let mut two = burst.clone();
        (two.chunks, two.last_token_ms) = (Some(2), Some(2000.001));
        assert!(delivered(&two, &c, allowed).unwrap() < 0.1);
        // A fast first token, then the rest held back and sent at once: the pace counts.
        let mut held = honest.clone();
        (held.chunks, held.last_token_ms) = (Some(2), Some(3000.0));
        let fraction = delivered(&held, &c, allowed).unwrap();
        assert!(fraction < 0.05, "one token over 3 s: {fraction}");
        // Usage claimed eight times over what streamed: only the chunks count.
        let mut inflated = honest.clone();
        inflated.engine_output_tokens = Some(800);
        inflated.chunks = Some(100);
        inflated.last_token_ms = Some(30.0 + 99.0 / 12.5 * 1000.0);
        let fraction = delivered(&inflated, &c, allowed).unwrap();
        assert!((fraction - 0.125).abs() < 0.01, "{fraction}");
        // A short answer entirely within the TTFT allowed meets the guarantee.
        let mut quick = honest.clone();
        (quick.chunks, quick.ttft_ms, quick.last_token_ms) = (Some(1), Some(20.0), Some(20.0));
        assert_eq!(delivered(&quick, &c, allowed), Some(1.0));
        // The engine failing is nothing delivered; the client leaving is not judged.
        let mut failed = honest.clone();
        failed.outcome = Outcome::EngineError;
        assert_eq!(delivered(&failed, &c, allowed), Some(0.0));
        failed.outcome = Outcome::Other;
        assert_eq!(delivered(&failed, &c, allowed), None);
    }

    #[test]
    fn a_bucket_earns_its_share_of_the_price() {
        let t = |s: i64| DateTime::from_timestamp(1_900_000_200 + s, 0).unwrap();
        let five = Duration::seconds(300);
        // An hour for 6000: a whole bucket is 500, one cut by the booking's start its part.
        assert_eq!(bucket_share(6000, (t(0), t(3600)), t(300), five), 500);
        assert_eq!(bucket_share(6000, (t(60), t(3660)), t(0), five), 400);
        assert_eq!(bucket_share(6000, (t(0), t(3600)), t(3600), five), 0);
        assert_eq!(bucket_of(t(301), five), t(300));
    }
}
