//! The metered gateway: an OpenAI-compatible endpoint per booking. The use case (who may,
//! limits, metering) is `app::gateway`; this is the HTTP: reading the request within its
//! limits, sending it on through the outbound rules, and passing the answer back unchanged —
//! streams as their bytes arrive, with nothing buffered but an event the gateway must look at
//! whole.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use actix_web::http::{Method, StatusCode, header};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use app::gateway::{Caps, GatewayCredential, GatewaySlot, GatewayTarget, Metered, StreamMeter};
use app::{App, AppError};
use chrono::{DateTime, Utc};
use futures_util::StreamExt;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::error::{ApiError, Problem, code};

/// Largest non-streamed answer passed back.
const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// One client per outbound policy: no redirects, no proxy, every address checked; idle
/// connections dropped before an engine's keep-alive closes them (uvicorn's is 5 s).
fn client(allow_private: bool) -> Result<&'static reqwest::Client, ApiError> {
    static CLIENTS: OnceLock<Result<[reqwest::Client; 2], String>> = OnceLock::new();
    let clients = CLIENTS.get_or_init(|| {
        let build = |private: bool| {
            bench::outbound::client_builder(bench::outbound::Policy::guarded(private))
                .connect_timeout(Duration::from_secs(10))
                .read_timeout(Duration::from_secs(120))
                .pool_idle_timeout(Duration::from_secs(2))
                .build()
                .map_err(|e| e.to_string())
        };
        Ok([build(false)?, build(true)?])
    });
    match clients {
        Ok(clients) => Ok(&clients[usize::from(allow_private)]),
        Err(why) => Err(engine_failed(format!("no HTTP client: {why}"))),
    }
}

fn engine_failed(why: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        code::ENGINE_UNAVAILABLE,
        format!("the machine's engine did not answer: {why}"),
    )
}

/// The caller: the booking's access token, or a person's own token or key.
async fn credential<'a>(app: &App, bearer: &'a str) -> Result<GatewayCredential<'a>, ApiError> {
    if bearer.starts_with(app::access::PREFIX) {
        return Ok(GatewayCredential::AccessToken(bearer));
    }
    let caller = app.authenticate(bearer).await?;
    if matches!(caller.via, app::Credential::OrgKey { .. }) {
        return Err(AppError::Forbidden(
            "a booking is used by its renter: their token or key, or the booking's access token"
                .into(),
        )
        .into());
    }
    Ok(GatewayCredential::Caller(caller))
}

async fn target_of(app: &App, req: &HttpRequest, booking: Uuid) -> Result<GatewayTarget, ApiError> {
    let bearer = crate::extract::bearer_token(req)?;
    let credential = credential(app, &bearer).await?;
    Ok(app.gateway_target(booking, credential).await?)
}

/// The engine's address for `path`, checked against the outbound rules.
fn engine_url(target: &GatewayTarget, path: &str) -> Result<reqwest::Url, ApiError> {
    let url = format!("{}{path}", target.engine_base_url.trim_end_matches('/'));
    bench::outbound::check_url(&url, bench::outbound::Policy::guarded(target.allow_private))
        .map_err(|e| engine_failed(format!("its address is refused ({e})")))
}

async fn read_body(payload: web::Payload, limit: usize) -> Result<Bytes, ApiError> {
    let mut payload = payload;
    let mut body = web::BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk
            .map_err(|e| ApiError::new(code::MALFORMED_JSON, format!("reading the body: {e}")))?;
        if body.len() + chunk.len() > limit {
            return Err(ApiError::new(
                code::PAYLOAD_TOO_LARGE,
                format!("the body may be at most {limit} bytes"),
            ));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// The request as the engine gets it: `max_tokens` and `max_completion_tokens` within the
/// cap (`max_tokens` set to it when neither is given), one sequence, and usage asked for on
/// a stream. Returns the body, whether it streams, the metering caps and whether the gateway
/// added the usage option (then it strips what it adds).
fn prepare(body: &[u8], cap: u64) -> Result<(Vec<u8>, bool, Caps, bool), ApiError> {
    let mut value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::new(code::MALFORMED_JSON, format!("the body is not JSON: {e}")))?;
    let Some(object) = value.as_object_mut() else {
        return Err(ApiError::field("body", "must be a JSON object"));
    };
    let mut max_tokens = None;
    for field in ["max_tokens", "max_completion_tokens"] {
        match object.get(field) {
            None | Some(Value::Null) => {}
            Some(v) => match v.as_u64() {
                Some(n) if (1..=cap).contains(&n) => {
                    max_tokens = Some(max_tokens.map_or(n, |m: u64| m.max(n)));
                }
                _ => {
                    return Err(ApiError::field(
                        field,
                        format!("must be a whole number from 1 to {cap}"),
                    ));
                }
            },
        }
    }
    let max_tokens = max_tokens.unwrap_or_else(|| {
        object.insert("max_tokens".to_owned(), json!(cap));
        cap
    });
    // One sequence per request: what is metered is what one stream generates.
    for field in ["n", "best_of"] {
        if object
            .get(field)
            .is_some_and(|v| !v.is_null() && v.as_u64() != Some(1))
        {
            return Err(ApiError::field(
                field,
                "the gateway serves one sequence per request: 1",
            ));
        }
    }
    if object
        .get("use_beam_search")
        .is_some_and(|v| v != &json!(false) && !v.is_null())
    {
        return Err(ApiError::field(
            "use_beam_search",
            "the gateway serves one sequence per request",
        ));
    }
    let stream = match object.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(stream)) => *stream,
        Some(_) => return Err(ApiError::field("stream", "must be true or false")),
    };
    let mut added_usage = false;
    if stream {
        if object.get("stream_options").is_some_and(Value::is_null) {
            object.remove("stream_options");
        }
        let asked = object
            .get("stream_options")
            .and_then(|o| o.get("include_usage"))
            .and_then(Value::as_bool)
            == Some(true);
        if !asked {
            let options = object.entry("stream_options").or_insert_with(|| json!({}));
            if !options.is_object() {
                return Err(ApiError::field("stream_options", "must be an object"));
            }
            options["include_usage"] = json!(true);
            added_usage = true;
        }
    }
    let caps = Caps {
        max_tokens,
        max_prompt_tokens: body.len() as u64,
    };
    let body = serde_json::to_vec(&value).map_err(engine_failed)?;
    Ok((body, stream, caps, added_usage))
}

/// Whether a request (as sent on) asks nothing that slows decoding below what the benchmark
/// measured — log-probabilities, structured or guided output, logits processors — so that
/// its delivered speed may be held to the verified one.
fn comparable(body: &[u8]) -> bool {
    let Ok(Value::Object(request)) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    !request.iter().any(|(key, value)| match key.as_str() {
        _ if value.is_null() => false,
        "logprobs" => value != &json!(false) && value != &json!(0),
        "top_logprobs" | "prompt_logprobs" => value != &json!(0),
        "response_format" => value["type"].as_str().is_some_and(|t| t != "text"),
        "structured_outputs" | "logits_processors" => true,
        key => key.starts_with("guided_"),
    })
}

/// The engine's status as the client gets it: an engine refusing the gateway's own key
/// (401, 403), redirecting (3xx, never followed) or answering nonsense is the machine
/// failing, not the client.
fn client_status(engine: u16) -> Result<StatusCode, ApiError> {
    match StatusCode::from_u16(engine) {
        Ok(status)
            if status.is_success()
                || (status.is_client_error() && !matches!(engine, 401 | 403 | 407))
                || status.is_server_error() =>
        {
            Ok(status)
        }
        _ => Err(engine_failed(format!("it answered HTTP {engine}"))),
    }
}

/// Meters a request on its way out, whatever way it ends: completed, the engine failing, or
/// the client going away (then from a drop, in the background).
struct Meter {
    app: App,
    booking: Uuid,
    endpoint: &'static str,
    started_at: DateTime<Utc>,
    sent: Instant,
    caps: Caps,
    /// Asked nothing that slows decoding (see [`prepare`]).
    comparable: bool,
    slot: Option<GatewaySlot>,
    meter: StreamMeter,
    recorded: bool,
}

impl Meter {
    /// Records the request once, as `metered` (the stream's metering unless given). The
    /// insert runs on its own task, so a client going away mid-record loses nothing.
    fn record(&mut self, outcome: &'static str, metered: Option<Metered>) {
        if self.recorded {
            return;
        }
        self.recorded = true;
        let mut metered =
            metered.unwrap_or_else(|| self.meter.metered(self.caps, self.sent, outcome));
        metered.comparable = self.comparable;
        // The machine's load while the request ran, its own stream included.
        let concurrency = self.slot.take().map_or(1, |s| s.load());
        let (app, booking, endpoint, started_at) = (
            self.app.clone(),
            self.booking,
            self.endpoint,
            self.started_at,
        );
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::error!(%booking, "a gateway request was not metered: no runtime");
            return;
        };
        runtime.spawn(async move {
            if let Err(e) = app
                .record_gateway_request(booking, endpoint, started_at, concurrency, &metered)
                .await
            {
                tracing::error!(error = %e, %booking, "a gateway request was not metered");
            }
        });
    }
}

impl Drop for Meter {
    fn drop(&mut self) {
        // The client went away mid-stream: metered for what it received; the upstream
        // request is dropped with this, which cancels it at the engine.
        self.record("client_disconnected", None);
    }
}

/// A completion or chat completion through the gateway, metered.
async fn generate(
    app: web::Data<App>,
    req: HttpRequest,
    booking: Uuid,
    payload: web::Payload,
    endpoint: &'static str,
) -> Result<HttpResponse, ApiError> {
    let target = target_of(&app, &req, booking).await?;
    let body = read_body(payload, app.config().gateway_max_body_bytes).await?;
    let (body, stream, caps, strip_usage) = prepare(&body, target.max_tokens)?;
    let comparable = comparable(&body);
    let slot = app.gateway_slot(&target)?;
    let url = engine_url(&target, endpoint)?;
    let mut request = client(target.allow_private)?
        .post(url)
        .header(header::CONTENT_TYPE.as_str(), "application/json")
        .body(body);
    if let Some(key) = &target.engine_api_key {
        request = request.bearer_auth(key);
    }
    let started_at = Utc::now();
    let sent = Instant::now();
    let mut meter = Meter {
        app: app.get_ref().clone(),
        booking,
        endpoint,
        started_at,
        sent,
        caps,
        comparable,
        slot: Some(slot),
        meter: StreamMeter::new(strip_usage),
        recorded: false,
    };
    let response = match request.send().await {
        Ok(response) => response,
        Err(e) => {
            meter.record("engine_error", None);
            return Err(engine_failed(e.without_url()));
        }
    };
    let status = match client_status(response.status().as_u16()) {
        Ok(status) => status,
        Err(e) => {
            meter.record("engine_error", None);
            return Err(e);
        }
    };
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json")
        .to_owned();
    if !status.is_success() || !stream {
        let body = read_answer(response).await;
        let metered = match &body {
            Ok(answer) if status.is_success() => caps.meter_answer(answer, "completed"),
            _ => caps.meter(None, 0, "engine_error"),
        };
        meter.record(metered.outcome, Some(metered));
        return Ok(HttpResponse::build(status)
            .content_type(content_type)
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .body(body?));
    }
    // However slowly an engine trickles, the answer ends with the booking.
    let until_end = (target.ends_at - Utc::now()).to_std().unwrap_or_default();
    let deadline = tokio::time::Instant::now() + until_end;
    // The stream is polled for its next chunk once the client has taken the last one: the
    // time in between is how long the writes to the client stayed blocked (a slow reader).
    let stream = futures_util::stream::unfold(
        (response, meter, false, None::<Instant>),
        move |(mut response, mut meter, ended, handed)| async move {
            if ended {
                return None;
            }
            if let Some(handed) = handed {
                meter.meter.stalled(handed.elapsed());
            }
            loop {
                let Ok(chunk) = tokio::time::timeout_at(deadline, response.chunk()).await else {
                    meter.record("booking_ended", None);
                    return Some((
                        Err(std::io::Error::other("the booking ended")),
                        (response, meter, true, None),
                    ));
                };
                match chunk {
                    Ok(Some(bytes)) => match meter.meter.feed(&bytes, Instant::now()) {
                        Ok(out) if out.is_empty() => continue,
                        Ok(out) => {
                            return Some((
                                Ok(Bytes::from(out)),
                                (response, meter, false, Some(Instant::now())),
                            ));
                        }
                        Err(why) => {
                            meter.record("engine_error", None);
                            return Some((
                                Err(std::io::Error::other(why)),
                                (response, meter, true, None),
                            ));
                        }
                    },
                    Ok(None) => {
                        let rest = meter.meter.finish();
                        meter.record("completed", None);
                        if rest.is_empty() {
                            return None;
                        }
                        return Some((Ok(Bytes::from(rest)), (response, meter, true, None)));
                    }
                    Err(e) => {
                        meter.record("engine_error", None);
                        return Some((
                            Err(std::io::Error::other(e.without_url())),
                            (response, meter, true, None),
                        ));
                    }
                }
            }
        },
    );
    Ok(HttpResponse::build(status)
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(stream))
}

/// A whole answer, up to [`MAX_ANSWER_BYTES`].
async fn read_answer(mut response: reqwest::Response) -> Result<Bytes, ApiError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| engine_failed(e.without_url()))?
    {
        if body.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(engine_failed("an answer over 16 MiB"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(body))
}

/// Any other engine route the harness needs (`/v1/models`, `/tokenize`, `/version`,
/// `/metrics`): forwarded unchanged, unmetered.
async fn pass(
    app: web::Data<App>,
    req: HttpRequest,
    booking: Uuid,
    method: Method,
    path: &'static str,
    payload: Option<web::Payload>,
) -> Result<HttpResponse, ApiError> {
    let target = target_of(&app, &req, booking).await?;
    let url = engine_url(&target, path)?;
    let mut request = if method == Method::POST {
        let body = match payload {
            Some(payload) => read_body(payload, app.config().gateway_max_body_bytes).await?,
            None => Bytes::new(),
        };
        client(target.allow_private)?
            .post(url)
            .header(header::CONTENT_TYPE.as_str(), "application/json")
            .body(body)
    } else {
        client(target.allow_private)?.get(url)
    };
    if let Some(key) = &target.engine_api_key {
        request = request.bearer_auth(key);
    }
    let response = request
        .send()
        .await
        .map_err(|e| engine_failed(e.without_url()))?;
    let status =
        StatusCode::from_u16(response.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/octet-stream")
        .to_owned();
    let body = read_answer(response).await?;
    Ok(HttpResponse::build(status)
        .content_type(content_type)
        .body(body))
}

/// A chat completion on the booked machine, metered. `max_tokens` (or
/// `max_completion_tokens`) at most `gateway_max_tokens` (set to it when absent); streams are
/// passed through as they arrive; at most the booking's share of streams at once.
#[utoipa::path(
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    request_body(content = Object, description = "An OpenAI chat completion request"),
    responses(
        (status = 200, description = "The engine's answer, unchanged (JSON, or an event stream)", body = Object),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An organisation key", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such booking (or not yours)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The booking gives no access now (`booking_not_active`)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The engine did not answer (`engine_unavailable`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/gateway/{booking_id}/v1/chat/completions")]
pub async fn chat(
    app: web::Data<App>,
    req: HttpRequest,
    booking: web::Path<Uuid>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    generate(
        app,
        req,
        booking.into_inner(),
        payload,
        "/v1/chat/completions",
    )
    .await
}

/// A completion on the booked machine, metered (as chat completions).
#[utoipa::path(
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    request_body(content = Object, description = "An OpenAI completion request"),
    responses(
        (status = 200, description = "The engine's answer, unchanged (JSON, or an event stream)", body = Object),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An organisation key", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such booking (or not yours)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The booking gives no access now (`booking_not_active`)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The engine did not answer (`engine_unavailable`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/gateway/{booking_id}/v1/completions")]
pub async fn completions(
    app: web::Data<App>,
    req: HttpRequest,
    booking: web::Path<Uuid>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    generate(app, req, booking.into_inner(), payload, "/v1/completions").await
}

/// The booked engine's models.
#[utoipa::path(
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    responses(
        (status = 200, description = "The engine's answer, unchanged", body = Object),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An organisation key", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such booking (or not yours)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The booking gives no access now (`booking_not_active`)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The engine did not answer (`engine_unavailable`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/gateway/{booking_id}/v1/models")]
pub async fn models(
    app: web::Data<App>,
    req: HttpRequest,
    booking: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    pass(
        app,
        req,
        booking.into_inner(),
        Method::GET,
        "/v1/models",
        None,
    )
    .await
}

/// The booked engine's `/version`, `/metrics` (GET) and `/tokenize` (POST), so the harness
/// can measure through the gateway.
#[utoipa::path(
    tag = "gateway",
    security(("bearer" = [])),
    params(
        ("booking_id" = Uuid, Path, description = "The booking"),
        ("route" = String, Path, description = "`version` or `metrics`"),
    ),
    responses(
        (status = 200, description = "The engine's answer, unchanged", body = String),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An organisation key", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such booking (or not yours), or another route", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The booking gives no access now (`booking_not_active`)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The engine did not answer (`engine_unavailable`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/gateway/{booking_id}/{route}")]
pub async fn engine_info(
    app: web::Data<App>,
    req: HttpRequest,
    path: web::Path<(Uuid, String)>,
) -> Result<HttpResponse, ApiError> {
    let (booking, route) = path.into_inner();
    let path = match route.as_str() {
        "version" => "/version",
        "metrics" => "/metrics",
        _ => return Err(AppError::NotFound("gateway route").into()),
    };
    pass(app, req, booking, Method::GET, path, None).await
}

/// The booked engine's `/tokenize`.
#[utoipa::path(
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    request_body(content = Object, description = "vLLM's tokenize request"),
    responses(
        (status = 200, description = "The engine's answer, unchanged", body = Object),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An organisation key", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such booking (or not yours)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The booking gives no access now (`booking_not_active`)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The engine did not answer (`engine_unavailable`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/gateway/{booking_id}/tokenize")]
pub async fn tokenize(
    app: web::Data<App>,
    req: HttpRequest,
    booking: web::Path<Uuid>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    pass(
        app,
        req,
        booking.into_inner(),
        Method::POST,
        "/tokenize",
        Some(payload),
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_that_slow_decoding_are_not_held_to_the_benchmark() {
        let plain = json!({"model": "m", "prompt": "x", "max_tokens": 8, "logprobs": null, "response_format": {"type": "text"}});
        assert!(comparable(plain.to_string().as_bytes()));
        for slow in [
            json!({"logprobs": true, "top_logprobs": 5}),
            json!({"logprobs": 3}),
            json!({"response_format": {"type": "json_object"}}),
            json!({"guided_regex": "a+"}),
            json!({"structured_outputs": {"json": {}}}),
        ] {
            assert!(!comparable(slow.to_string().as_bytes()), "{slow}");
        }
        assert!(comparable(
            json!({"logprobs": false}).to_string().as_bytes()
        ));
    }
}
