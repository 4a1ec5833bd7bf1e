//! Bounds on everything an engine sends. An engine is whatever a provider points us at, so
//! every byte read from it is limited in size before it is parsed, and every string kept from
//! it is cut to a length and cleaned of control characters before it can reach a report.

/// The most of an answer to `/v1/models` that is read.
pub const MODELS_BODY: usize = 1 << 20;
/// The most of `/version` and of a one-token completion that is read.
pub const SMALL_BODY: usize = 64 << 10;
/// The most of `/tokenize` that is read: vLLM lists every token id, about 7 bytes each, and
/// prompts reach 128K tokens (1 MB); eight times that is still bounded.
pub const TOKENIZE_BODY: usize = 8 << 20;
/// The most of `/metrics` that is read (vLLM's is tens of kilobytes).
pub const METRICS_BODY: usize = 8 << 20;
/// The most of an error answer that is read; its message is then clipped to [`MESSAGE`].
pub const ERROR_BODY: usize = 16 << 10;
/// The longest line (and event) of a completion stream. vLLM's chunks are a few hundred bytes.
pub const SSE_LINE: usize = openai::sse::DEFAULT_LIMIT;
/// The most token ids kept of a `/tokenize` answer translated for the gateway (a 1M-token
/// context's worth; the body itself is bounded by [`TOKENIZE_BODY`]).
pub const TOKEN_IDS: usize = 1 << 20;
/// The most `/metrics` samples kept from one scrape.
pub const METRIC_SAMPLES: usize = 50_000;

/// Characters kept of an engine's version string.
pub const VERSION: usize = 64;
/// Characters kept of a model id.
pub const MODEL_ID: usize = 256;
/// Characters kept of one cache-config label value, and how many labels are kept.
pub const LABEL_VALUE: usize = 128;
pub const LABELS: usize = 64;
/// Characters kept of an engine's error message.
pub const MESSAGE: usize = 300;

/// What marks a string that was cut.
pub const CUT_MARKER: &str = "…[truncated]";

/// `text` with control characters replaced by spaces and cut to `max` characters (the
/// marker then ends it).
pub fn clip(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max * 4));
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push_str(CUT_MARKER);
            break;
        }
        out.push(if c.is_control() { ' ' } else { c });
    }
    out
}

/// A body longer than its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the answer is larger than {limit} bytes")]
pub struct TooLarge {
    pub limit: usize,
}

/// Reads a response body up to `limit` bytes.
pub async fn read_body(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Result<Vec<u8>, TooLarge>, reqwest::Error> {
    if response.content_length().is_some_and(|n| n > limit as u64) {
        return Ok(Err(TooLarge { limit }));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > limit {
            return Ok(Err(TooLarge { limit }));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Ok(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_cuts_and_cleans() {
        assert_eq!(clip("0.32.0", VERSION), "0.32.0");
        assert_eq!(clip("a\nb\u{7}c", 10), "a b c");
        let long = "x".repeat(100);
        let cut = clip(&long, 10);
        assert_eq!(cut, format!("{}{CUT_MARKER}", "x".repeat(10)));
        assert_eq!(clip("ééé", 2), format!("éé{CUT_MARKER}"));
    }
}
