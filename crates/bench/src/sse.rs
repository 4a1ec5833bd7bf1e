//! Server-Sent Events, decoded incrementally as bytes arrive so every event keeps the time
//! its bytes came in. Accepts what vLLM sends: `data:` lines, comment lines (`: ping`),
//! CRLF or LF line ends, events split across network reads, and the `[DONE]` sentinel.

/// One complete event's `data` (multiple `data:` lines joined with `\n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseEvent {
    Data(String),
    /// `data: [DONE]`: the stream is over.
    Done,
}

#[derive(Debug, Default)]
pub struct SseDecoder {
    buffer: Vec<u8>,
    data: Option<String>,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns the events they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buffer.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
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
}
