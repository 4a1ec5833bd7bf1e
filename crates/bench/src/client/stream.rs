//! The streams a cell measures: one request each, read chunk by chunk, each chunk's arrival
//! time and tokens recorded, under the limits that keep an engine from flooding the client.

use std::time::{Duration, Instant};

use openai::{Chunk, EventRef, SseDecoder};
use outbound::Policy;
use secrecy::{ExposeSecret, SecretString};

use super::{Halt, client, describe, error_of};
use crate::bounds::{self, clip};
use crate::engine::Chunks;

/// One slot's connection for streamed completions.
#[derive(Debug, Clone)]
pub struct StreamClient {
    pub(super) url: String,
    pub(super) http: reqwest::Client,
    pub(super) api_key: Option<SecretString>,
    pub(super) policy: Policy,
    pub(super) halt: Halt,
    /// The engine sends one chunk per token, text or not ([`crate::engine::Rules`]).
    pub(super) chunks: Chunks,
}

/// The bounds of one streamed request.
#[derive(Debug, Clone, Copy)]
pub struct StreamLimits {
    /// The request's `max_tokens`: a stream claiming more is lying.
    pub max_tokens: u64,
    /// The longest wait for the answer, and then for each read.
    pub idle: Duration,
    /// The longest the whole request may take (`None`: until stopped).
    pub total: Option<Duration>,
}

/// Whether a request failed the way a stale keep-alive connection fails: the server had
/// closed the pooled connection, so the connection ended before any response byte (hyper's
/// "connection closed before message completed", or a reset on writing). The request never
/// reached the server's application; it is safe to send again on a fresh connection.
fn stale_connection(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(hyper) = cause.downcast_ref::<hyper::Error>()
            && (hyper.is_incomplete_message() || hyper.is_canceled())
        {
            return true;
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
            )
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// A streamed request's timeline.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// When the request was handed to the connection (the retry's, when it was retried).
    pub sent: Option<Instant>,
    /// The first attempt met a stale keep-alive connection and was sent again on a fresh one.
    pub retried: bool,
    /// Each token-bearing chunk: when its bytes arrived and how many tokens it carried.
    pub chunks: Vec<(Instant, u64)>,
    /// `usage.prompt_tokens` as the server reported it.
    pub prompt_tokens: Option<u64>,
    /// Whether token-bearing chunks carried `usage` (continuous usage stats).
    pub saw_usage: bool,
    /// A final usage without running usage before it (llama.cpp's last chunk): the tokens it
    /// states, and how many it added to those counted one per content chunk.
    pub final_usage: Option<FinalUsage>,
    /// The server ended the stream with `[DONE]`.
    pub completed: bool,
    /// When the last byte arrived.
    pub ended: Option<Instant>,
    pub error: Option<String>,
}

/// A stream's final usage, when no chunk before it carried one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FinalUsage {
    pub completion_tokens: u64,
    /// The tokens it added to the chunks' count (it never takes any away).
    pub added: u64,
}

impl Timeline {
    pub fn first_token(&self) -> Option<Instant> {
        self.chunks.first().map(|(at, _)| *at)
    }
}

/// What a streaming call tells its caller as it goes.
pub trait ChunkSink {
    /// A token-bearing chunk arrived.
    fn tokens(&mut self, at: Instant, count: u64);
}

impl ChunkSink for () {
    fn tokens(&mut self, _: Instant, _: u64) {}
}

/// Counts the tokens one parsed chunk carries. `counted` is the stream's running total.
///
/// With continuous usage stats every chunk says how many tokens were generated so far, so a
/// chunk carrying several tokens counts them all. Without them, each chunk with text counts
/// one — or, from an engine that sends one chunk per token (`chunks`, [`Chunks`]), each chunk
/// with a choice, whose text may be empty (a token that renders as nothing), but the one that
/// only ends the answer (llama.cpp's); the final usage then only corrects a shortfall.
///
/// What the engine claims is checked, not trusted: a count beyond `max_tokens`, a count that
/// goes backwards, or a final usage that disagrees with the counts the stream carried is an
/// error (the request, and so its cell, is then invalid).
pub(super) fn chunk_tokens(
    chunk: &Chunk<'_>,
    counted: &mut u64,
    max_tokens: u64,
    timeline: &mut Timeline,
    chunks: Chunks,
) -> Result<u64, String> {
    let has_choices = chunk.has_choices();
    let by_chunk = u64::from(match chunks {
        Chunks::Text => chunk.has_text(),
        Chunks::PerToken => chunk.has_unfinished_choice(),
        Chunks::PerTokenToTheEnd => chunk.has_answer_choice(),
    });
    let mut tokens = None;
    if let Some(usage) = chunk.usage {
        if let Some(prompt) = usage.prompt_tokens {
            timeline.prompt_tokens = Some(prompt);
        }
        if let Some(completion) = usage.completion_tokens {
            if completion < *counted && (has_choices || timeline.saw_usage) {
                return Err(format!(
                    "the server's usage went backwards, from {} to {completion} tokens",
                    *counted
                ));
            }
            if !has_choices && timeline.saw_usage && completion != *counted {
                return Err(format!(
                    "the final usage says {completion} tokens, the stream's usage said {}",
                    *counted
                ));
            }
            // Running usage is usage on a chunk that carries text: a last chunk with only a
            // finish reason (llama.cpp's) carries a final usage, and so does TGI's last chunk,
            // the last token with the finish reason. (vLLM's and SGLang's may end the answer
            // in a chunk of text with running usage: a short answer's only chunk.)
            if chunk.has_text()
                && (chunks != Chunks::PerTokenToTheEnd || chunk.has_unfinished_choice())
            {
                timeline.saw_usage = true;
            }
            let added = completion.saturating_sub(*counted);
            if !timeline.saw_usage {
                // What the usage adds beyond this chunk's own token (TGI's last chunk has one).
                timeline.final_usage = Some(FinalUsage {
                    completion_tokens: completion,
                    added: added.saturating_sub(by_chunk),
                });
            }
            tokens = Some(added);
        }
    }
    let tokens = tokens.unwrap_or(by_chunk);
    if *counted + tokens > max_tokens {
        return Err(format!(
            "the server claimed {} tokens for a request of max_tokens {max_tokens}",
            *counted + tokens
        ));
    }
    *counted += tokens;
    Ok(tokens)
}

impl StreamClient {
    /// Sends `body` (a JSON completion request with `stream: true`) and reads the stream to
    /// its end, or until `stop` resolves or the run is stopped, or until no byte arrives
    /// for `limits.idle`, or `limits.total` has passed.
    pub async fn stream(
        &self,
        body: &[u8],
        limits: StreamLimits,
        sink: &mut impl ChunkSink,
        stop: impl std::future::Future<Output = ()>,
    ) -> Timeline {
        let mut timeline = Timeline::default();
        let deadline = limits
            .total
            .map(|total| tokio::time::Instant::now() + total);
        let overdue = async move {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(stop);
        tokio::pin!(overdue);
        let idle_timeout = limits.idle;
        let mut fresh = None;
        let mut response = loop {
            let http = fresh.as_ref().unwrap_or(&self.http);
            timeline.sent = Some(Instant::now());
            let request = http
                .post(&self.url)
                .header("content-type", "application/json")
                .body(body.to_vec())
                .send();
            let response = tokio::select! {
                response = tokio::time::timeout(idle_timeout, request) => response,
                () = &mut stop => return timeline,
                () = self.halt.wait() => return timeline,
                () = &mut overdue => {
                    timeline.error = Some(format!("no answer within {:?}", limits.total.unwrap_or_default()));
                    return timeline;
                }
            };
            match response {
                Ok(Ok(response)) => break response,
                // Once, on a connection of its own.
                Ok(Err(e)) if fresh.is_none() && stale_connection(&e) => {
                    match client(
                        self.policy,
                        None,
                        self.api_key.as_ref().map(ExposeSecret::expose_secret),
                    ) {
                        Ok(http) => {
                            timeline.retried = true;
                            fresh = Some(http);
                        }
                        Err(_) => {
                            timeline.error = Some(format!("request failed: {}", describe(&e)));
                            return timeline;
                        }
                    }
                }
                Ok(Err(e)) => {
                    timeline.error = Some(format!("request failed: {}", describe(&e)));
                    return timeline;
                }
                Err(_) => {
                    timeline.error = Some(format!("no response within {idle_timeout:?}"));
                    return timeline;
                }
            }
        };
        let status = response.status();
        if !status.is_success() {
            let answer = tokio::select! {
                message = tokio::time::timeout(idle_timeout, error_of(response)) => message.ok(),
                () = self.halt.wait() => None,
            };
            timeline.error =
                Some(answer.unwrap_or_else(|| format!("HTTP {status} without a readable body")));
            return timeline;
        }
        let mut decoder = SseDecoder::new();
        let mut counted = 0;
        // One future each for the run's halt and the idle limit, for the whole stream: per
        // chunk, no waiter is registered and no timer is set. The idle timer is looked at
        // only when it fires, and then set again from the last byte's arrival.
        let halted = self.halt.wait();
        tokio::pin!(halted);
        let idle = tokio::time::sleep(idle_timeout);
        tokio::pin!(idle);
        let mut last_byte = tokio::time::Instant::now();
        loop {
            let read = tokio::select! {
                read = response.chunk() => read,
                () = &mut stop => return timeline,
                () = &mut halted => return timeline,
                () = &mut overdue => {
                    timeline.error = Some(format!(
                        "the stream did not end within {:?}",
                        limits.total.unwrap_or_default()
                    ));
                    return timeline;
                }
                () = &mut idle => {
                    if last_byte.elapsed() >= idle_timeout {
                        timeline.error = Some(format!("no bytes for {idle_timeout:?}"));
                        return timeline;
                    }
                    idle.as_mut().reset(last_byte + idle_timeout);
                    continue;
                }
            };
            // The arrival time, taken before any parsing.
            let at = Instant::now();
            last_byte = tokio::time::Instant::from_std(at);
            let bytes = match read {
                Ok(Some(bytes)) => bytes,
                Ok(None) => {
                    timeline.ended = Some(at);
                    if !timeline.completed {
                        timeline.error = Some("the stream ended without [DONE]".to_owned());
                    }
                    return timeline;
                }
                Err(e) => {
                    timeline.error = Some(format!("reading the stream: {}", describe(&e)));
                    return timeline;
                }
            };
            timeline.ended = Some(at);
            let mut failed = None;
            decoder.feed_each(&bytes, |event, _, _| {
                if failed.is_some() {
                    return;
                }
                failed = take_event(
                    event,
                    at,
                    (&mut counted, limits.max_tokens, self.chunks),
                    &mut timeline,
                    sink,
                );
            });
            if let Some(error) = failed {
                timeline.error = Some(error);
                return timeline;
            }
        }
    }
}

/// Takes one event of a stream that arrived at `at` into its timeline: `[DONE]`, or a chunk
/// whose tokens are counted (and told to `sink`). `Some` error ends the stream.
fn take_event(
    event: EventRef<'_>,
    at: Instant,
    (counted, max_tokens, chunks): (&mut u64, u64, Chunks),
    timeline: &mut Timeline,
    sink: &mut impl ChunkSink,
) -> Option<String> {
    let data = match event {
        EventRef::Done => {
            timeline.completed = true;
            return None;
        }
        EventRef::TooLong { limit } => {
            return Some(format!(
                "a stream line or event is longer than {limit} bytes"
            ));
        }
        EventRef::Data(data) => data,
    };
    let Ok(chunk) = Chunk::parse(data) else {
        return Some(format!("a chunk is not JSON: {}", clip(data, 80)));
    };
    if let Some(message) = chunk.error_message() {
        return Some(format!(
            "the server failed mid-stream: {}",
            clip(message, bounds::MESSAGE)
        ));
    }
    match chunk_tokens(&chunk, counted, max_tokens, timeline, chunks) {
        Ok(0) => None,
        Ok(tokens) => {
            timeline.chunks.push((at, tokens));
            sink.tokens(at, tokens);
            None
        }
        Err(dishonest) => Some(dishonest),
    }
}
