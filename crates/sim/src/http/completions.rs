//! `/v1/completions` and `/v1/chat/completions`: requests accepted like vLLM's, submitted to
//! the engine, and answered whole or streamed as Server-Sent Events in the dialect's shape.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::web::{self, Bytes};
use actix_web::{HttpResponse, post};
use futures_util::stream;
use serde::Serialize;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use openai::request::{ChatRequest, CompletionRequest, Prompt, StreamOptions};

use super::{Refusal, State, chat_text, check_model, error_response, now_secs};
use crate::dialect::{Counts, Head, Piece, llamacpp, sglang, tgi};
use crate::engine::{Event, Submission};
use crate::profile::Dialect;
use crate::tokenizer;

/// A request that passed validation, ready for the engine.
struct Accepted {
    prompt: Vec<u32>,
    max_tokens: usize,
    include_usage: bool,
    continuous_usage: bool,
    reuse_cache: bool,
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
        // vLLM's running usage needs `include_usage` too; SGLang's does not
        // (`should_include_usage`); llama.cpp and TGI have none.
        continuous_usage: state.profile.continuous_usage
            && options.is_some_and(|o| match state.profile.dialect {
                Dialect::Vllm => o.include_usage && o.continuous_usage_stats,
                Dialect::Sglang => o.continuous_usage_stats,
                Dialect::LlamaCpp | Dialect::Tgi => false,
            }),
        reuse_cache: true,
    })
}

/// llama.cpp's `cache_prompt: false`: the prompt is computed whole, whatever is cached
/// (`tools/server/server-context.cpp`, where a task's `cache_prompt` gates the reuse). Other
/// dialects ignore the field, as their servers do.
fn cold(state: &State, accepted: Accepted, cache_prompt: Option<bool>) -> Accepted {
    let reuse_cache = state.profile.dialect != Dialect::LlamaCpp || cache_prompt != Some(false);
    Accepted {
        reuse_cache,
        ..accepted
    }
}

/// Waits the modelled API overhead, then hands the request to the engine.
async fn start(state: &State, accepted: &Accepted, seed: u64) -> Option<UnboundedReceiver<Event>> {
    let overhead = state.profile.performance.request_overhead_ms / 1000.0 / state.time_scale.get();
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
            reuse_cache: accepted.reuse_cache,
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
    Bytes::from(openai::sse::encode(&json))
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
    /// When the request came, and its first token: llama.cpp's `timings`.
    started: std::time::Instant,
    first_token: Option<std::time::Instant>,
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
    fn llamacpp(&self) -> bool {
        self.state.profile.dialect == Dialect::LlamaCpp
    }

    /// llama.cpp's end of stream counts, its times in the simulated hardware's milliseconds.
    fn llamacpp_usage(&self) -> llamacpp::Usage {
        let scale = self.state.time_scale.get();
        let first = self.first_token.unwrap_or(self.started);
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0 * scale;
        llamacpp::Usage {
            prompt_tokens: self.accepted.prompt.len(),
            completion_tokens: self.completion_tokens,
            prompt_ms: ms(first.duration_since(self.started)),
            predicted_ms: ms(first.elapsed()),
        }
    }

    /// llama.cpp's chunks: `chunks` in one piece of the body.
    fn llamacpp_chunks(&self, chunks: &[llamacpp::StreamChunk<'_>]) -> Bytes {
        let mut body = Vec::new();
        for chunk in chunks {
            let value = llamacpp::stream_chunk(
                chunk,
                self.api == Api::Chat,
                &self.id,
                self.created,
                &self.state.profile.model,
                &self.state.profile.engine_version,
            );
            body.extend_from_slice(&sse(&value));
        }
        Bytes::from(body)
    }

    fn usage(&self) -> Usage {
        Usage::new(self.accepted.prompt.len(), self.completion_tokens)
    }

    /// SGLang's and TGI's: the dialect's writer says what each piece looks like, or that it
    /// writes none; `None` when it wrote nothing.
    fn written(&self, pieces: &[Piece<'_>]) -> Option<Bytes> {
        let head = Head {
            chat: self.api == Api::Chat,
            id: &self.id,
            created: self.created,
            model: &self.state.profile.model,
            version: &self.state.profile.engine_version,
        };
        let write = match self.state.profile.dialect {
            Dialect::Sglang => sglang::stream_chunk,
            _ => tgi::stream_chunk,
        };
        let body: Vec<u8> = pieces
            .iter()
            .filter_map(|piece| write(*piece, &head))
            .flat_map(|chunk| sse(&chunk))
            .collect();
        (!body.is_empty()).then(|| Bytes::from(body))
    }

    fn counts(&self, completion: usize) -> Counts {
        Counts {
            prompt: self.accepted.prompt.len(),
            completion,
        }
    }

    /// SGLang's chunk of the tokens one step made (with the finish reason, in a completion,
    /// when they end it), or TGI's chunk per token, the last one ending the answer.
    fn written_tokens(&self, tokens: &[u32]) -> Option<Bytes> {
        let finished = self.completion_tokens >= self.accepted.max_tokens;
        let texts: Vec<String> = tokens
            .iter()
            .map(|t| tokenizer::decode_output(*t))
            .collect();
        if self.state.profile.dialect == Dialect::Tgi {
            let before = self.completion_tokens - tokens.len();
            let pieces: Vec<Piece<'_>> = texts
                .iter()
                .enumerate()
                .map(|(i, text)| Piece::Text {
                    text,
                    finish: finished && i + 1 == texts.len(),
                    usage: Some(self.counts(before + i + 1)),
                })
                .collect();
            return self.written(&pieces);
        }
        let text = texts.concat();
        self.written(&[Piece::Text {
            text: &text,
            finish: finished && self.api == Api::Completions,
            usage: self
                .accepted
                .continuous_usage
                .then(|| self.counts(self.completion_tokens)),
        }])
    }

    /// What SGLang and TGI write after the last tokens: a chat's finish chunk, and the
    /// usage-only chunk when asked.
    fn written_end(&self) -> Option<Bytes> {
        let counts = self.counts(self.completion_tokens);
        let running = self.accepted.continuous_usage.then_some(counts);
        let mut pieces = vec![Piece::Finish { usage: running }];
        if self.accepted.include_usage {
            pieces.push(Piece::Usage(counts));
        }
        self.written(&pieces)
    }

    fn written_by_source(&self) -> bool {
        matches!(self.state.profile.dialect, Dialect::Sglang | Dialect::Tgi)
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
                        let chunk = if self.written_by_source() {
                            self.written(&[Piece::Role])
                        } else if self.llamacpp() {
                            Some(self.llamacpp_chunks(&[llamacpp::StreamChunk::Role]))
                        } else {
                            Some(self.role_chunk())
                        };
                        if let Some(chunk) = chunk {
                            return Some((Ok(chunk), self));
                        }
                    }
                }
                Phase::Tokens => match self.events.recv().await {
                    Some(Event::Tokens(tokens)) => {
                        self.first_token.get_or_insert_with(std::time::Instant::now);
                        self.completion_tokens += tokens.len();
                        if self.written_by_source() {
                            match self.written_tokens(&tokens) {
                                Some(chunk) => return Some((Ok(chunk), self)),
                                None => continue,
                            }
                        }
                        let chunk = if self.llamacpp() {
                            // One token a chunk, as llama.cpp streams.
                            let texts: Vec<String> = tokens
                                .iter()
                                .map(|t| tokenizer::decode_output(*t))
                                .collect();
                            let chunks: Vec<_> = texts
                                .iter()
                                .map(|text| llamacpp::StreamChunk::Text(text))
                                .collect();
                            self.llamacpp_chunks(&chunks)
                        } else {
                            let finished = self.completion_tokens >= self.accepted.max_tokens;
                            self.token_chunk(&tokens, finished)
                        };
                        return Some((Ok(chunk), self));
                    }
                    Some(Event::Finished) | None => self.phase = Phase::Usage,
                },
                Phase::Usage if self.llamacpp() => {
                    // The end: a completion's last chunk carries the usage; a chat's comes
                    // in a chunk of its own, when asked for.
                    self.phase = Phase::Done;
                    let usage = self.llamacpp_usage();
                    let chunk = match self.api {
                        Api::Completions => {
                            self.llamacpp_chunks(&[llamacpp::StreamChunk::Finish {
                                usage: Some(usage),
                            }])
                        }
                        Api::Chat if self.accepted.include_usage => self.llamacpp_chunks(&[
                            llamacpp::StreamChunk::Finish { usage: None },
                            llamacpp::StreamChunk::Usage(usage),
                        ]),
                        Api::Chat => {
                            self.llamacpp_chunks(&[llamacpp::StreamChunk::Finish { usage: None }])
                        }
                    };
                    return Some((Ok(chunk), self));
                }
                Phase::Usage if self.written_by_source() => {
                    self.phase = Phase::Done;
                    if let Some(chunk) = self.written_end() {
                        return Some((Ok(chunk), self));
                    }
                }
                Phase::Usage => {
                    self.phase = Phase::Done;
                    if self.accepted.include_usage {
                        let chunk = self.usage_chunk();
                        return Some((Ok(chunk), self));
                    }
                }
                Phase::Done => {
                    self.phase = Phase::End;
                    return Some((Ok(Bytes::from_static(openai::sse::DONE)), self));
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
    // SGLang's ids are the request's bare id; TGI's writer leaves them empty.
    let id = match (api, state.profile.dialect) {
        (_, Dialect::Sglang) => suffix,
        (Api::Completions, _) => format!("cmpl-{suffix}"),
        (Api::Chat, _) => format!("chatcmpl-{suffix}"),
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
        started: std::time::Instant::now(),
        first_token: None,
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
pub(super) async fn completions(
    state: web::Data<State>,
    body: web::Json<CompletionRequest>,
) -> Result<HttpResponse, Refusal> {
    let body = body.into_inner();
    let prompt = match body.prompt {
        Prompt::Text(text) => tokenizer::encode(&text),
        Prompt::Texts(texts) if texts.len() == 1 => tokenizer::encode(&texts[0]),
        Prompt::TokenLists(mut lists) if lists.len() == 1 => lists.swap_remove(0),
        Prompt::Texts(_) | Prompt::TokenLists(_) => {
            return Err(Refusal::bad(
                "this server accepts one prompt per request".to_owned(),
                "prompt",
            ));
        }
        Prompt::Tokens(tokens) => tokens,
    };
    let accepted = accept(
        &state,
        body.model.as_deref(),
        prompt,
        body.max_tokens,
        body.stream,
        body.stream_options.as_ref(),
    )?;
    let accepted = cold(&state, accepted, body.cache_prompt);
    Ok(respond(state, Api::Completions, accepted, body.stream).await)
}

#[post("/v1/chat/completions")]
pub(super) async fn chat_completions(
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
    let accepted = cold(&state, accepted, body.cache_prompt);
    Ok(respond(state, Api::Chat, accepted, body.stream).await)
}
