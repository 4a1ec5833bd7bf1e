//! The HTTP surface of vLLM 0.32 as a benchmark harness uses it, byte-compatible with the
//! captures in `crates/bench/testdata/vllm/`: the same field order, the same nulls, the same
//! SSE framing, and vLLM-shaped errors. The server and what every endpoint shares are here;
//! the endpoints by family: `info.rs` (models, version, health, metrics, cache reset),
//! `tokenize.rs`, `completions.rs` (completions and chat completions, streamed or not).

mod completions;
mod info;
mod tokenize;

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use actix_web::HttpResponse;
use actix_web::dev::Server;
use actix_web::http::StatusCode;
use actix_web::web;
use serde::Serialize;

use crate::engine::{Engine, TimeScale};
use crate::profile::Profile;

const FINGERPRINT_SUFFIX: &str = "5157d8e1";

struct State {
    profile: Arc<Profile>,
    engine: Engine,
    time_scale: TimeScale,
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
    time_scale: TimeScale,
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

    /// The server's time scale, to change while it serves.
    pub fn time_scale(&self) -> TimeScale {
        self.time_scale.clone()
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
    let time_scale = TimeScale::from(time_scale);
    let engine = Engine::start(Arc::clone(&profile), time_scale.clone())?;
    let created = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let state = web::Data::new(State {
        profile,
        engine,
        time_scale: time_scale.clone(),
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
            .service(info::models)
            .service(info::version)
            .service(info::props)
            .service(info::server_info)
            .service(info::tgi_info)
            .service(info::health)
            .service(tokenize::tokenize)
            .service(completions::completions)
            .service(completions::chat_completions)
            .service(info::metrics_endpoint)
            .service(info::reset_prefix_cache)
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
    Ok(SimServer {
        server,
        addr,
        time_scale,
    })
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

/// Renders chat messages the way a chat template would, so their tokens can be counted.
fn chat_text(messages: &[openai::request::Message]) -> String {
    let mut text = String::new();
    for m in messages {
        text.push_str(&format!("<|{}|>\n{}\n", m.role, m.content));
    }
    text.push_str("<|assistant|>\n");
    text
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
