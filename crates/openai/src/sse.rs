//! Server-Sent Events, decoded incrementally as bytes arrive so every event keeps the time
//! its bytes came in, and encoded as engines send them. Accepts what the SSE standard allows
//! and vLLM sends: `data:` lines, comment lines (`: ping`), LF, CRLF or lone CR line ends,
//! events split anywhere across network reads, and the `[DONE]` sentinel.
//!
//! A line, or an event's data, longer than the decoder's limit ends the stream with
//! [`SseEvent::TooLong`]: nothing an engine sends makes the buffer grow without bound.

/// The default longest line (and event): vLLM's chunks are a few hundred bytes.
pub const DEFAULT_LIMIT: usize = 256 << 10;

/// One complete event's `data` (multiple `data:` lines joined with `\n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseEvent {
    Data(String),
    /// `data: [DONE]`: the stream is over.
    Done,
    /// A line or an event went past the limit; nothing more is decoded.
    TooLong {
        limit: usize,
    },
}

/// One complete event, borrowed from the decoder until it is fed again: what a caller that
/// only reads the event (the harness, per token) takes without an allocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventRef<'a> {
    Data(&'a str),
    Done,
    TooLong { limit: usize },
}

impl EventRef<'_> {
    pub fn to_owned(self) -> SseEvent {
        match self {
            Self::Data(data) => SseEvent::Data(data.to_owned()),
            Self::Done => SseEvent::Done,
            Self::TooLong { limit } => SseEvent::TooLong { limit },
        }
    }
}

#[derive(Debug)]
pub struct SseDecoder {
    buffer: Vec<u8>,
    /// How much of `buffer` is known to hold no line end: a line trickling in a byte at a
    /// time is scanned once, not once per byte.
    scanned: usize,
    /// The current event's data, its allocation kept from event to event.
    data: String,
    /// Whether the current event has a `data` field (an empty one counts).
    has_data: bool,
    /// The current event's `event:` field (our own verification events are named; engines'
    /// completion chunks are not).
    name: Option<String>,
    limit: usize,
    failed: bool,
    /// Bytes of the stream taken out of `buffer` (whole lines) so far.
    consumed: u64,
    /// A CR ended the last line: an LF right after it belongs to that line end.
    after_cr: bool,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::with_limit(DEFAULT_LIMIT)
    }
}

/// Encodes one event whose data is `data` (one line: JSON has no raw newline).
pub fn encode(data: &str) -> String {
    format!("data: {data}\n\n")
}

/// The event that ends a completion stream.
pub const DONE: &[u8] = b"data: [DONE]\n\n";

/// What one line does to the event being read.
enum Line {
    /// Nothing to hand out yet.
    Continue,
    /// A blank line: the event (if it has data) is complete.
    Dispatch,
    /// The event's data went past the limit.
    TooLong,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder that refuses lines and events longer than `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        Self {
            buffer: Vec::new(),
            scanned: 0,
            data: String::new(),
            has_data: false,
            name: None,
            limit,
            failed: false,
            consumed: 0,
            after_cr: false,
        }
    }

    /// Feeds bytes; returns the events they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        self.feed_each(bytes, |event, _, _| events.push(event.to_owned()));
        events
    }

    /// Feeds bytes; hands each event they complete to `on_event` with the stream offset just
    /// past its end (the blank line included), so a caller can pass the raw bytes on.
    pub fn feed_with(&mut self, bytes: &[u8], mut on_event: impl FnMut(SseEvent, u64)) {
        self.feed_each(bytes, |event, _, offset| on_event(event.to_owned(), offset));
    }

    /// Feeds bytes; returns the events they complete with their `event:` names (`None` for an
    /// unnamed event, SSE's `message`).
    pub fn feed_events(&mut self, bytes: &[u8]) -> Vec<(Option<String>, SseEvent)> {
        let mut events = Vec::new();
        self.feed_each(bytes, |event, name, _| {
            events.push((name.map(str::to_owned), event.to_owned()));
        });
        events
    }

    /// Feeds bytes; hands each event they complete to `on_event`, borrowed, with its name
    /// and the stream offset just past its end. Allocates nothing once the decoder's buffers
    /// have grown to the stream's event size.
    pub fn feed_each(
        &mut self,
        bytes: &[u8],
        mut on_event: impl FnMut(EventRef<'_>, Option<&str>, u64),
    ) {
        if self.failed {
            return;
        }
        self.buffer.extend_from_slice(bytes);
        let mut start = 0;
        if self.after_cr && self.buffer.first() == Some(&b'\n') {
            start = 1;
        }
        self.after_cr = false;
        loop {
            let from = self.scanned.max(start);
            let Some(end) = memchr::memchr2(b'\n', b'\r', &self.buffer[from..]).map(|at| at + from)
            else {
                if self.buffer.len() - start > self.limit {
                    return self.fail(&mut on_event);
                }
                self.scanned = self.buffer.len();
                break;
            };
            if end - start > self.limit {
                return self.fail(&mut on_event);
            }
            // A CR as the buffer's last byte may be the first half of a CRLF: the line ends
            // here either way, and an LF that comes next is skipped.
            let mut next = end + 1;
            if self.buffer[end] == b'\r' {
                match self.buffer.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            let line = &self.buffer[start..end];
            start = next;
            self.scanned = start;
            match take_line(
                line,
                (&mut self.data, &mut self.has_data, &mut self.name),
                self.limit,
            ) {
                Line::Continue => {}
                Line::TooLong => return self.fail(&mut on_event),
                Line::Dispatch => {
                    let offset = self.consumed + start as u64;
                    if let Some(event) = self.dispatched() {
                        on_event(event, self.name.as_deref(), offset);
                    }
                    self.clear_event();
                }
            }
        }
        self.buffer.drain(..start);
        self.consumed += start as u64;
        self.scanned -= start;
    }

    /// Ends the stream: an event whose blank line never came (or a last line without an
    /// end) is handed out as if it had ended.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if self.failed {
            return None;
        }
        let rest = std::mem::take(&mut self.buffer);
        self.consumed += rest.len() as u64;
        self.scanned = 0;
        if !rest.is_empty() {
            let line = take_line(
                &rest,
                (&mut self.data, &mut self.has_data, &mut self.name),
                self.limit,
            );
            if matches!(line, Line::TooLong) {
                return None;
            }
        }
        let event = self.dispatched().map(EventRef::to_owned);
        self.clear_event();
        event
    }

    /// Bytes of the stream read into whole lines so far.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// The event read so far, as a complete event; `None` without data.
    fn dispatched(&self) -> Option<EventRef<'_>> {
        self.has_data.then(|| {
            if self.data == "[DONE]" {
                EventRef::Done
            } else {
                EventRef::Data(&self.data)
            }
        })
    }

    fn clear_event(&mut self) {
        self.data.clear();
        self.has_data = false;
        self.name = None;
    }

    fn fail(&mut self, on_event: &mut impl FnMut(EventRef<'_>, Option<&str>, u64)) {
        self.failed = true;
        self.buffer = Vec::new();
        self.data = String::new();
        self.has_data = false;
        self.name = None;
        on_event(EventRef::TooLong { limit: self.limit }, None, self.consumed);
    }
}

/// Takes one line (without its end) into the event being read.
fn take_line(
    line: &[u8],
    (data, has_data, name): (&mut String, &mut bool, &mut Option<String>),
    limit: usize,
) -> Line {
    if line.is_empty() {
        return Line::Dispatch;
    }
    if line[0] == b':' {
        return Line::Continue; // a comment (keep-alive)
    }
    let (field, value) = match memchr::memchr(b':', line) {
        Some(at) => {
            let value = &line[at + 1..];
            (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
        }
        None => (line, &b""[..]),
    };
    // `id` and `retry` carry nothing this needs.
    match field {
        b"event" => *name = Some(String::from_utf8_lossy(value).into_owned()),
        b"data" => {
            // Valid UTF-8 (every engine's JSON) is checked by the fast path and borrowed;
            // only invalid bytes take the slow, replacing one.
            let value = std::str::from_utf8(value)
                .map(std::borrow::Cow::Borrowed)
                .unwrap_or_else(|_| String::from_utf8_lossy(value));
            if data.len() + value.len() > limit {
                return Line::TooLong;
            }
            if *has_data {
                data.push('\n');
            }
            data.push_str(&value);
            *has_data = true;
        }
        _ => {}
    }
    Line::Continue
}

#[cfg(test)]
mod tests {
    #[test]
    fn named_events_keep_their_names_across_reads() {
        let mut decoder = super::SseDecoder::new();
        let first = decoder.feed_events(
            b": keep-alive\n\nid: 1\nevent: run_queued\ndata: {\"a\":1}\n\nevent: run_fin",
        );
        assert_eq!(
            first,
            [(
                Some("run_queued".to_owned()),
                super::SseEvent::Data("{\"a\":1}".into())
            )]
        );
        let rest = decoder.feed_events(b"ished\r\ndata: {}\r\n\r\ndata: x\n\n");
        assert_eq!(
            rest,
            [
                (
                    Some("run_finished".to_owned()),
                    super::SseEvent::Data("{}".into())
                ),
                (None, super::SseEvent::Data("x".into())),
            ]
        );
    }

    use super::*;

    #[test]
    fn events_split_anywhere_decode_the_same() {
        let text = b": ping\r\ndata: {\"a\":1}\r\n\r\ndata: line1\ndata: line2\n\ndata: x\r\rdata: [DONE]\n\n";
        let whole = SseDecoder::new().feed(text);
        assert_eq!(
            whole,
            vec![
                SseEvent::Data("{\"a\":1}".into()),
                SseEvent::Data("line1\nline2".into()),
                SseEvent::Data("x".into()),
                SseEvent::Done
            ]
        );
        for split in 1..text.len() {
            let mut decoder = SseDecoder::new();
            let mut events = decoder.feed(&text[..split]);
            events.extend(decoder.feed(&text[split..]));
            assert_eq!(events, whole, "split at {split}");
        }
        // A byte at a time.
        let mut decoder = SseDecoder::new();
        let events: Vec<SseEvent> = text.iter().flat_map(|b| decoder.feed(&[*b])).collect();
        assert_eq!(events, whole);
    }

    #[test]
    fn each_event_says_where_it_ends() {
        let text = b"data: a\r\n\r\ndata: b\n\ndata: c\r\r";
        let mut ends = Vec::new();
        let mut decoder = SseDecoder::new();
        for piece in text.chunks(3) {
            decoder.feed_with(piece, |event, end| ends.push((event, end)));
        }
        let a = b"data: a\r\n\r\n".len() as u64;
        let b = a + b"data: b\n\n".len() as u64;
        assert_eq!(
            ends,
            vec![
                (SseEvent::Data("a".into()), a),
                (SseEvent::Data("b".into()), b),
                (SseEvent::Data("c".into()), text.len() as u64),
            ]
        );
    }

    #[test]
    fn an_unended_last_event_is_handed_out_at_the_end() {
        let mut decoder = SseDecoder::new();
        assert!(decoder.feed(b"data: {\"a\"\ndata: :1}").is_empty());
        assert_eq!(decoder.finish(), Some(SseEvent::Data("{\"a\"\n:1}".into())));
        assert_eq!(decoder.finish(), None);
    }

    #[test]
    fn a_line_without_end_stops_at_the_limit() {
        let mut decoder = SseDecoder::with_limit(64);
        assert_eq!(decoder.feed(b"data: {\"a\":1}\n\n").len(), 1);
        let mut events = Vec::new();
        for _ in 0..100 {
            events.extend(decoder.feed(&[b'x'; 16]));
        }
        assert_eq!(events, vec![SseEvent::TooLong { limit: 64 }]);
        assert!(decoder.buffer.capacity() < 1024, "the buffer was released");
        assert!(
            decoder.data.capacity() < 1024,
            "the event's data was released"
        );
        // Many short data lines that never end the event are bounded too.
        let mut decoder = SseDecoder::with_limit(64);
        let mut events = Vec::new();
        for _ in 0..100 {
            events.extend(decoder.feed(b"data: 0123456789\n"));
        }
        assert_eq!(events, vec![SseEvent::TooLong { limit: 64 }]);
    }
}
