//! The metered gateway: one OpenAI-compatible endpoint per booking,
//! `/v1/gateway/{booking_id}/v1/…`, open to the booking's renter (their token or key, or the
//! booking's access token) only while the booking is confirmed or active and inside its
//! interval. Requests go to the listing's engine through the outbound rules (with the
//! engine's key, never the renter's credential); answers come back unchanged, streams as they
//! arrive. Each request is metered — prompt and output tokens from the engine's usage (asked
//! for on streams, and stripped again when the client did not ask), capped by `max_tokens`,
//! and what the client received when it went away — with the gateway's own view of the
//! delivery: time to first token, per-stream speed, streams open at once.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use serde_json::Value;
use store::{GatewayRequestRecord, booking_status};
use uuid::Uuid;

use crate::guarantees::{by_bucket, judge, verified_cells};
use crate::{App, AppError, Caller};

/// Longest SSE event the gateway holds while looking for its end (an engine that never ends
/// one is cut off).
pub const MAX_EVENT_BYTES: usize = 1024 * 1024;
/// Most requests one usage answer reads.
const USAGE_ROWS: u64 = 100_000;

/// Who is calling the gateway.
#[derive(Debug, Clone, Copy)]
pub enum GatewayCredential<'a> {
    /// A person's token or key: must be the booking's renter.
    Caller(Caller),
    /// The booking's access token (`gmb_…`).
    AccessToken(&'a str),
}

/// Where a booking's requests go, and their limits.
#[derive(Debug, Clone)]
pub struct GatewayTarget {
    pub booking_id: Uuid,
    pub listing_id: Uuid,
    pub engine_base_url: String,
    pub engine_api_key: Option<String>,
    /// Streams the booking may have open at once: its share of the machine.
    pub max_streams: usize,
    /// The largest `max_tokens` a request may ask for (and what it gets when it asks none).
    pub max_tokens: u64,
    pub allow_private: bool,
    /// When the booking ends: no answer outlives it.
    pub ends_at: DateTime<Utc>,
}

/// The streams open to one machine (listing): each one's peak, the most streams open to the
/// machine at once while it was.
type MachineStreams = Arc<Mutex<HashMap<Uuid, Vec<Arc<AtomicUsize>>>>>;

/// Streams open now, per booking and per machine; and, per verified report, the streams its
/// machine runs at once (a report never changes, so it is read once); and the bookings' gate
/// facts as last read.
#[derive(Debug, Default)]
pub(crate) struct GatewaySlots {
    open: Arc<Mutex<HashMap<Uuid, usize>>>,
    machines: MachineStreams,
    streams_of_report: Mutex<HashMap<Uuid, usize>>,
    /// Bookings' gate facts as last read, by booking.
    gates: Mutex<HashMap<Uuid, (Instant, Arc<Gate>)>>,
}

/// What the gateway checks a request against: the booking (its renter, status and interval)
/// and its listing (the engine and the machine's size).
#[derive(Debug)]
struct Gate {
    booking: store::BookingRecord,
    listing: store::ListingRecord,
}

/// How long the gateway trusts a booking's facts as last read: a request within it costs no
/// database round trip before the engine hears of it. A booking cancelled through this
/// process is forgotten at once; one cancelled through another replica, or a listing given a
/// new engine, is seen within this long.
const GATE_TTL: std::time::Duration = std::time::Duration::from_secs(1);

/// Most bookings whose facts are kept.
const GATES_REMEMBERED: usize = 10_000;

/// Most reports whose machine streams are remembered.
const REPORTS_REMEMBERED: usize = 10_000;

/// One open stream of a booking; given back when dropped.
#[derive(Debug)]
pub struct GatewaySlot {
    slots: Arc<Mutex<HashMap<Uuid, usize>>>,
    machines: MachineStreams,
    booking: Uuid,
    listing: Uuid,
    peak: Arc<AtomicUsize>,
}

impl GatewaySlot {
    /// The most streams the gateway had open to the machine (any booking's, this one
    /// included) at any moment since this one opened: the load it was served at.
    pub fn load(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }
}

impl Drop for GatewaySlot {
    fn drop(&mut self) {
        let mut open = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.booking) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.booking);
            }
        }
        drop(open);
        let mut machines = self.machines.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(streams) = machines.get_mut(&self.listing) {
            streams.retain(|peak| !Arc::ptr_eq(peak, &self.peak));
            if streams.is_empty() {
                machines.remove(&self.listing);
            }
        }
    }
}

/// What a request was metered at.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metered {
    pub prompt_tokens: u64,
    pub output_tokens: u64,
    /// What the engine's usage claimed, before any cap.
    pub engine_output_tokens: Option<u64>,
    pub ttft_ms: Option<f64>,
    pub per_stream_tok_s: Option<f64>,
    /// `completed`, `client_disconnected`, `engine_error` or `booking_ended`.
    pub outcome: &'static str,
    /// The longest the gateway's writes to the client stayed blocked (streams).
    pub client_stall_ms: Option<f64>,
    /// Asked nothing that slows decoding: comparable with the benchmark.
    pub comparable: bool,
}

/// Reads a streamed answer as it passes: counts the tokens the client receives, keeps the
/// engine's usage, times the first and last token, and — when the gateway asked for usage the
/// client did not — holds each event until it is whole and drops the usage-only one, so the
/// client gets exactly the bytes the engine would have sent it.
#[derive(Debug)]
pub struct StreamMeter {
    strip_usage: bool,
    /// Bytes of the event being read (and, when stripping, not yet forwarded).
    pending: Vec<u8>,
    /// How far `pending` has been looked through for an event's end.
    scanned: usize,
    pub content_chunks: u64,
    /// The engine's latest usage: (prompt, completion).
    pub usage: Option<(u64, u64)>,
    pub first_token: Option<Instant>,
    pub last_token: Option<Instant>,
    /// The longest the client took to take a chunk handed to it (its writes blocked).
    pub longest_stall: std::time::Duration,
}

/// What one SSE event is to the meter: whether it carries a token, the usage it reports,
/// and whether it is nothing but usage. The event's `data:` lines are joined (SSE allows an
/// event's data over several lines); other fields and comments are ignored.
fn read_event(event: &[u8]) -> (bool, Option<(u64, u64)>, bool) {
    let mut data: Vec<u8> = Vec::new();
    for line in event.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(value) = line.strip_prefix(b"data:") {
            if !data.is_empty() {
                data.push(b'\n');
            }
            data.extend_from_slice(value.strip_prefix(b" ").unwrap_or(value));
        }
    }
    let Ok(value) = serde_json::from_slice::<Value>(&data) else {
        return (false, None, false);
    };
    let usage = value.get("usage").filter(|u| u.is_object()).map(|u| {
        (
            u["prompt_tokens"].as_u64().unwrap_or(0),
            u["completion_tokens"].as_u64().unwrap_or(0),
        )
    });
    let choices = value["choices"].as_array();
    let content = choices.is_some_and(|choices| {
        choices.iter().any(|c| {
            let non_empty = |v: &Value| v.as_str().is_some_and(|s| !s.is_empty());
            non_empty(&c["text"])
                || non_empty(&c["delta"]["content"])
                || non_empty(&c["delta"]["reasoning_content"])
                || c["delta"]["tool_calls"].is_array()
        })
    });
    let usage_only = usage.is_some() && choices.is_some_and(Vec::is_empty);
    (content, usage, usage_only)
}

/// Most tokens one streamed chunk is taken to carry: an engine's usage above this many per
/// chunk the client received is not believed.
pub const TOKENS_PER_CHUNK_MAX: u64 = 8;

impl StreamMeter {
    pub fn new(strip_usage: bool) -> Self {
        Self {
            strip_usage,
            pending: Vec::new(),
            scanned: 0,
            content_chunks: 0,
            usage: None,
            first_token: None,
            last_token: None,
            longest_stall: std::time::Duration::ZERO,
        }
    }

    /// The client took `waited` to take the last chunk handed to it.
    pub fn stalled(&mut self, waited: std::time::Duration) {
        self.longest_stall = self.longest_stall.max(waited);
    }

    /// Takes bytes from the engine; returns the bytes to send the client now, or an error
    /// when an event grows past [`MAX_EVENT_BYTES`].
    pub fn feed(&mut self, bytes: &[u8], now: Instant) -> Result<Vec<u8>, &'static str> {
        let mut forward = if self.strip_usage {
            Vec::with_capacity(bytes.len())
        } else {
            bytes.to_vec()
        };
        self.pending.extend_from_slice(bytes);
        let mut start = 0;
        // An event ends at a blank line: LF LF, or CR LF CR LF. Bytes already looked at are
        // not looked at again (an engine sending a byte at a time costs linear time).
        while let Some((end, separator)) = event_end(&self.pending, start, self.scanned) {
            self.account(start, end, now, &mut forward, separator);
            start = end + separator;
            self.scanned = start;
        }
        self.pending.drain(..start);
        self.scanned = self.pending.len().saturating_sub(3);
        if self.pending.len() > MAX_EVENT_BYTES {
            return Err("the engine sent an event longer than 1 MiB");
        }
        Ok(forward)
    }

    /// Meters the event `pending[start..end]` and, when stripping, forwards it unless it is
    /// the usage the gateway asked for.
    fn account(
        &mut self,
        start: usize,
        end: usize,
        now: Instant,
        forward: &mut Vec<u8>,
        separator: usize,
    ) {
        let (content, usage, usage_only) = read_event(&self.pending[start..end]);
        if content {
            self.content_chunks += 1;
            self.first_token.get_or_insert(now);
            self.last_token = Some(now);
        }
        if usage.is_some() {
            self.usage = usage;
        }
        if self.strip_usage && !usage_only {
            forward.extend_from_slice(&self.pending[start..end + separator]);
        }
    }

    /// Whatever is left when the engine's stream ends: an unterminated last event, metered
    /// like the others (and, when stripping, forwarded unless it is the added usage).
    pub fn finish(&mut self) -> Vec<u8> {
        let mut forward = Vec::new();
        if !self.pending.is_empty() {
            let end = self.pending.len();
            self.account(0, end, Instant::now(), &mut forward, 0);
        }
        self.pending.clear();
        self.scanned = 0;
        forward
    }

    /// The request as metered: the engine's usage, believed up to [`TOKENS_PER_CHUNK_MAX`]
    /// per token chunk the client received and within the request's [`Caps`]; without a
    /// usage (the client went away first, or the engine sent none), the tokens the client
    /// received.
    pub fn metered(&self, caps: Caps, sent: Instant, outcome: &'static str) -> Metered {
        let received = self.content_chunks;
        let output = self.usage.map_or(received, |(_, claimed)| {
            claimed.min(received.saturating_mul(TOKENS_PER_CHUNK_MAX))
        });
        let per_stream = |output_tokens: u64| match (self.first_token, self.last_token) {
            (Some(first), Some(last)) if output_tokens > 1 && last > first => {
                Some((output_tokens - 1) as f64 / (last - first).as_secs_f64())
            }
            _ => None,
        };
        let mut metered = caps.meter(self.usage, output, outcome);
        metered.per_stream_tok_s = per_stream(metered.output_tokens);
        metered.ttft_ms = self
            .first_token
            .map(|first| (first - sent).as_secs_f64() * 1000.0);
        metered.client_stall_ms = Some(self.longest_stall.as_secs_f64() * 1000.0);
        metered
    }
}

/// What a request's metering may not exceed: its `max_tokens`, and as many prompt tokens
/// as its body has bytes (an engine claiming more is not believed).
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    pub max_tokens: u64,
    pub max_prompt_tokens: u64,
}

impl Caps {
    /// Metering from the engine's `usage` (prompt, completion) and the `output` tokens
    /// believed, within the caps.
    pub fn meter(self, usage: Option<(u64, u64)>, output: u64, outcome: &'static str) -> Metered {
        Metered {
            prompt_tokens: usage.map_or(0, |(prompt, _)| prompt.min(self.max_prompt_tokens)),
            output_tokens: output.min(self.max_tokens),
            engine_output_tokens: usage.map(|(_, completion)| completion),
            ttft_ms: None,
            per_stream_tok_s: None,
            outcome,
            client_stall_ms: None,
            comparable: true,
        }
    }

    /// A whole (not streamed) answer: its usage, the completion believed up to the answer's
    /// length in bytes.
    pub fn meter_answer(self, answer: &[u8], outcome: &'static str) -> Metered {
        let usage = usage_of_body(answer);
        let output = usage.map_or(0, |(_, claimed)| claimed.min(answer.len() as u64));
        self.meter(usage, output, outcome)
    }
}

/// Where the first event ending at or after `from` (looking only from `scanned` on, less
/// three bytes of a separator split across reads) ends: its end and the separator's length.
fn event_end(buffer: &[u8], from: usize, scanned: usize) -> Option<(usize, usize)> {
    let look = from.max(scanned.saturating_sub(3));
    let mut i = look;
    while i + 1 < buffer.len() {
        if buffer[i] == b'\n' && buffer[i + 1] == b'\n' {
            return Some((i, 2));
        }
        if i + 3 < buffer.len() && &buffer[i..i + 4] == b"\r\n\r\n" {
            return Some((i, 4));
        }
        i += 1;
    }
    None
}

/// Usage of a non-streamed answer: (prompt, completion).
pub fn usage_of_body(body: &[u8]) -> Option<(u64, u64)> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let usage = value.get("usage")?;
    Some((
        usage["prompt_tokens"].as_u64()?,
        usage["completion_tokens"].as_u64()?,
    ))
}

/// A booking's usage: totals and five-minute buckets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage {
    pub requests: u64,
    pub prompt_tokens: u64,
    pub output_tokens: u64,
    pub buckets: Vec<UsageBucket>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct UsageBucket {
    pub start: DateTime<Utc>,
    pub requests: u64,
    pub prompt_tokens: u64,
    pub output_tokens: u64,
    pub ttft_ms_p50: Option<f64>,
    pub per_stream_tok_s_p50: Option<f64>,
    pub concurrency_max: u64,
    /// The verified per-stream tok/s the bucket's requests are held to (median of their
    /// cells), when the report measured their load as valid.
    pub verified_tok_s: Option<f64>,
    /// Median delivered per-stream speed over the verified one.
    pub delivered_fraction: Option<f64>,
    /// The longest a write to the client stayed blocked.
    pub client_stall_ms_max: Option<f64>,
    /// The client read too slowly for the bucket to be judged against the machine.
    pub slow_reader: bool,
    /// The credit the bucket earned under the booking's guarantee (once judged).
    pub credit_minor: i64,
}

impl App {
    /// The engine a booking's gateway sends to, for a caller allowed to use it now: the
    /// booking's renter (by token or key, or the booking's access token), while the booking
    /// is confirmed or active and inside its interval.
    pub async fn gateway_target(
        &self,
        booking: Uuid,
        credential: GatewayCredential<'_>,
    ) -> Result<GatewayTarget, AppError> {
        let gate = self.gate(booking).await?;
        let (record, listing) = (&gate.booking, &gate.listing);
        match credential {
            GatewayCredential::Caller(caller) => {
                if caller.user_id.as_uuid() != record.renter_id {
                    // Someone else's booking: as if it did not exist.
                    return Err(AppError::NotFound("booking"));
                }
            }
            GatewayCredential::AccessToken(token) => {
                if self.access_token_booking(token) != Some(booking) {
                    return Err(AppError::InvalidToken(
                        "the access token is not this booking's",
                    ));
                }
            }
        }
        let now = Utc::now();
        if !matches!(
            record.status.as_str(),
            booking_status::CONFIRMED | booking_status::ACTIVE
        ) {
            return Err(AppError::BookingNotActive(record.status.clone()));
        }
        if now < record.starts_at || record.ends_at <= now {
            return Err(AppError::BookingNotActive(
                "outside its interval".to_owned(),
            ));
        }
        let machine_streams = self.machine_streams(listing.latest_report_id).await?;
        let share =
            machine_streams * record.gpu_count.max(0) as usize / listing.gpu_count.max(1) as usize;
        Ok(GatewayTarget {
            booking_id: booking,
            listing_id: record.listing_id,
            engine_base_url: listing.engine_base_url.clone(),
            engine_api_key: listing.engine_api_key.clone(),
            max_streams: share.max(1),
            max_tokens: self.config().gateway_max_tokens,
            allow_private: self.config().engine_allow_private,
            ends_at: record.ends_at,
        })
    }

    /// The booking's gate facts: as read within [`GATE_TTL`], else read afresh (the booking
    /// and its listing at once). `NotFound` when there is no such booking.
    async fn gate(&self, booking: Uuid) -> Result<Arc<Gate>, AppError> {
        let gates = &self.inner.gateway_slots.gates;
        if let Some((at, gate)) = gates
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&booking)
            && at.elapsed() < GATE_TTL
        {
            return Ok(Arc::clone(gate));
        }
        let read_at = Instant::now();
        let (record, listing) = tokio::try_join!(
            self.db().booking_by_id(booking),
            self.db().listing_of_booking(booking)
        )?;
        let gate = Arc::new(Gate {
            booking: record.ok_or(AppError::NotFound("booking"))?,
            listing: listing.ok_or(AppError::NotFound("listing"))?,
        });
        let mut gates = gates.lock().unwrap_or_else(PoisonError::into_inner);
        if gates.len() >= GATES_REMEMBERED {
            gates.retain(|_, (at, _)| at.elapsed() < GATE_TTL);
        }
        if gates.len() < GATES_REMEMBERED {
            gates.insert(booking, (read_at, Arc::clone(&gate)));
        }
        Ok(gate)
    }

    /// Forgets what the gateway read of a booking (it was cancelled), so that its next
    /// request reads it afresh.
    pub(crate) fn forget_gate(&self, booking: Uuid) {
        self.inner
            .gateway_slots
            .gates
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&booking);
    }

    /// Requests the whole machine runs at once: the most streams its verified report
    /// measured as valid (what `max_num_seqs` let run); 1 without a report.
    async fn machine_streams(&self, report: Option<Uuid>) -> Result<usize, AppError> {
        let Some(report) = report else {
            return Ok(1);
        };
        let remembered = &self.inner.gateway_slots.streams_of_report;
        if let Some(&streams) = remembered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&report)
        {
            return Ok(streams);
        }
        let streams = self
            .db()
            .cells_of_report(report)
            .await?
            .iter()
            .filter(|c| c.phase == "decode" && c.status == "valid")
            .map(|c| c.concurrency.max(1) as usize)
            .max()
            .unwrap_or(1);
        let mut remembered = remembered.lock().unwrap_or_else(PoisonError::into_inner);
        if remembered.len() >= REPORTS_REMEMBERED {
            remembered.clear();
        }
        remembered.insert(report, streams);
        Ok(streams)
    }

    /// A stream slot of the booking, or 429 when its share is taken.
    pub fn gateway_slot(&self, target: &GatewayTarget) -> Result<GatewaySlot, AppError> {
        let slots = Arc::clone(&self.inner.gateway_slots.open);
        {
            let mut open = slots.lock().unwrap_or_else(PoisonError::into_inner);
            let n = open.entry(target.booking_id).or_insert(0);
            if *n >= target.max_streams {
                return Err(AppError::RateLimited {
                    what: format!(
                        "the booking's share of the machine is {} stream(s) at once",
                        target.max_streams
                    ),
                    retry_after_secs: 1,
                });
            }
            *n += 1;
        }
        let machines = Arc::clone(&self.inner.gateway_slots.machines);
        let peak = Arc::new(AtomicUsize::new(0));
        {
            let mut open = machines.lock().unwrap_or_else(PoisonError::into_inner);
            let streams = open.entry(target.listing_id).or_default();
            streams.push(Arc::clone(&peak));
            let now_open = streams.len();
            for stream in streams.iter() {
                stream.fetch_max(now_open, Ordering::Relaxed);
            }
        }
        Ok(GatewaySlot {
            slots,
            machines,
            booking: target.booking_id,
            listing: target.listing_id,
            peak,
        })
    }

    /// Records a metered request.
    pub async fn record_gateway_request(
        &self,
        booking: Uuid,
        endpoint: &str,
        started_at: DateTime<Utc>,
        concurrency: usize,
        metered: &Metered,
    ) -> Result<(), AppError> {
        let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        self.db()
            .insert_gateway_request(GatewayRequestRecord {
                id: Uuid::now_v7(),
                booking_id: booking,
                endpoint: endpoint.to_owned(),
                started_at,
                finished_at: Utc::now(),
                prompt_tokens: as_i64(metered.prompt_tokens),
                output_tokens: as_i64(metered.output_tokens),
                engine_output_tokens: metered.engine_output_tokens.map(as_i64),
                ttft_ms: metered.ttft_ms,
                per_stream_tok_s: metered.per_stream_tok_s,
                concurrency: i32::try_from(concurrency).unwrap_or(i32::MAX),
                outcome: metered.outcome.to_owned(),
                client_stall_ms: metered.client_stall_ms,
                comparable: metered.comparable,
            })
            .await?;
        Ok(())
    }

    /// A booking's usage, for its renter and the provider's members: totals, and per bucket
    /// (`gateway_bucket_secs`; a request counts in the bucket it finished in) the requests, tokens, median TTFT and per-stream speed, the
    /// most streams open at once, and the delivery against the verified report (the
    /// guarantee's, else the listing's latest) with the credit the bucket earned.
    pub async fn booking_usage(&self, caller: Caller, booking: Uuid) -> Result<Usage, AppError> {
        let record = self.booking_record(caller, booking).await?;
        let bucket = self.bucket();
        let rows = self
            .db()
            .gateway_requests_of(booking, record.starts_at - Duration::days(1), USAGE_ROWS)
            .await?;
        let guarantee = self.db().guarantee_of(booking).await?;
        let report = match &guarantee {
            Some(g) => Some(g.report_id),
            None => {
                self.listing_record(record.listing_id)
                    .await?
                    .latest_report_id
            }
        };
        let cells = match report {
            Some(report) => verified_cells(&self.db().cells_of_report(report).await?),
            None => Vec::new(),
        };
        let credits = self.db().credits_of(booking).await?;
        let mut usage = Usage::default();
        for (start, requests) in by_bucket(&rows, bucket) {
            let as_u64 = |n: i64| n.max(0) as u64;
            let prompt_tokens = requests.iter().map(|r| as_u64(r.prompt_tokens)).sum();
            let output_tokens = requests.iter().map(|r| as_u64(r.output_tokens)).sum();
            let ttfts: Vec<f64> = requests.iter().filter_map(|r| r.ttft_ms).collect();
            let speeds: Vec<f64> = requests.iter().filter_map(|r| r.per_stream_tok_s).collect();
            let judgement = judge(&requests, &cells);
            usage.requests += requests.len() as u64;
            usage.prompt_tokens = usage.prompt_tokens.saturating_add(prompt_tokens);
            usage.output_tokens = usage.output_tokens.saturating_add(output_tokens);
            usage.buckets.push(UsageBucket {
                start,
                requests: requests.len() as u64,
                prompt_tokens,
                output_tokens,
                ttft_ms_p50: bench::stats::median(&ttfts),
                per_stream_tok_s_p50: bench::stats::median(&speeds),
                concurrency_max: requests
                    .iter()
                    .map(|r| r.concurrency.max(0) as u64)
                    .max()
                    .unwrap_or(0),
                verified_tok_s: judgement.verified_tok_s,
                delivered_fraction: judgement.delivered_fraction,
                client_stall_ms_max: judgement.client_stall_ms_max,
                slow_reader: judgement.slow_reader,
                credit_minor: credits
                    .iter()
                    .find(|c| c.bucket_start == start)
                    .map_or(0, |c| c.amount),
            });
        }
        Ok(usage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &[u8] = b"data: {\"choices\":[{\"index\":0,\"text\":\"te\"}]}\n\n\
data: {\"choices\":[{\"index\":0,\"text\":\"ha\",\"finish_reason\":\"length\"}]}\n\n\
data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"total_tokens\":11,\"completion_tokens\":2}}\n\n\
data: [DONE]\n\n";

    #[test]
    fn a_stream_passes_unchanged_and_is_metered_by_its_usage() {
        let mut meter = StreamMeter::new(false);
        let t0 = Instant::now();
        let mut out = Vec::new();
        // Split anywhere: the client gets every byte as it comes.
        for (i, piece) in STREAM.chunks(7).enumerate() {
            let forwarded = meter
                .feed(piece, t0 + std::time::Duration::from_millis(i as u64))
                .unwrap();
            assert_eq!(forwarded, piece);
            out.extend(forwarded);
        }
        out.extend(meter.finish());
        assert_eq!(out, STREAM);
        let caps = |max_tokens| Caps {
            max_tokens,
            max_prompt_tokens: 1000,
        };
        let metered = meter.metered(caps(100), t0, "completed");
        assert_eq!((metered.prompt_tokens, metered.output_tokens), (9, 2));
        assert_eq!(meter.content_chunks, 2);
        // An engine that claims more than the request allowed is capped.
        assert_eq!(meter.metered(caps(1), t0, "completed").output_tokens, 1);
        // Nor is a claim beyond what it streamed believed, nor a prompt beyond the body.
        meter.usage = Some((5000, 90));
        let metered = meter.metered(caps(100), t0, "completed");
        assert_eq!(metered.output_tokens, 2 * TOKENS_PER_CHUNK_MAX);
        assert_eq!(metered.prompt_tokens, 1000);
    }

    #[test]
    fn usage_the_client_did_not_ask_for_is_stripped_and_nothing_else() {
        let mut meter = StreamMeter::new(true);
        let mut out = Vec::new();
        for piece in STREAM.chunks(5) {
            out.extend(meter.feed(piece, Instant::now()).unwrap());
        }
        out.extend(meter.finish());
        let without: Vec<u8> = String::from_utf8_lossy(STREAM)
            .split_inclusive("\n\n")
            .filter(|e| !e.contains("\"usage\""))
            .collect::<String>()
            .into_bytes();
        assert_eq!(out, without);
        assert_eq!(meter.usage, Some((9, 2)));
    }

    #[test]
    fn crlf_events_multi_line_data_and_an_unterminated_last_event_are_read() {
        let crlf = String::from_utf8_lossy(STREAM).replace("\n", "\r\n");
        let mut meter = StreamMeter::new(true);
        let mut out = Vec::new();
        for piece in crlf.as_bytes().chunks(3) {
            out.extend(meter.feed(piece, Instant::now()).unwrap());
        }
        out.extend(meter.finish());
        assert_eq!(meter.usage, Some((9, 2)));
        assert_eq!(meter.content_chunks, 2);
        assert!(!String::from_utf8_lossy(&out).contains("usage"));
        // One data line split in two, and a last event with no blank line after it.
        let mut meter = StreamMeter::new(true);
        let split = b"data: {\"choices\":\ndata: [{\"text\":\"x\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}";
        let out = meter.feed(split, Instant::now()).unwrap();
        assert_eq!(meter.content_chunks, 1);
        assert!(
            meter.finish().is_empty(),
            "the added usage is dropped even unterminated"
        );
        assert_eq!(meter.usage, Some((1, 1)));
        assert!(!out.is_empty());
    }

    #[test]
    fn a_client_gone_early_is_metered_for_what_it_received_and_endless_events_stop() {
        let mut meter = StreamMeter::new(false);
        let first_event = &STREAM[..STREAM.iter().position(|&b| b == b'\n').unwrap() + 2];
        meter.feed(first_event, Instant::now()).unwrap();
        let caps = Caps {
            max_tokens: 100,
            max_prompt_tokens: 100,
        };
        let metered = meter.metered(caps, Instant::now(), "client_disconnected");
        assert_eq!(
            (metered.output_tokens, metered.engine_output_tokens),
            (1, None)
        );
        let mut endless = StreamMeter::new(true);
        let big = vec![b'x'; MAX_EVENT_BYTES + 1];
        assert!(endless.feed(&big, Instant::now()).is_err());
    }
}
