//! Sending a request to a booking's engine and passing its answer back, under the rules
//! every gateway route shares: the caller is the booking's renter, the engine's address is
//! checked by the outbound rules at every connection, an engine that redirects or refuses
//! the gateway's own key (3xx, 401, 403, 407) is the machine failing (502), only the content
//! types the route serves are passed back, and never sniffed.

use std::time::Duration;

use actix_web::http::{StatusCode, header};
use actix_web::web::{self, Bytes};
use actix_web::{HttpRequest, HttpResponse};
use app::App;
use app::market::gateway::GatewayTarget;
use futures_util::StreamExt;
use uuid::Uuid;

use crate::error::{ApiError, code};

/// Largest answer passed back whole.
const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// The content types a route passes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answers {
    /// JSON (and, for generation, an event stream).
    Json,
    /// Prometheus' text exposition format.
    Metrics,
}

pub(super) fn engine_failed(why: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        code::ENGINE_UNAVAILABLE,
        format!("the machine's engine did not answer: {why}"),
    )
}

/// The booking's target, for the renter whose credential the request carries.
pub(super) async fn target_of(
    app: &App,
    req: &HttpRequest,
    booking: Uuid,
) -> Result<GatewayTarget, ApiError> {
    let bearer = crate::extract::bearer_token(req)?;
    let caller = app.gateway_caller(&bearer).await?;
    Ok(app.gateway_target(booking, caller).await?)
}

/// The body, up to `limit` bytes.
pub(super) async fn read_body(payload: web::Payload, limit: usize) -> Result<Bytes, ApiError> {
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

/// A request to the engine for `path`: its address checked (a stored base URL with a query,
/// fragment or credentials is refused until edited), the engine's key, never the renter's.
pub(super) fn request(
    app: &App,
    target: &GatewayTarget,
    path: &str,
    body: Option<Vec<u8>>,
) -> Result<reqwest::RequestBuilder, ApiError> {
    let url = outbound::engine_url(&target.engine_base_url, path, app.outbound_policy())
        .map_err(|e| engine_failed(format!("its address is refused ({e})")))?;
    let client = app.gateway_client();
    let mut request = match body {
        Some(body) => client
            .post(url)
            .header(header::CONTENT_TYPE.as_str(), "application/json")
            .body(body),
        None => client.get(url),
    };
    if let Some(key) = &target.engine_api_key {
        request = request.bearer_auth(key.expose());
    }
    Ok(request.timeout(Duration::from_secs(600)))
}

/// The engine's status as the client gets it: an engine refusing the gateway's own key
/// (401, 403, 407), redirecting (3xx, never followed) or answering nonsense is the machine
/// failing, not the client.
pub(super) fn client_status(engine: u16) -> Result<StatusCode, ApiError> {
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

/// The answer's content type when the route passes it back: JSON (or an event stream where
/// `stream` is allowed), or Prometheus text for metrics. Anything else (an HTML page, a
/// script) is the machine failing: nothing an engine sends is served as a page of ours.
pub(super) fn content_type(
    response: &reqwest::Response,
    answers: Answers,
    stream: bool,
) -> Result<String, ApiError> {
    let value = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let allowed = match answers {
        Answers::Json => {
            essence == "application/json" || (stream && essence == "text/event-stream")
        }
        Answers::Metrics => essence == "text/plain" || essence == "application/openmetrics-text",
    };
    if !allowed {
        return Err(engine_failed(format!(
            "it answered a content type the gateway does not pass on ({})",
            if essence.is_empty() {
                "none"
            } else {
                "another"
            }
        )));
    }
    Ok(value.to_owned())
}

/// A whole answer, up to [`MAX_ANSWER_BYTES`].
pub(super) async fn read_answer(mut response: reqwest::Response) -> Result<Bytes, ApiError> {
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

/// Sends `request` and passes the whole answer back, unmetered.
pub(super) async fn pass(
    request: reqwest::RequestBuilder,
    answers: Answers,
) -> Result<HttpResponse, ApiError> {
    let response = request
        .send()
        .await
        .map_err(|e| engine_failed(e.without_url()))?;
    let status = client_status(response.status().as_u16())?;
    let content_type = content_type(&response, answers, false)?;
    let body = read_answer(response).await?;
    Ok(HttpResponse::build(status)
        .content_type(content_type)
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body))
}
