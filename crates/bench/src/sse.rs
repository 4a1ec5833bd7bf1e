//! Server-Sent Events, decoded incrementally as bytes arrive so every event keeps the time
//! its bytes came in. Accepts what vLLM sends: `data:` lines, comment lines (`: ping`),
//! CRLF or LF line ends, events split across network reads, and the `[DONE]` sentinel.

//!
//! A line, or an event's data, longer than the decoder's limit ends the stream with
//! [`SseEvent::TooLong`]: nothing an engine sends makes the buffer grow without bound.

use crate::bounds;

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

#[derive(Debug)]
pub struct SseDecoder {
    buffer: Vec<u8>,
    /// How much of `buffer` is known to hold no newline: a line trickling in a byte at a
    /// time is scanned once, not once per byte.
    scanned: usize,
    data: Option<String>,
    limit: usize,
    failed: bool,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::with_limit(bounds::SSE_LINE)
    }
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
            data: None,
            limit,
            failed: false,
        }
    }

    /// Feeds bytes; returns the events they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        if self.failed {
            return Vec::new();
        }
        self.buffer.extend_from_slice(bytes);
        let mut events = Vec::new();
        loop {
            let Some(end) = self.buffer[self.scanned..]
                .iter()
                .position(|&b| b == b'\n')
                .map(|at| at + self.scanned)
            else {
                if self.buffer.len() > self.limit {
                    return self.fail(events);
                }
                self.scanned = self.buffer.len();
                break;
            };
            self.scanned = 0;
            if end > self.limit {
                return self.fail(events);
            }
            let mut line: Vec<u8> = self.buffer.drain(..=end).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                if let Some(data) = self.data.take() {
                    events.push(if data == "[DONE]" {
                        SseEvent::Done
                    } else {
                        SseEvent::Data(data)
                    });
                }
                continue;
            }
            if line.starts_with(':') {
                continue; // a comment (keep-alive)
            }
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line.as_ref(), ""),
            };
            if field == "data" {
                if self.data.as_ref().map_or(0, String::len) + value.len() > self.limit {
                    return self.fail(events);
                }
                match &mut self.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => self.data = Some(value.to_owned()),
                }
            }
            // `event`, `id` and `retry` carry nothing this harness needs.
        }
        events
    }

    fn fail(&mut self, mut events: Vec<SseEvent>) -> Vec<SseEvent> {
        self.failed = true;
        self.buffer = Vec::new();
        self.data = None;
        events.push(SseEvent::TooLong { limit: self.limit });
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_anywhere_decode_the_same() {
        let text = b": ping\r\ndata: {\"a\":1}\r\n\r\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n";
        let whole = SseDecoder::new().feed(text);
        assert_eq!(
            whole,
            vec![
                SseEvent::Data("{\"a\":1}".into()),
                SseEvent::Data("line1\nline2".into()),
                SseEvent::Done
            ]
        );
        for split in 1..text.len() {
            let mut decoder = SseDecoder::new();
            let mut events = decoder.feed(&text[..split]);
            events.extend(decoder.feed(&text[split..]));
            assert_eq!(events, whole, "split at {split}");
        }
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
        // Many short data lines that never end the event are bounded too.
        let mut decoder = SseDecoder::with_limit(64);
        let mut events = Vec::new();
        for _ in 0..100 {
            events.extend(decoder.feed(b"data: 0123456789\n"));
        }
        assert_eq!(events, vec![SseEvent::TooLong { limit: 64 }]);
    }
}
