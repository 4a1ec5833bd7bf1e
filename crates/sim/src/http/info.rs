//! The engine's facts: `/v1/models`, `/version` (llama.cpp's `/props`), `/health`, `/metrics`
//! (published with the profile's lag), `/reset_prefix_cache`.

use std::time::{Duration, Instant};

use actix_web::{HttpResponse, get, post, web};
use serde::Serialize;

use super::State;
use crate::dialect;
use crate::profile::Dialect;

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
pub(super) async fn models(state: web::Data<State>) -> HttpResponse {
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

/// vLLM's `/version`; llama.cpp has none (404).
#[get("/version")]
pub(super) async fn version(state: web::Data<State>) -> HttpResponse {
    match state.profile.dialect {
        Dialect::Vllm => HttpResponse::Ok().json(Version {
            version: &state.profile.engine_version,
        }),
        _ => HttpResponse::NotFound().finish(),
    }
}

/// llama.cpp's `/props`: its slots, each slot's context and its build; vLLM has none (404).
#[get("/props")]
pub(super) async fn props(state: web::Data<State>) -> HttpResponse {
    match state.profile.dialect {
        Dialect::LlamaCpp => HttpResponse::Ok().json(dialect::llamacpp::props(&state.profile)),
        _ => HttpResponse::NotFound().finish(),
    }
}

/// SGLang's `/get_server_info`; 404 for the others.
#[get("/get_server_info")]
pub(super) async fn server_info(state: web::Data<State>) -> HttpResponse {
    match state.profile.dialect {
        Dialect::Sglang => HttpResponse::Ok().json(dialect::sglang::server_info(&state.profile)),
        _ => HttpResponse::NotFound().finish(),
    }
}

/// TGI's `/info`; 404 for the others.
#[get("/info")]
pub(super) async fn tgi_info(state: web::Data<State>) -> HttpResponse {
    match state.profile.dialect {
        Dialect::Tgi => HttpResponse::Ok().json(dialect::tgi::info(&state.profile)),
        _ => HttpResponse::NotFound().finish(),
    }
}

#[get("/health")]
pub(super) async fn health() -> HttpResponse {
    HttpResponse::Ok().finish()
}

#[get("/metrics")]
pub(super) async fn metrics_endpoint(state: web::Data<State>) -> HttpResponse {
    let refresh =
        Duration::from_secs_f64(state.profile.metrics_refresh_ms / 1000.0 / state.time_scale.get());
    let text = {
        let mut published = state
            .published
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match &*published {
            Some((at, text)) if at.elapsed() < refresh => text.clone(),
            _ => {
                let text = state
                    .profile
                    .dialect
                    .render_metrics(&state.profile, &state.engine.stats());
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
pub(super) async fn reset_prefix_cache(state: web::Data<State>) -> HttpResponse {
    if state.engine.reset_prefix_cache() {
        HttpResponse::Ok().finish()
    } else {
        HttpResponse::ServiceUnavailable().finish()
    }
}
