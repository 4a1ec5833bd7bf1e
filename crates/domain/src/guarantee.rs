//! The rules of a performance-backed booking: which verified cell a request served through
//! the gateway is held to, what share of that cell it delivered, and a usage bucket's
//! judgement (the median share of its judged requests). Pure: `app` gathers the requests and
//! the report's cells and pays the credits.

use chrono::{DateTime, Duration, DurationRound, Utc};

/// How a request served through the gateway ended, as judging reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The engine finished the answer (a stream: with its `[DONE]`).
    Completed,
    /// The engine failed it — a 5xx answer, a broken connection, a stream it ended before
    /// `[DONE]`, or a chunk the gateway could not read: nothing delivered.
    EngineError,
    /// The engine refused it (a 4xx answer): the renter's request, never judged, counted.
    Rejected,
    /// Anything else (the client left, the platform ended the stream, the gateway
    /// refused): not judged.
    Other,
}

/// What the gateway recorded of one request, as judging reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServedRequest {
    pub outcome: Outcome,
    /// Whether the request asked nothing that slows decoding (see the gateway's allow-list),
    /// for the listing's model, within each value's documented range.
    pub comparable: bool,
    pub prompt_tokens: i64,
    /// Tokens the gateway counted, and the engine's own usage when it reported one.
    pub output_tokens: i64,
    pub engine_output_tokens: Option<i64>,
    /// Text-bearing chunks the client received.
    pub chunks: Option<i64>,
    /// UTF-8 bytes of text (`text`, `delta.content`, reasoning) the client received: a token
    /// is at least a byte.
    pub text_bytes: Option<i64>,
    /// The `max_tokens` the engine was sent.
    pub max_tokens: Option<i64>,
    /// From the request's start: its first token and its last.
    pub ttft_ms: Option<f64>,
    pub last_token_ms: Option<f64>,
    /// Streams the gateway had open to the machine during the request: its own count, never
    /// the engine's (which the provider controls).
    pub concurrency: i32,
    /// The longest a write to the client stayed blocked.
    pub client_stall_ms: Option<f64>,
}

impl ServedRequest {
    /// The output tokens the renter received, as far as the gateway can tell: the smallest
    /// of the engine's usage (else the gateway's count), the text-bearing chunks × the tokens
    /// per chunk the verification saw, the bytes of text forwarded, and `max_tokens`. Every
    /// bound the gateway lacks (rows recorded before it kept one) is left out.
    pub fn tokens_received(&self, tokens_per_chunk: f64) -> f64 {
        let claimed = self
            .engine_output_tokens
            .unwrap_or(self.output_tokens)
            .max(0) as f64;
        let bounds = [
            self.chunks.map(|n| n.max(0) as f64 * tokens_per_chunk),
            self.text_bytes.map(|n| n.max(0) as f64),
            self.max_tokens.map(|n| n.max(0) as f64),
        ];
        bounds.into_iter().flatten().fold(claimed, f64::min)
    }
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
/// More than this share of a bucket's judged-eligible requests refused by the engine (4xx)
/// is evidence the machine is down: the listing's next spot check is brought forward.
pub const REJECTED_EVIDENCE: f64 = 0.2;
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
    /// At `context`, the measured cell at the smallest concurrency at or above `concurrency`
    /// (never a lighter load than the request had).
    fn at(&self, context: u64, concurrency: u64) -> Option<VerifiedCell> {
        self.cells
            .iter()
            .filter(|c| c.context == context && c.concurrency >= concurrency.max(1))
            .min_by_key(|c| c.concurrency)
            .copied()
    }

    /// What a request whose prompt and output come to `context` tokens, served while
    /// `concurrency` streams were open, is held to: at the measured contexts just at or below
    /// and just at or above its own (the smallest measured when none is below), each at the
    /// smallest measured concurrency at or above its own, the time per token interpolated
    /// linearly between the two; the TTFT p99 and tokens per chunk of the context below.
    /// `None` above the largest measured context, or when either cell was not measured as
    /// valid at that load.
    pub fn cell_for(&self, context: u64, concurrency: u64) -> Option<VerifiedCell> {
        let contexts = || self.cells.iter().map(|c| c.context);
        let above = contexts().filter(|&c| c >= context).min()?;
        let below = contexts().filter(|&c| c <= context).max().unwrap_or(above);
        let (low, high) = (self.at(below, concurrency)?, self.at(above, concurrency)?);
        if below == above {
            return Some(low);
        }
        let share = (context - below) as f64 / (above - below) as f64;
        let per_token = |c: &VerifiedCell| 1.0 / c.per_request_tok_s;
        let time = per_token(&low) + (per_token(&high) - per_token(&low)) * share;
        Some(VerifiedCell {
            context,
            concurrency: low.concurrency.max(high.concurrency),
            per_request_tok_s: 1.0 / time,
            ..low
        })
    }

    /// The most tokens a chunk carried in any valid cell: what a request's band is chosen
    /// with, before its cell is known.
    pub fn tokens_per_chunk(&self) -> f64 {
        self.cells
            .iter()
            .filter_map(|c| c.tokens_per_chunk)
            .max_by(f64::total_cmp)
            .unwrap_or(TOKENS_PER_CHUNK_UNMEASURED)
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
/// - tokens: what the renter received ([`ServedRequest::tokens_received`]; an engine
///   inflating its usage or splitting its chunks gains nothing past the text it sent);
/// - its per-stream speed, first to last token, over the cell's;
/// - its pace as a whole: the tokens after the first over the time from the TTFT allowed to
///   the last token (an answer held back and sent in one burst is as slow as it was);
/// - its TTFT against the allowed one.
///
/// The smallest of these; 1 when the whole answer came within the TTFT allowed. An answer
/// the engine failed is 0; one the engine refused (4xx), or the client abandoned, or the
/// platform ended, is not judged.
pub fn delivered(
    request: &ServedRequest,
    cell: &VerifiedCell,
    ttft_allowed_ms: Option<f64>,
) -> Option<f64> {
    match request.outcome {
        Outcome::Completed => {}
        Outcome::EngineError => return Some(0.0),
        Outcome::Rejected | Outcome::Other => return None,
    }
    request.chunks.filter(|&n| n > 0)?;
    let (ttft, last) = (request.ttft_ms?, request.last_token_ms?);
    let per_chunk = cell.tokens_per_chunk.unwrap_or(TOKENS_PER_CHUNK_UNMEASURED);
    let tokens = request.tokens_received(per_chunk);
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
    /// Comparable requests the engine refused (4xx): never judged, counted.
    pub rejected: u64,
    /// Comparable requests: those judging would read, refused ones included.
    pub eligible: u64,
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

    /// Whether the engine refused more than [`REJECTED_EVIDENCE`] of the bucket's eligible
    /// requests: not the provider's failure by itself, but evidence that the machine is
    /// down, which brings its spot check forward.
    pub fn rejections_are_evidence(&self) -> bool {
        self.rejected > 0 && self.rejected as f64 > REJECTED_EVIDENCE * self.eligible as f64
    }
}

/// The load a request was served at: the gateway's own count of streams open to the
/// machine.
fn load_of(request: &ServedRequest) -> u64 {
    request.concurrency.max(1) as u64
}

/// Judges one bucket's requests against the report's valid cells: each comparable request
/// at the cell of its prompt and the output it received ([`Verified::cell_for`]).
pub fn judge(requests: &[ServedRequest], verified: &Verified) -> Judgement {
    let mut fractions = Vec::new();
    let mut cells = Vec::new();
    let comparable = || requests.iter().filter(|r| r.comparable);
    let band_tokens_per_chunk = verified.tokens_per_chunk();
    for r in comparable() {
        let prompt = r.prompt_tokens.max(0) as u64;
        let context = prompt.saturating_add(r.tokens_received(band_tokens_per_chunk) as u64);
        let Some(cell) = verified.cell_for(context, load_of(r)) else {
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
        rejected: comparable()
            .filter(|r| r.outcome == Outcome::Rejected)
            .count() as u64,
        eligible: comparable().count() as u64,
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
            text_bytes: Some(tokens * 4),
            max_tokens: Some(200),
            ttft_ms: Some(ttft),
            last_token_ms: Some(ttft + (tokens - 1) as f64 / tok_s * 1000.0),
            concurrency,
            client_stall_ms: Some(stall),
        }
    }

    fn five(r: ServedRequest) -> Vec<ServedRequest> {
        vec![r; MIN_JUDGED]
    }

    /// Judged against `cells` as measured at context 0 and, alike, at 4,096 (so that a
    /// request's prompt and output fall between two measured contexts).
    fn judged(requests: &[ServedRequest], cells: &[VerifiedCell]) -> Judgement {
        let twins = cells.iter().map(|c| VerifiedCell {
            context: 4096,
            ..*c
        });
        judge(
            requests,
            &verified(&cells.iter().copied().chain(twins).collect::<Vec<_>>()),
        )
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
        // 900 tokens of prompt and output at 2 streams: the 4-stream cells, the time per
        // token 900/1024 of the way from context 0's to context 1,024's.
        let between = v.cell_for(900, 2).unwrap();
        let per_token = 1.0 / 80.0 + (1.0 / 70.0 - 1.0 / 80.0) * 900.0 / 1024.0;
        assert!((between.per_request_tok_s - 1.0 / per_token).abs() < 1e-9);
        assert_eq!((between.concurrency, between.ttft_ms_p99), (4, Some(40.0)));
        assert_eq!(v.cell_for(1024, 1), Some(cells[2]));
        assert_eq!(v.cell_for(0, 3), Some(cells[1]));
        // Past the largest measured context: not judged (never held to a shorter context's
        // speed, as a 16,000-token prompt was held to context 0's).
        assert_eq!(v.cell_for(5000, 4), None);
        assert_eq!(v.cell_for(1025, 1), None);
        // More streams than any valid cell measured: no guarantee at that load.
        assert_eq!(v.cell_for(10, 5), None);
        // Shorter than any measured context: held to the shortest measured.
        let only = verified(&[cell(512, 1, 9.0)]);
        assert_eq!(only.cell_for(100, 1), Some(cell(512, 1, 9.0)));
        // One of the two cells missing at that load: not judged.
        let gap = verified(&[cell(0, 1, 100.0), cell(0, 4, 80.0), cell(1024, 1, 90.0)]);
        assert_eq!(gap.cell_for(500, 2), None);
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
        // Held to the gateway's own count: 1 stream, the 1-stream cell (100), where 78 is
        // short of 95 %.
        assert!(judged(&five(request(50, 1, 78.0, 0.0)), &cells).under(9500));
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
        // The engine refusing the renter's request (4xx) is not judged either.
        failed.outcome = Outcome::Rejected;
        assert_eq!(delivered(&failed, &c, allowed), None);
    }

    #[test]
    fn tokens_are_what_the_renter_received() {
        let mut r = request(50, 1, 100.0, 0.0);
        assert_eq!(r.tokens_received(1.0), 100.0);
        // Usage inflated and the text sent a character a chunk: the bytes of text bound it.
        (r.engine_output_tokens, r.chunks, r.text_bytes) = (Some(5000), Some(400), Some(400));
        r.max_tokens = Some(1000);
        assert_eq!(r.tokens_received(1.0), 400.0);
        // ... and the `max_tokens` the engine was sent.
        r.max_tokens = Some(150);
        assert_eq!(r.tokens_received(1.0), 150.0);
        // Chunks × the tokens per chunk the verification saw.
        (r.chunks, r.max_tokens) = (Some(30), Some(1000));
        assert_eq!(r.tokens_received(2.0), 60.0);
        // A row recorded before the gateway kept bytes and max_tokens: those bounds left out.
        (r.text_bytes, r.max_tokens) = (None, None);
        assert_eq!(r.tokens_received(8.0), 240.0);
    }

    #[test]
    fn the_renters_own_errors_are_counted_and_never_judged() {
        let cells = [cell(0, 1, 100.0)];
        let fast = five(request(50, 1, 99.0, 0.0));
        let mut refused = request(50, 1, 99.0, 0.0);
        refused.outcome = Outcome::Rejected;
        let mut with_refusals = fast.clone();
        with_refusals.extend(vec![refused.clone(); 20]);
        let judgement = judged(&with_refusals, &cells);
        assert_eq!(
            judgement,
            Judgement {
                rejected: 20,
                eligible: 25,
                ..judged(&fast, &cells)
            }
        );
        assert!(!judgement.under(9000) && judgement.rejections_are_evidence());
        // Five refusals alone judge nothing.
        assert_eq!(
            judged(&vec![refused.clone(); 5], &cells).delivered_fraction,
            None
        );
        // One in six is not evidence; two in seven is.
        let mut one = fast.clone();
        one.push(refused.clone());
        assert!(!judged(&one, &cells).rejections_are_evidence());
        one.push(refused.clone());
        assert!(judged(&one, &cells).rejections_are_evidence());
        // A refusal of a request judging would not read (another model) is not counted.
        refused.comparable = false;
        let mut other_model = fast.clone();
        other_model.extend(vec![refused; 20]);
        assert_eq!(judged(&other_model, &cells).rejected, 0);
        // The engine failing (5xx, a cut stream) is nothing delivered.
        let mut failing = fast;
        failing
            .iter_mut()
            .for_each(|r| r.outcome = Outcome::EngineError);
        assert_eq!(judged(&failing, &cells).delivered_fraction, Some(0.0));
    }

    #[test]
    fn a_long_request_is_held_to_the_speed_between_its_contexts() {
        // 100 tok/s at context 0, 50 at 4,096: a prompt of 3,996 and 100 tokens out (context
        // 4,096) is held to 50, so 60 tok/s meets a 100 % guarantee; at context 150 (held
        // to about 98) it does not.
        let cells = [cell(0, 1, 100.0), cell(4096, 1, 50.0)];
        let v = verified(&cells);
        let mut long = five(request(3996, 1, 60.0, 0.0));
        long.iter_mut().for_each(|r| r.ttft_ms = Some(20.0));
        let long_judged = judge(
            &long,
            &Verified {
                prefill: vec![(4096, 1e6)],
                ..v.clone()
            },
        );
        assert_eq!(long_judged.verified_tok_s, Some(50.0));
        assert!(!long_judged.under(10_000), "{long_judged:?}");
        let short = judge(&five(request(50, 1, 60.0, 0.0)), &v);
        assert!(short.under(8000), "{short:?}");
        // Past 4,096: not judged.
        let past = judge(&five(request(4000, 1, 1.0, 0.0)), &v);
        assert_eq!((past.judged, past.delivered_fraction), (0, None));
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
