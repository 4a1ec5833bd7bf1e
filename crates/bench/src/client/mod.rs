//! The OpenAI-compatible client: the engine's control endpoints (`/v1/models`, `/version`,
//! `/tokenize`, `/metrics`) and streamed completions timed as their bytes arrive.
//!
//! Every stream gets its own HTTP client, hence its own connection: no stream waits for a
//! pooled connection, and nothing on the token path takes a lock. Every client is built by
//! [`outbound`] (no redirects; on a server, no internal addresses), every body is read
//! within [`crate::bounds`], and every request gives up as soon as the run is stopped.

mod stream;

use std::time::Duration;

use outbound::Policy;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::watch;

use crate::BenchError;
use crate::bounds::{self, clip};
use crate::engine::{Capacity, Dialect, Snapshot};

pub use stream::{ChunkSink, FinalUsage, StreamClient, StreamLimits, Timeline};

const CONTROL_TIMEOUT: Duration = Duration::from_secs(30);

/// A model the server serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    pub id: String,
    pub max_model_len: Option<u64>,
}

/// What an engine's info endpoint states.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    pub version: Option<String>,
    pub capacity: Capacity,
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
    /// Whether its `/metrics` are read: not when they name no engine the harness knows.
    metrics_read: bool,
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
            metrics_read: true,
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

    /// The same engine with its `/metrics` left unread: they name no engine the harness
    /// knows, so nothing in them says what the server is doing.
    pub fn unread_metrics(mut self) -> Self {
        self.metrics_read = false;
        self
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

    /// What the engine's info endpoint (`/version`, llama.cpp's `/props`, ...) states: its
    /// version and capacity, as its dialect reads them.
    pub async fn info(&self) -> Result<Info, BenchError> {
        let body = self
            .get(self.dialect.info_path(), bounds::SMALL_BODY)
            .await?;
        Ok(match body {
            Some(body) => Info {
                version: self.dialect.version(&body),
                capacity: self.dialect.capacity(&body),
            },
            None => Info::default(),
        })
    }

    /// `GET /metrics` as text; `None` when the server has no metrics endpoint.
    pub async fn metrics_text(&self) -> Result<Option<String>, BenchError> {
        Ok(self
            .get("/metrics", bounds::METRICS_BODY)
            .await?
            .map(|body| String::from_utf8_lossy(&body).into_owned()))
    }

    /// `GET /metrics`, read in the engine's dialect; `None` when the server has no metrics
    /// endpoint, or none the harness reads ([`Engine::unread_metrics`]).
    pub async fn metrics(&self) -> Result<Option<Snapshot>, BenchError> {
        if !self.metrics_read {
            return Ok(None);
        }
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
        let Some(body) = self.dialect.tokenize_request(model, prompt) else {
            return Ok(None);
        };
        let request = self.http.post(self.url("/tokenize")).json(&body);
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
            chunks: self.dialect.rules().chunks,
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

#[cfg(test)]
mod tests;
