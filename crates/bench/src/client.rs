//! The OpenAI-compatible client: the engine's control endpoints (`/v1/models`, `/version`,
//! `/tokenize`, `/metrics`) and streamed completions timed as their bytes arrive.
//!
//! Every stream gets its own HTTP client, hence its own connection: no stream waits for a
//! pooled connection, and nothing on the token path takes a lock. Every client is built by
//! [`crate::outbound`] (no redirects; on a server, no internal addresses), every body is read
//! within [`crate::bounds`], and every request gives up as soon as the run is stopped.

use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;
use tokio::sync::watch;

use crate::BenchError;
use crate::bounds::{self, clip};
use crate::engine::{Dialect, Snapshot};
use openai::{Chunk, EventRef, SseDecoder};
use outbound::Policy;
use secrecy::{ExposeSecret, SecretString};

const CONTROL_TIMEOUT: Duration = Duration::from_secs(30);

/// A model the server serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    pub id: String,
    pub max_model_len: Option<u64>,
}

/// The engine under test.
#[derive(Debug, Clone)]
pub struct Engine {
    base: String,
    http: reqwest::Client,
    /// The bearer token the engine wants (vLLM's `--api-key`); never printed.
    api_key: Option<SecretString>,
    policy: Policy,
    halt: Halt,
    /// How it names its metrics and answers `/version` and `/tokenize` (picked at preflight).
    dialect: Dialect,
}

/// Turns true when the whole run must stop (cancel, shutdown, deadline): every request in
/// flight gives up at once.
#[derive(Debug, Clone)]
struct Halt(Option<watch::Receiver<bool>>);

impl Halt {
    /// Resolves when the run is stopped; never, when nothing can stop it.
    async fn wait(&self) {
        if let Some(rx) = &self.0 {
            let mut rx = rx.clone();
            if rx.wait_for(|stop| *stop).await.is_ok() {
                return;
            }
        }
        std::future::pending::<()>().await;
    }

    fn is_set(&self) -> bool {
        self.0.as_ref().is_some_and(|rx| *rx.borrow())
    }
}

/// Idle pooled connections are dropped before common servers' keep-alive timeouts end
/// (uvicorn, under vLLM, closes them after 5 s), so a reused connection is rarely stale.
const POOL_IDLE: Duration = Duration::from_secs(2);

fn client(
    policy: Policy,
    timeout: Option<Duration>,
    api_key: Option<&str>,
) -> Result<reqwest::Client, BenchError> {
    let mut builder = outbound::client_builder(policy)
        .connect_timeout(Duration::from_secs(10))
        .pool_max_idle_per_host(1)
        .pool_idle_timeout(POOL_IDLE)
        .tcp_nodelay(true);
    if let Some(key) = api_key {
        let mut value =
            reqwest::header::HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
                BenchError::Setup("the engine API key is not a valid header value".into())
            })?;
        value.set_sensitive(true);
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(reqwest::header::AUTHORIZATION, value);
        builder = builder.default_headers(headers);
    }
    if let Some(timeout) = timeout {
        builder = builder.timeout(timeout);
    }
    builder
        .build()
        .map_err(|e| BenchError::Setup(format!("HTTP client: {e}")))
}

/// An HTTP error with its causes ("error sending request" alone says little: the cause is
/// "connection refused" or "invalid peer certificate"), never the URL (errors reach reports
/// and public events; the engine's address must not). A destination the outbound rules
/// refused is named as such.
fn describe(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else if error.is_body() || error.is_decode() {
        "reading the answer failed"
    } else if error.is_redirect() {
        "a redirect was refused"
    } else {
        "the request failed"
    }
    .to_owned();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<outbound::Refused>() {
            return format!("the address {refused}");
        }
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    clip(&text, bounds::MESSAGE)
}

/// A request that could not be sent: refused by the outbound rules (the resolver judged the
/// address at connect time), or the engine did not answer.
fn send_failed(what: &str, error: &reqwest::Error) -> BenchError {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<outbound::Refused>() {
            return BenchError::Refused(format!("{what}: the engine's address {refused}"));
        }
        source = cause.source();
    }
    BenchError::Unreachable(format!("{what}: {}", describe(error)))
}

/// The message of an OpenAI-style error body, or the body itself, clipped.
fn error_message(status: reqwest::StatusCode, body: &[u8]) -> String {
    let body = String::from_utf8_lossy(body);
    let message = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .or_else(|| v.get("detail"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| body.into_owned());
    format!("HTTP {status}: {}", clip(&message, bounds::MESSAGE))
}

/// Reads an error answer's message (at most [`bounds::ERROR_BODY`] of it).
async fn error_of(mut response: reqwest::Response) -> String {
    let status = response.status();
    let body = match bounds::read_body(&mut response, bounds::ERROR_BODY).await {
        Ok(Ok(body)) => body,
        _ => Vec::new(),
    };
    error_message(status, &body)
}

impl Engine {
    /// The engine at `base_url`; `api_key` is sent as a bearer token on every request, and
    /// `policy` decides whether the address may be reached at all.
    pub fn new(base_url: &str, api_key: Option<&str>, policy: Policy) -> Result<Self, BenchError> {
        outbound::check_url(base_url, policy)
            .map_err(|e| BenchError::Refused(format!("the engine URL {e}")))?;
        let base = base_url.trim().trim_end_matches('/').to_owned();
        Ok(Self {
            base,
            http: client(policy, Some(CONTROL_TIMEOUT), api_key)?,
            api_key: api_key.map(|key| SecretString::from(key.to_owned())),
            policy,
            halt: Halt(None),
            dialect: Dialect::default(),
        })
    }

    /// The same engine, read in `dialect`.
    pub fn speaking(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The same engine, every request of which gives up when `stop` turns true.
    pub fn stopped_by(mut self, stop: watch::Receiver<bool>) -> Self {
        self.halt = Halt(Some(stop));
        self
    }

    pub fn base_url(&self) -> &str {
        &self.base
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends a request and reads its answer within `limit` bytes, giving up when the run is
    /// stopped. `Ok(None)` for the statuses in `absent` (an endpoint the server lacks).
    async fn call(
        &self,
        what: &str,
        request: reqwest::RequestBuilder,
        limit: usize,
        absent: &[reqwest::StatusCode],
    ) -> Result<Option<Vec<u8>>, BenchError> {
        let exchange = async {
            let mut response = request.send().await.map_err(|e| send_failed(what, &e))?;
            let status = response.status();
            if absent.contains(&status) {
                return Ok(None);
            }
            if !status.is_success() {
                return Err(BenchError::Engine(format!(
                    "{what}: {}",
                    error_of(response).await
                )));
            }
            match bounds::read_body(&mut response, limit).await {
                Ok(Ok(body)) => Ok(Some(body)),
                Ok(Err(too_large)) => Err(BenchError::Engine(format!("{what}: {too_large}"))),
                Err(e) => Err(BenchError::Unreachable(format!("{what}: {}", describe(&e)))),
            }
        };
        tokio::select! {
            answer = exchange => answer,
            () = self.halt.wait() => Err(BenchError::Stopped),
        }
    }

    async fn get(&self, path: &str, limit: usize) -> Result<Option<Vec<u8>>, BenchError> {
        self.call(
            &format!("GET {path}"),
            self.http.get(self.url(path)),
            limit,
            &[reqwest::StatusCode::NOT_FOUND],
        )
        .await
    }

    /// `GET /v1/models`. A server without it is not OpenAI-compatible.
    pub async fn models(&self) -> Result<Vec<Model>, BenchError> {
        #[derive(Deserialize)]
        struct List {
            data: Vec<Card>,
        }
        #[derive(Deserialize)]
        struct Card {
            id: String,
            max_model_len: Option<u64>,
        }
        let body = self
            .get("/v1/models", bounds::MODELS_BODY)
            .await?
            .ok_or_else(|| BenchError::Unsupported("the server has no /v1/models".to_owned()))?;
        let list: List = serde_json::from_slice(&body).map_err(|_| {
            BenchError::Unsupported("/v1/models is not an OpenAI model list".to_owned())
        })?;
        Ok(list
            .data
            .into_iter()
            .map(|c| Model {
                id: clip(&c.id, bounds::MODEL_ID),
                max_model_len: c.max_model_len,
            })
            .collect())
    }

    /// `GET /version`: the engine's version, `None` when the server does not say.
    pub async fn version(&self) -> Result<Option<String>, BenchError> {
        Ok(self
            .get("/version", bounds::SMALL_BODY)
            .await?
            .and_then(|body| self.dialect.version(&body)))
    }

    /// `GET /metrics` as text; `None` when the server has no metrics endpoint.
    pub async fn metrics_text(&self) -> Result<Option<String>, BenchError> {
        Ok(self
            .get("/metrics", bounds::METRICS_BODY)
            .await?
            .map(|body| String::from_utf8_lossy(&body).into_owned()))
    }

    /// `GET /metrics`, read in the engine's dialect; `None` when the server has no metrics
    /// endpoint.
    pub async fn metrics(&self) -> Result<Option<Snapshot>, BenchError> {
        match self.metrics_text().await? {
            None => Ok(None),
            Some(text) => self
                .dialect
                .snapshot(&text)
                .map(Some)
                .map_err(|e| BenchError::Engine(e.to_string())),
        }
    }

    /// `POST /tokenize`: the prompt's token count, `None` when the server cannot tokenize.
    pub async fn tokenize(&self, model: &str, prompt: &str) -> Result<Option<u64>, BenchError> {
        let request = self
            .http
            .post(self.url("/tokenize"))
            .json(&self.dialect.tokenize_request(model, prompt));
        let Some(body) = self
            .call(
                "POST /tokenize",
                request,
                bounds::TOKENIZE_BODY,
                &[
                    reqwest::StatusCode::NOT_FOUND,
                    reqwest::StatusCode::METHOD_NOT_ALLOWED,
                ],
            )
            .await?
        else {
            return Ok(None);
        };
        let count = self
            .dialect
            .token_count(&body)
            .ok_or_else(|| BenchError::Engine("/tokenize answered without a count".into()))?;
        Ok(Some(count))
    }

    /// A prompt's token count from a one-token completion's `usage.prompt_tokens`: the way
    /// to size prompts on a server without `/tokenize`.
    pub async fn prompt_tokens_by_usage(
        &self,
        model: &str,
        prompt: &str,
    ) -> Result<u64, BenchError> {
        let request = self.http.post(self.url("/v1/completions")).json(
            &serde_json::json!({"model": model, "prompt": prompt, "max_tokens": 1, "temperature": 0}),
        );
        let body = self
            .call("POST /v1/completions", request, bounds::SMALL_BODY, &[])
            .await?
            .unwrap_or_default();
        serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| v.pointer("/usage/prompt_tokens").and_then(Value::as_u64))
            .ok_or_else(|| {
                BenchError::Engine("a completion answered without usage.prompt_tokens".into())
            })
    }

    /// A client for one stream slot: its own connection, no overall timeout (streams are
    /// long); idleness is bounded per read instead, and the run's stop ends it.
    pub fn stream_client(&self) -> Result<StreamClient, BenchError> {
        Ok(StreamClient {
            url: self.url("/v1/completions"),
            http: client(
                self.policy,
                None,
                self.api_key.as_ref().map(ExposeSecret::expose_secret),
            )?,
            api_key: self.api_key.clone(),
            policy: self.policy,
            halt: self.halt.clone(),
        })
    }

    /// Whether the run was stopped.
    pub fn halted(&self) -> bool {
        self.halt.is_set()
    }

    /// Sleeps `duration`, or less when the run is stopped; `false` then.
    pub async fn pause(&self, duration: Duration) -> bool {
        tokio::select! {
            () = tokio::time::sleep(duration) => true,
            () = self.halt.wait() => false,
        }
    }
}

/// One slot's connection for streamed completions.
#[derive(Debug, Clone)]
pub struct StreamClient {
    url: String,
    http: reqwest::Client,
    api_key: Option<SecretString>,
    policy: Policy,
    halt: Halt,
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
    /// Whether chunks carried `usage` (continuous usage stats).
    pub saw_usage: bool,
    /// The server ended the stream with `[DONE]`.
    pub completed: bool,
    /// When the last byte arrived.
    pub ended: Option<Instant>,
    pub error: Option<String>,
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
/// one (and the run is not compliant); the final usage-only chunk then only corrects a
/// shortfall.
///
/// What the engine claims is checked, not trusted: a count beyond `max_tokens`, a count that
/// goes backwards, or a final usage that disagrees with the counts the stream carried is an
/// error (the request, and so its cell, is then invalid).
fn chunk_tokens(
    chunk: &Chunk<'_>,
    counted: &mut u64,
    max_tokens: u64,
    timeline: &mut Timeline,
) -> Result<u64, String> {
    let has_choices = chunk.has_choices();
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
            if has_choices {
                timeline.saw_usage = true;
            }
            tokens = Some(completion.saturating_sub(*counted));
        }
    }
    let tokens = tokens.unwrap_or_else(|| u64::from(chunk.has_text()));
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
                    (&mut counted, limits.max_tokens),
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
    (counted, max_tokens): (&mut u64, u64),
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
    match chunk_tokens(&chunk, counted, max_tokens, timeline) {
        Ok(0) => None,
        Ok(tokens) => {
            timeline.chunks.push((at, tokens));
            sink.tokens(at, tokens);
            None
        }
        Err(dishonest) => Some(dishonest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use openai::SseEvent;

    /// [`chunk_tokens`] of a chunk written as JSON.
    fn tokens(
        chunk: &Value,
        counted: &mut u64,
        max_tokens: u64,
        timeline: &mut Timeline,
    ) -> Result<u64, String> {
        let text = chunk.to_string();
        chunk_tokens(&Chunk::parse(&text).unwrap(), counted, max_tokens, timeline)
    }

    fn reference(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/testdata/vllm/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    /// Decodes a captured stream as the client does, byte by byte split at every read size.
    fn decode(text: &str) -> (Timeline, Vec<u64>) {
        let mut timeline = Timeline::default();
        let mut previous = 0;
        let mut counts = Vec::new();
        let mut decoder = SseDecoder::new();
        for piece in text.as_bytes().chunks(7) {
            for event in decoder.feed(piece) {
                match event {
                    SseEvent::Done => timeline.completed = true,
                    SseEvent::TooLong { .. } => panic!("a capture line is too long"),
                    SseEvent::Data(data) => {
                        let chunk = Chunk::parse(&data).unwrap();
                        let n = chunk_tokens(&chunk, &mut previous, 1000, &mut timeline).unwrap();
                        counts.push(n);
                    }
                }
            }
        }
        (timeline, counts)
    }

    #[test]
    fn continuous_usage_counts_tokens_from_usage() {
        let (timeline, counts) = decode(&reference("completions-stream-continuous-usage.sse.txt"));
        assert!(timeline.completed && timeline.saw_usage);
        assert_eq!(timeline.prompt_tokens, Some(9));
        // Six token chunks of one token each, then the usage-only chunk carries none.
        assert_eq!(counts, vec![1, 1, 1, 1, 1, 1, 0]);
    }

    #[test]
    fn include_usage_only_falls_back_to_chunks_with_text() {
        let (timeline, counts) = decode(&reference("completions-stream-include-usage.sse.txt"));
        assert!(timeline.completed);
        assert!(!timeline.saw_usage, "usage came only in the final chunk");
        assert_eq!(
            timeline.prompt_tokens,
            Some(9),
            "from the final usage chunk"
        );
        // Text chunks count one each; the final usage chunk (6 in all) adds nothing.
        assert_eq!(counts, vec![1, 1, 1, 1, 1, 1, 0]);
    }

    #[test]
    fn the_chat_role_chunk_carries_no_token() {
        let (timeline, counts) = decode(&reference("chat-completions-stream.sse.txt"));
        assert!(timeline.completed && timeline.saw_usage);
        assert_eq!(timeline.prompt_tokens, Some(14));
        assert_eq!(counts[0], 0, "the role-only chunk");
        assert_eq!(counts.iter().sum::<u64>(), 5);
    }

    #[test]
    fn a_chunk_with_several_tokens_counts_them_all() {
        let mut timeline = Timeline::default();
        let mut previous = 0;
        let chunk = |n: u64| serde_json::json!({"choices": [{"text": "abc"}], "usage": {"prompt_tokens": 3, "completion_tokens": n}});
        assert_eq!(tokens(&chunk(1), &mut previous, 8, &mut timeline), Ok(1));
        assert_eq!(tokens(&chunk(4), &mut previous, 8, &mut timeline), Ok(3));
        assert_eq!(tokens(&chunk(4), &mut previous, 8, &mut timeline), Ok(0));
    }

    #[test]
    fn claims_beyond_max_tokens_or_backwards_are_refused() {
        let chunk = |n: u64| serde_json::json!({"choices": [{"text": "a"}], "usage": {"prompt_tokens": 3, "completion_tokens": n}});
        let final_usage = |n: u64| serde_json::json!({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": n}});
        let mut timeline = Timeline::default();
        let mut counted = 0;
        assert_eq!(tokens(&chunk(3), &mut counted, 4, &mut timeline), Ok(3));
        let over = tokens(&chunk(6), &mut counted, 4, &mut timeline).unwrap_err();
        assert!(
            over.contains("claimed 6 tokens") && over.contains("max_tokens 4"),
            "{over}"
        );
        let back = tokens(&chunk(2), &mut counted, 4, &mut timeline).unwrap_err();
        assert!(back.contains("went backwards"), "{back}");
        let disagree = tokens(&final_usage(4), &mut counted, 4, &mut timeline).unwrap_err();
        assert!(disagree.contains("final usage says 4"), "{disagree}");
        assert_eq!(
            tokens(&final_usage(3), &mut counted, 4, &mut timeline),
            Ok(0)
        );
        // Without continuous usage, text chunks count one each, capped all the same.
        let mut timeline = Timeline::default();
        let mut counted = 0;
        let text = serde_json::json!({"choices": [{"text": "a"}]});
        assert_eq!(tokens(&text, &mut counted, 1, &mut timeline), Ok(1));
        assert!(tokens(&text, &mut counted, 1, &mut timeline).is_err());
    }

    #[test]
    fn error_bodies_give_their_message() {
        let body = reference("error-max-tokens-too-large.json");
        let message = error_message(reqwest::StatusCode::BAD_REQUEST, body.as_bytes());
        assert!(
            message.starts_with("HTTP 400 Bad Request: max_tokens=100000 cannot be greater"),
            "{message}"
        );
        let huge = format!(
            "{{\"error\": {{\"message\": \"{}\"}}}}",
            "x".repeat(100_000)
        );
        let message = error_message(reqwest::StatusCode::BAD_REQUEST, huge.as_bytes());
        assert!(message.len() < 400 && message.ends_with(bounds::CUT_MARKER));
    }

    #[test]
    fn the_other_captures_parse() {
        let models: Value = serde_json::from_str(&reference("v1-models.json")).unwrap();
        assert_eq!(models["data"][0]["max_model_len"], 1024);
        let version: Value = serde_json::from_str(&reference("version.json")).unwrap();
        assert_eq!(version["version"], "0.32.0");
        let tokens: Value = serde_json::from_str(&reference("tokenize.json")).unwrap();
        assert_eq!(tokens["count"], 20);
        let nonstream: Value =
            serde_json::from_str(&reference("completions-nonstream.json")).unwrap();
        assert_eq!(nonstream["usage"]["completion_tokens"], 4);
    }
}
