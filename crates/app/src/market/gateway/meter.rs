//! The stream meter: reads an engine's answer as it passes to the client, through the one
//! SSE decoder (`openai`). It counts the text-bearing chunks the client receives and their
//! bytes of text, keeps the engine's usage, times the first and last token, notes whether
//! the engine ended with `[DONE]` and whether every chunk could be read, and — when the
//! gateway asked for usage the client did not — holds each event until it is whole and drops
//! the usage-only one, so the client gets exactly the bytes the engine would have sent it.

use std::time::{Duration, Instant};

use openai::{Chunk, SseDecoder, SseEvent};

use super::Caps;

/// Longest SSE event the gateway holds while looking for its end (an engine that never ends
/// one is cut off).
pub const MAX_EVENT_BYTES: usize = 1024 * 1024;

/// Most tokens one streamed chunk is believed to carry when metering for money: an engine's
/// usage above this many per chunk the client received is not believed.
pub const TOKENS_PER_CHUNK_MAX: u64 = 8;

/// What a request was metered at.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metered {
    pub prompt_tokens: u64,
    pub output_tokens: u64,
    /// What the engine's usage claimed, before any cap.
    pub engine_output_tokens: Option<u64>,
    /// Text-bearing chunks the client received (streams).
    pub chunks: Option<u64>,
    /// Bytes of text the client received (streams).
    pub text_bytes: Option<u64>,
    /// The `max_tokens` the engine was sent.
    pub max_tokens: Option<u64>,
    pub ttft_ms: Option<f64>,
    /// From the request's sending to its last token (streams).
    pub last_token_ms: Option<f64>,
    pub per_stream_tok_s: Option<f64>,
    /// `completed`, `rejected` (the engine answered 4xx), `engine_error`,
    /// `client_disconnected`, `booking_ended` or `maintenance_window` (cut at a window's
    /// start).
    pub outcome: &'static str,
    /// The longest the gateway's writes to the client stayed blocked (streams).
    pub client_stall_ms: Option<f64>,
    /// Asked for nothing beyond what the benchmark measured, of the listing's model, and
    /// streamed: judged.
    pub judged: bool,
}

#[derive(Debug)]
pub struct StreamMeter {
    decoder: SseDecoder,
    strip_usage: bool,
    /// Bytes of events not yet whole, when stripping (else forwarded at once).
    pending: Vec<u8>,
    /// The stream offset of `pending`'s first byte.
    pending_from: u64,
    /// Whether the engine's event grew past [`MAX_EVENT_BYTES`].
    too_long: bool,
    /// Chunks carrying text (`Chunk::text_len`), and their bytes of text.
    pub content_chunks: u64,
    pub text_bytes: u64,
    /// A data event that is not a chunk the gateway can read (not JSON, or a field it reads
    /// of the wrong type), or an error the engine reported mid-stream.
    pub unreadable: bool,
    /// The engine ended its stream with `[DONE]`.
    pub done: bool,
    /// The engine's latest usage: (prompt, completion).
    pub usage: Option<(u64, u64)>,
    pub first_token: Option<Instant>,
    pub last_token: Option<Instant>,
    /// The longest the client took to take a chunk handed to it (its writes blocked).
    pub longest_stall: Duration,
}

impl StreamMeter {
    pub fn new(strip_usage: bool) -> Self {
        Self {
            decoder: SseDecoder::with_limit(MAX_EVENT_BYTES),
            strip_usage,
            pending: Vec::new(),
            pending_from: 0,
            too_long: false,
            content_chunks: 0,
            text_bytes: 0,
            unreadable: false,
            done: false,
            usage: None,
            first_token: None,
            last_token: None,
            longest_stall: Duration::ZERO,
        }
    }

    /// The client took `waited` to take the last chunk handed to it.
    pub fn stalled(&mut self, waited: Duration) {
        self.longest_stall = self.longest_stall.max(waited);
    }

    /// Takes bytes from the engine; returns the bytes to send the client now, or an error
    /// when an event grows past [`MAX_EVENT_BYTES`].
    pub fn feed(&mut self, bytes: &[u8], now: Instant) -> Result<Vec<u8>, &'static str> {
        let mut forward = if self.strip_usage {
            self.pending.extend_from_slice(bytes);
            Vec::with_capacity(bytes.len())
        } else {
            bytes.to_vec()
        };
        let mut ends = Vec::new();
        self.decoder
            .feed_with(bytes, |event, end| ends.push((event, end)));
        for (event, end) in ends {
            self.event(&event, end, now, &mut forward);
        }
        if self.too_long {
            return Err("the engine sent an event longer than 1 MiB");
        }
        Ok(forward)
    }

    /// Whatever is left when the engine's stream ends: an unterminated last event, metered
    /// like the others (and, when stripping, forwarded unless it is the added usage).
    pub fn finish(&mut self) -> Vec<u8> {
        let mut forward = Vec::new();
        if let Some(event) = self.decoder.finish() {
            let end = self.decoder.consumed();
            self.event(&event, end, Instant::now(), &mut forward);
        }
        if self.strip_usage {
            forward.append(&mut self.pending);
        }
        forward
    }

    /// Meters one whole event ending at stream offset `end` and, when stripping, forwards
    /// its bytes unless it is the usage the gateway asked for.
    fn event(&mut self, event: &SseEvent, end: u64, now: Instant, forward: &mut Vec<u8>) {
        let mut usage_only = false;
        match event {
            SseEvent::Data(data) => match Chunk::parse(data) {
                Ok(chunk) => {
                    let text = chunk.text_len() as u64;
                    if text > 0 {
                        self.content_chunks += 1;
                        self.text_bytes = self.text_bytes.saturating_add(text);
                        self.first_token.get_or_insert(now);
                        self.last_token = Some(now);
                    }
                    if let Some(usage) = chunk.usage {
                        self.usage = Some((
                            usage.prompt_tokens.unwrap_or(0),
                            usage.completion_tokens.unwrap_or(0),
                        ));
                    }
                    if chunk.error_message().is_some() {
                        self.unreadable = true;
                    }
                    usage_only = chunk.is_usage_only();
                }
                Err(_) => self.unreadable = true,
            },
            SseEvent::Done => self.done = true,
            SseEvent::TooLong { .. } => self.too_long = true,
        }
        if self.strip_usage {
            let len = usize::try_from(end.saturating_sub(self.pending_from))
                .unwrap_or(usize::MAX)
                .min(self.pending.len());
            let bytes = self.pending.drain(..len);
            if !usage_only {
                forward.extend(bytes);
            }
            self.pending_from = end;
        }
    }

    /// How a stream the engine ended reads: `completed` when it ended with `[DONE]` and
    /// every chunk could be read, else `engine_error` (nothing delivered).
    pub fn ended(&self) -> &'static str {
        if self.done && !self.unreadable {
            "completed"
        } else {
            "engine_error"
        }
    }

    /// The request as metered: the engine's usage, believed up to [`TOKENS_PER_CHUNK_MAX`]
    /// per text chunk the client received, its bytes of text, and within the request's
    /// [`Caps`]; without a usage (the client went away first, or the engine sent none), the
    /// text chunks the client received.
    pub fn metered(&self, caps: Caps, sent: Instant, outcome: &'static str) -> Metered {
        let received = self.content_chunks;
        let output = self.usage.map_or(received, |(_, claimed)| {
            claimed
                .min(received.saturating_mul(TOKENS_PER_CHUNK_MAX))
                .min(self.text_bytes)
        });
        let mut metered = caps.meter(self.usage, output, outcome);
        metered.per_stream_tok_s = match (self.first_token, self.last_token) {
            (Some(first), Some(last)) if metered.output_tokens > 1 && last > first => {
                Some((metered.output_tokens - 1) as f64 / (last - first).as_secs_f64())
            }
            _ => None,
        };
        let since_sent = |at: Instant| (at - sent).as_secs_f64() * 1000.0;
        metered.ttft_ms = self.first_token.map(since_sent);
        metered.last_token_ms = self.last_token.map(since_sent);
        metered.chunks = Some(received);
        metered.text_bytes = Some(self.text_bytes);
        metered.client_stall_ms = Some(self.longest_stall.as_secs_f64() * 1000.0);
        metered
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
        // Nor is a claim beyond what it streamed believed (its 4 bytes of text, under 8
        // tokens a chunk), nor a prompt beyond the body.
        meter.usage = Some((5000, 90));
        let metered = meter.metered(caps(100), t0, "completed");
        assert_eq!((metered.output_tokens, metered.text_bytes), (4, Some(4)));
        assert_eq!(metered.prompt_tokens, 1000);
        assert_eq!(meter.ended(), "completed");
    }

    #[test]
    fn a_stream_ends_well_only_with_done_and_every_chunk_readable() {
        let read = |stream: &[u8]| {
            let mut meter = StreamMeter::new(false);
            meter.feed(stream, Instant::now()).unwrap();
            meter.finish();
            meter
        };
        // Cut before `[DONE]`.
        let cut = &STREAM[..STREAM.len() - b"data: [DONE]\n\n".len()];
        assert_eq!(read(cut).ended(), "engine_error");
        // A field the gateway reads of the wrong type; an error reported mid-stream.
        for bad in [
            "data: {\"choices\":[],\"usage\":\"x\"}\n\n",
            "data: not json\n\n",
            "data: {\"error\":{\"message\":\"boom\"}}\n\n",
        ] {
            let stream = [&STREAM[..40], bad.as_bytes(), &STREAM[40..]].concat();
            assert_eq!(read(&stream).ended(), "engine_error", "{bad}");
        }
        // Unknown fields, empty deltas and tool calls without text are read, counting
        // nothing.
        let quiet = [
            b"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"new\":1}]}\n\n".as_slice(),
            b"data: {\"choices\":[{\"delta\":{\"tool_calls\":[]}}]}\n\n",
            STREAM,
        ]
        .concat();
        let meter = read(&quiet);
        assert_eq!(meter.ended(), "completed");
        assert_eq!((meter.content_chunks, meter.text_bytes), (2, 4));
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
        for line_end in ["\r\n", "\r"] {
            let text = String::from_utf8_lossy(STREAM).replace("\n", line_end);
            let mut meter = StreamMeter::new(true);
            let mut out = Vec::new();
            for piece in text.as_bytes().chunks(3) {
                out.extend(meter.feed(piece, Instant::now()).unwrap());
            }
            out.extend(meter.finish());
            assert_eq!(meter.usage, Some((9, 2)), "{line_end:?}");
            assert_eq!(meter.content_chunks, 2);
            let out = String::from_utf8_lossy(&out);
            assert!(!out.contains("usage") && out.contains("[DONE]"), "{out:?}");
        }
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
