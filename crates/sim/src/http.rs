//! The HTTP surface of vLLM 0.32 as a benchmark harness uses it, byte-compatible with the
//! captures in `shared/reference/vllm/`: the same field order, the same nulls, the same SSE
//! framing, and vLLM-shaped errors.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use actix_web::dev::Server;
use actix_web::http::StatusCode;
use actix_web::web::{self, Bytes};
use actix_web::{HttpResponse, get, post};
use futures_util::stream;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::engine::{Engine, Event, Submission};
use crate::profile::Profile;
use crate::{metrics, tokenizer};

const FINGERPRINT_SUFFIX: &str = "5157d8e1";

struct State {
    profile: Arc<Profile>,
    engine: Engine,
    time_scale: f64,
    created: u64,
    next_request: AtomicU64,
    /// The `/metrics` text last published and when (see `Profile::metrics_refresh_ms`).
    published: Mutex<Option<(Instant, String)>>,
}

impl State {
    fn fingerprint(&self) -> String {
        format!("vllm-{}-{FINGERPRINT_SUFFIX}", self.profile.engine_version)
    }

    fn request_id(&self) -> (String, u64) {
        let n = self.next_request.fetch_add(1, Ordering::Relaxed);
        let seed = n.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ self.created;
        (format!("{seed:016x}"), seed)
    }
}

/// A bound simulated engine. `run` serves until stopped.
pub struct SimServer {
    server: Server,
    addr: SocketAddr,
}

impl std::fmt::Debug for SimServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl SimServer {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    pub async fn run(self) -> std::io::Result<()> {
        self.server.await
    }
}

/// Binds `listen` and starts the engine; `time_scale` K runs every duration K times faster.
/// vLLM's API-key check: with a key configured, every `/v1/*` request must carry it as a
/// bearer token; other paths (`/metrics`, `/tokenize`, `/health`) stay open.
async fn require_api_key(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    let expected = req
        .app_data::<web::Data<State>>()
        .and_then(|state| state.profile.api_key.clone());
    if let Some(key) = expected
        && req.path().starts_with("/v1")
    {
        let presented = req
            .headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if presented != Some(key.as_str()) {
            let response =
                HttpResponse::Unauthorized().json(serde_json::json!({"error": "Unauthorized"}));
            return Ok(req.into_response(response));
        }
    }
    Ok(next.call(req).await?.map_into_boxed_body())
}

pub fn serve(profile: Profile, listen: &str, time_scale: f64) -> std::io::Result<SimServer> {
    if !(time_scale.is_finite() && time_scale > 0.0) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "--time-scale must be a positive number",
        ));
    }
    let profile = Arc::new(profile);
    let engine = Engine::start(Arc::clone(&profile), time_scale)?;
    let created = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let state = web::Data::new(State {
        profile,
        engine,
        time_scale,
        created,
        next_request: AtomicU64::new(1),
        published: Mutex::new(None),
    });
    let listener = TcpListener::bind(listen)?;
    let addr = listener.local_addr()?;
    let server = actix_web::HttpServer::new(move || {
        actix_web::App::new()
            .app_data(state.clone())
            .app_data(
                web::JsonConfig::default()
                    .limit(64 * 1024 * 1024)
                    .error_handler(|err, _| {
                        actix_web::error::InternalError::from_response(
                            err.to_string(),
                            error_response(StatusCode::BAD_REQUEST, &err.to_string(), None),
                        )
                        .into()
                    }),
            )
            .wrap(actix_web::middleware::from_fn(require_api_key))
            .service(models)
            .service(version)
            .service(health)
            .service(tokenize)
            .service(completions)
            .service(chat_completions)
            .service(metrics_endpoint)
            .service(reset_prefix_cache)
    })
    // Like uvicorn under vLLM: no Nagle delay, so each token chunk leaves when written
    // (otherwise a chunk after an idle moment can wait for a delayed ACK).
    .on_connect(|connection, _| {
        if let Some(tcp) = connection.downcast_ref::<actix_web::rt::net::TcpStream>() {
            let _ = tcp.set_nodelay(true);
        }
    })
    .workers(2)
    .listen(listener)?
    .run();
    Ok(SimServer { server, addr })
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    message: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    param: Option<&'a str>,
    code: u16,
}

/// A request the server refuses, answered in vLLM's error shape.
#[derive(Debug)]
struct Refusal {
    status: StatusCode,
    message: String,
    param: Option<&'static str>,
}

impl Refusal {
    fn bad(message: String, param: &'static str) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            message,
            param: Some(param),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl actix_web::ResponseError for Refusal {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        error_response(self.status, &self.message, self.param)
    }
}

fn error_response(status: StatusCode, message: &str, param: Option<&str>) -> HttpResponse {
    let kind = match status {
        StatusCode::NOT_FOUND => "NotFoundError",
        _ => "BadRequestError",
    };
    HttpResponse::build(status).json(ErrorBody {
        error: ErrorDetail {
            message,
            kind,
            param,
            code: status.as_u16(),
        },
    })
}

#[derive(Serialize)]
struct ModelList<'a> {
    object: &'static str,
    data: [ModelCard<'a>; 1],
}

#[derive(Serialize)]
struct ModelCard<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    owned_by: &'static str,
    root: &'a str,
    parent: Option<()>,
    max_model_len: usize,
    permission: [Permission; 1],
}

#[derive(Serialize)]
struct Permission {
    id: String,
    object: &'static str,
    created: u64,
    allow_create_engine: bool,
    allow_sampling: bool,
    allow_logprobs: bool,
    allow_search_indices: bool,
    allow_view: bool,
    allow_fine_tuning: bool,
    organization: &'static str,
    group: Option<()>,
    is_blocking: bool,
}

#[get("/v1/models")]
async fn models(state: web::Data<State>) -> HttpResponse {
    let model = state.profile.model.as_str();
    HttpResponse::Ok().json(ModelList {
        object: "list",
        data: [ModelCard {
            id: model,
            object: "model",
            created: state.created,
            owned_by: "vllm",
            root: model,
            parent: None,
            max_model_len: state.profile.max_model_len,
            permission: [Permission {
                id: format!("modelperm-{:016x}", state.created.wrapping_mul(31)),
                object: "model_permission",
                created: state.created,
                allow_create_engine: false,
                allow_sampling: true,
                allow_logprobs: true,
                allow_search_indices: false,
                allow_view: true,
                allow_fine_tuning: false,
                organization: "*",
                group: None,
                is_blocking: false,
            }],
        }],
    })
}

#[derive(Serialize)]
struct Version<'a> {
    version: &'a str,
}

#[get("/version")]
async fn version(state: web::Data<State>) -> HttpResponse {
    HttpResponse::Ok().json(Version {
        version: &state.profile.engine_version,
    })
}

#[get("/health")]
async fn health() -> HttpResponse {
    HttpResponse::Ok().finish()
}

#[get("/metrics")]
async fn metrics_endpoint(state: web::Data<State>) -> HttpResponse {
    let refresh =
        Duration::from_secs_f64(state.profile.metrics_refresh_ms / 1000.0 / state.time_scale);
    let text = {
        let mut published = state
            .published
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*published {
            Some((at, text)) if at.elapsed() < refresh => text.clone(),
            _ => {
                let text = metrics::render(&state.profile, &state.engine.stats());
                *published = Some((Instant::now(), text.clone()));
                text
            }
        }
    };
    HttpResponse::Ok()
        .insert_header(("content-type", "text/plain; version=0.0.4; charset=utf-8"))
        .body(text)
}

#[post("/reset_prefix_cache")]
async fn reset_prefix_cache(state: web::Data<State>) -> HttpResponse {
    if state.engine.reset_prefix_cache() {
        HttpResponse::Ok().finish()
    } else {
        HttpResponse::ServiceUnavailable().finish()
    }
}

#[derive(Debug, Deserialize)]
struct Message {
    role: String,
    content: String,
}

/// Renders chat messages the way a chat template would, so their tokens can be counted.
fn chat_text(messages: &[Message]) -> String {
    let mut text = String::new();
    for m in messages {
        text.push_str(&format!("<|{}|>\n{}\n", m.role, m.content));
    }
    text.push_str("<|assistant|>\n");
    text
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum PromptInput {
    Text(String),
    Texts(Vec<String>),
    Tokens(Vec<u32>),
}

#[derive(Debug, Deserialize)]
struct TokenizeRequest {
    model: Option<String>,
    prompt: Option<String>,
    messages: Option<Vec<Message>>,
}

#[derive(Serialize)]
struct TokenizeResponse {
    count: usize,
    max_model_len: usize,
    tokens: Vec<u32>,
    token_strs: Option<()>,
}

#[post("/tokenize")]
async fn tokenize(
    state: web::Data<State>,
    body: web::Json<TokenizeRequest>,
) -> Result<HttpResponse, Refusal> {
    check_model(&state, body.model.as_deref())?;
    let text = match (&body.prompt, &body.messages) {
        (Some(prompt), _) => prompt.clone(),
        (None, Some(messages)) => chat_text(messages),
        (None, None) => {
            return Err(Refusal::bad(
                "Either prompt or messages must be provided.".to_owned(),
                "prompt",
            ));
        }
    };
    let tokens = tokenizer::encode(&text);
    Ok(HttpResponse::Ok().json(TokenizeResponse {
        count: tokens.len(),
        max_model_len: state.profile.max_model_len,
        tokens,
        token_strs: None,
    }))
}

fn check_model(state: &State, model: Option<&str>) -> Result<(), Refusal> {
    match model {
        Some(model) if model != state.profile.model => Err(Refusal {
            status: StatusCode::NOT_FOUND,
            message: format!("The model `{model}` does not exist."),
            param: Some("model"),
        }),
        _ => Ok(()),
    }
}

#[derive(Debug, Default, Deserialize)]
struct StreamOptions {
    #[serde(default)]
    include_usage: bool,
    #[serde(default)]
    continuous_usage_stats: bool,
}

#[derive(Debug, Deserialize)]
struct CompletionRequest {
    model: Option<String>,
    prompt: PromptInput,
    max_tokens: Option<u64>,
    #[serde(default)]
    stream: bool,
    stream_options: Option<StreamOptions>,
}

#[derive(Debug, Deserialize)]
struct ChatRequest {
    model: Option<String>,
    messages: Vec<Message>,
    max_tokens: Option<u64>,
    max_completion_tokens: Option<u64>,
    #[serde(default)]
    stream: bool,
    stream_options: Option<StreamOptions>,
}

/// A request that passed validation, ready for the engine.
struct Accepted {
    prompt: Vec<u32>,
    max_tokens: usize,
    include_usage: bool,
    continuous_usage: bool,
}

fn accept(
    state: &State,
    model: Option<&str>,
    prompt: Vec<u32>,
    max_tokens: Option<u64>,
    stream: bool,
    options: Option<&StreamOptions>,
) -> Result<Accepted, Refusal> {
    check_model(state, model)?;
    let limit = state.profile.max_model_len;
    let bad = |message: String, param: &'static str| Err(Refusal::bad(message, param));
    if prompt.is_empty() {
        return bad("The decoder prompt cannot be empty".to_owned(), "prompt");
    }
    if prompt.len() >= limit {
        return bad(
            format!(
                "This model's maximum context length is {limit} tokens. However, your request has {} input tokens. Please reduce the length of the input messages. (parameter=input_tokens, value={})",
                prompt.len(),
                prompt.len()
            ),
            "input_tokens",
        );
    }
    let max_tokens = match max_tokens {
        None => limit - prompt.len(),
        Some(0) => {
            return bad(
                "max_tokens must be at least 1, got 0.".to_owned(),
                "max_tokens",
            );
        }
        Some(n) if n > limit as u64 => {
            return bad(
                format!(
                    "max_tokens={n} cannot be greater than max_model_len={limit}. Please request fewer output tokens. (parameter=max_tokens, value={n})"
                ),
                "max_tokens",
            );
        }
        Some(n) => n as usize,
    };
    if prompt.len() + max_tokens > limit {
        return bad(
            format!(
                "'max_tokens' or 'max_completion_tokens' is too large: {max_tokens}. This model's maximum context length is {limit} tokens and your request has {} input tokens ({max_tokens} > {limit} - {}). (parameter=max_tokens, value={max_tokens})",
                prompt.len(),
                prompt.len()
            ),
            "max_tokens",
        );
    }
    let options = options.filter(|_| stream);
    Ok(Accepted {
        prompt,
        max_tokens,
        include_usage: options.is_some_and(|o| o.include_usage),
        continuous_usage: state.profile.continuous_usage
            && options.is_some_and(|o| o.include_usage && o.continuous_usage_stats),
    })
}

/// Waits the modelled API overhead, then hands the request to the engine.
async fn start(state: &State, accepted: &Accepted, seed: u64) -> Option<UnboundedReceiver<Event>> {
    let overhead = state.profile.performance.request_overhead_ms / 1000.0 / state.time_scale;
    if overhead > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(overhead)).await;
    }
    let (tx, rx) = unbounded_channel();
    state
        .engine
        .submit(Submission {
            prompt: accepted.prompt.clone(),
            max_tokens: accepted.max_tokens,
            seed,
            events: tx,
        })
        .then_some(rx)
}

#[derive(Serialize, Clone, Copy)]
struct Usage {
    prompt_tokens: usize,
    total_tokens: usize,
    completion_tokens: usize,
}

impl Usage {
    fn new(prompt: usize, completion: usize) -> Self {
        Self {
            prompt_tokens: prompt,
            total_tokens: prompt + completion,
            completion_tokens: completion,
        }
    }
}

/// Chat chunks carry `completion_tokens_details: null` in their running usage.
#[derive(Serialize)]
struct ChatUsage {
    prompt_tokens: usize,
    total_tokens: usize,
    completion_tokens: usize,
    completion_tokens_details: Option<()>,
}

impl From<Usage> for ChatUsage {
    fn from(u: Usage) -> Self {
        Self {
            prompt_tokens: u.prompt_tokens,
            total_tokens: u.total_tokens,
            completion_tokens: u.completion_tokens,
            completion_tokens_details: None,
        }
    }
}

#[derive(Serialize)]
struct CompletionChunk<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    model: &'a str,
    choices: Vec<CompletionChoice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_fingerprint: Option<String>,
}

#[derive(Serialize)]
struct CompletionChoice {
    index: u32,
    text: String,
    logprobs: Option<()>,
    finish_reason: Option<&'static str>,
    stop_reason: Option<()>,
    prompt_token_ids: Option<()>,
    token_ids: Option<()>,
}

#[derive(Serialize)]
struct ChatChunk<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    model: &'a str,
    choices: Vec<ChatChoice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<ChatUsage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_token_ids: Option<Option<()>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_text: Option<Option<()>>,
}

#[derive(Serialize)]
struct ChatChoice {
    index: u32,
    delta: Delta,
    logprobs: Option<()>,
    finish_reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stop_reason: Option<Option<()>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    token_ids: Option<Option<()>>,
}

#[derive(Serialize)]
struct Delta {
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    content: String,
}

/// The final usage-only chunk, the same for both APIs.
#[derive(Serialize)]
struct UsageChunk<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    model: &'a str,
    choices: [(); 0],
    usage: Usage,
    system_fingerprint: String,
}

fn sse<T: Serialize>(value: &T) -> Bytes {
    let json = serde_json::to_string(value).unwrap_or_default();
    Bytes::from(format!("data: {json}\n\n"))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Api {
    Completions,
    Chat,
}

/// Everything one streamed response needs, threaded through `stream::unfold`.
struct Streaming {
    state: web::Data<State>,
    api: Api,
    id: String,
    created: u64,
    accepted: Accepted,
    events: UnboundedReceiver<Event>,
    completion_tokens: usize,
    phase: Phase,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Role,
    Tokens,
    Usage,
    Done,
    End,
}

impl Streaming {
    fn usage(&self) -> Usage {
        Usage::new(self.accepted.prompt.len(), self.completion_tokens)
    }

    fn token_chunk(&self, tokens: &[u32], finished: bool) -> Bytes {
        let text: String = tokens
            .iter()
            .map(|t| tokenizer::decode_output(*t))
            .collect();
        let finish_reason = finished.then_some("length");
        let usage = self.accepted.continuous_usage.then(|| self.usage());
        let model = self.state.profile.model.as_str();
        match self.api {
            Api::Completions => sse(&CompletionChunk {
                id: &self.id,
                object: "text_completion",
                created: self.created,
                model,
                choices: vec![CompletionChoice {
                    index: 0,
                    text,
                    logprobs: None,
                    finish_reason,
                    stop_reason: None,
                    prompt_token_ids: None,
                    token_ids: None,
                }],
                usage,
                system_fingerprint: None,
            }),
            Api::Chat => sse(&ChatChunk {
                id: &self.id,
                object: "chat.completion.chunk",
                created: self.created,
                model,
                choices: vec![ChatChoice {
                    index: 0,
                    delta: Delta {
                        role: None,
                        content: text,
                    },
                    logprobs: None,
                    finish_reason,
                    stop_reason: finished.then_some(None),
                    token_ids: Some(None),
                }],
                usage: usage.map(ChatUsage::from),
                prompt_token_ids: None,
                prompt_text: None,
            }),
        }
    }

    fn role_chunk(&self) -> Bytes {
        sse(&ChatChunk {
            id: &self.id,
            object: "chat.completion.chunk",
            created: self.created,
            model: &self.state.profile.model,
            choices: vec![ChatChoice {
                index: 0,
                delta: Delta {
                    role: Some("assistant"),
                    content: String::new(),
                },
                logprobs: None,
                finish_reason: None,
                stop_reason: None,
                token_ids: None,
            }],
            usage: self
                .accepted
                .continuous_usage
                .then(|| ChatUsage::from(self.usage())),
            prompt_token_ids: Some(None),
            prompt_text: Some(None),
        })
    }

    fn usage_chunk(&self) -> Bytes {
        sse(&UsageChunk {
            id: &self.id,
            object: match self.api {
                Api::Completions => "text_completion",
                Api::Chat => "chat.completion.chunk",
            },
            created: self.created,
            model: &self.state.profile.model,
            choices: [],
            usage: self.usage(),
            system_fingerprint: self.state.fingerprint(),
        })
    }

    /// The next piece of the response body, or `None` at its end.
    async fn next(mut self) -> Option<(Result<Bytes, actix_web::Error>, Self)> {
        loop {
            match self.phase {
                Phase::Role => {
                    self.phase = Phase::Tokens;
                    if self.api == Api::Chat {
                        let chunk = self.role_chunk();
                        return Some((Ok(chunk), self));
                    }
                }
                Phase::Tokens => match self.events.recv().await {
                    Some(Event::Tokens(tokens)) => {
                        self.completion_tokens += tokens.len();
                        let finished = self.completion_tokens >= self.accepted.max_tokens;
                        let chunk = self.token_chunk(&tokens, finished);
                        return Some((Ok(chunk), self));
                    }
                    Some(Event::Finished) | None => self.phase = Phase::Usage,
                },
                Phase::Usage => {
                    self.phase = Phase::Done;
                    if self.accepted.include_usage {
                        let chunk = self.usage_chunk();
                        return Some((Ok(chunk), self));
                    }
                }
                Phase::Done => {
                    self.phase = Phase::End;
                    return Some((Ok(Bytes::from_static(b"data: [DONE]\n\n")), self));
                }
                Phase::End => return None,
            }
        }
    }
}

async fn respond(
    state: web::Data<State>,
    api: Api,
    accepted: Accepted,
    stream: bool,
) -> HttpResponse {
    let (suffix, seed) = state.request_id();
    let id = match api {
        Api::Completions => format!("cmpl-{suffix}"),
        Api::Chat => format!("chatcmpl-{suffix}"),
    };
    let Some(events) = start(&state, &accepted, seed).await else {
        return error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "the engine has stopped",
            None,
        );
    };
    let streaming = Streaming {
        state: state.clone(),
        api,
        id,
        created: now_secs(),
        accepted,
        events,
        completion_tokens: 0,
        phase: Phase::Role,
    };
    if stream {
        return HttpResponse::Ok()
            .insert_header(("content-type", "text/event-stream; charset=utf-8"))
            .streaming(stream::unfold(streaming, Streaming::next));
    }
    let mut streaming = streaming;
    let mut text = String::new();
    while let Some(event) = streaming.events.recv().await {
        match event {
            Event::Tokens(tokens) => {
                streaming.completion_tokens += tokens.len();
                text.extend(tokens.iter().map(|t| tokenizer::decode_output(*t)));
            }
            Event::Finished => break,
        }
    }
    let usage = streaming.usage();
    let body = match api {
        Api::Completions => serde_json::json!({
            "id": streaming.id, "object": "text_completion", "created": streaming.created,
            "model": state.profile.model,
            "choices": [{"index": 0, "text": text, "logprobs": null, "finish_reason": "length",
                         "stop_reason": null, "token_ids": null, "prompt_logprobs": null,
                         "prompt_token_ids": null}],
            "service_tier": null, "system_fingerprint": state.fingerprint(),
            "usage": {"prompt_tokens": usage.prompt_tokens, "total_tokens": usage.total_tokens,
                      "completion_tokens": usage.completion_tokens,
                      "prompt_tokens_details": null, "completion_tokens_details": null},
        }),
        Api::Chat => serde_json::json!({
            "id": streaming.id, "object": "chat.completion", "created": streaming.created,
            "model": state.profile.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "logprobs": null, "finish_reason": "length", "stop_reason": null}],
            "usage": {"prompt_tokens": usage.prompt_tokens, "total_tokens": usage.total_tokens,
                      "completion_tokens": usage.completion_tokens},
        }),
    };
    HttpResponse::Ok().json(body)
}

#[post("/v1/completions")]
async fn completions(
    state: web::Data<State>,
    body: web::Json<CompletionRequest>,
) -> Result<HttpResponse, Refusal> {
    let body = body.into_inner();
    let prompt = match body.prompt {
        PromptInput::Text(text) => tokenizer::encode(&text),
        PromptInput::Texts(texts) if texts.len() == 1 => tokenizer::encode(&texts[0]),
        PromptInput::Texts(_) => {
            return Err(Refusal::bad(
                "this server accepts one prompt per request".to_owned(),
                "prompt",
            ));
        }
        PromptInput::Tokens(tokens) => tokens,
    };
    let accepted = accept(
        &state,
        body.model.as_deref(),
        prompt,
        body.max_tokens,
        body.stream,
        body.stream_options.as_ref(),
    )?;
    Ok(respond(state, Api::Completions, accepted, body.stream).await)
}

#[post("/v1/chat/completions")]
async fn chat_completions(
    state: web::Data<State>,
    body: web::Json<ChatRequest>,
) -> Result<HttpResponse, Refusal> {
    let body = body.into_inner();
    let prompt = tokenizer::encode(&chat_text(&body.messages));
    let accepted = accept(
        &state,
        body.model.as_deref(),
        prompt,
        body.max_completion_tokens.or(body.max_tokens),
        body.stream,
        body.stream_options.as_ref(),
    )?;
    Ok(respond(state, Api::Chat, accepted, body.stream).await)
}
