//! Probes and metrics for operators: liveness, readiness, Prometheus.

use actix_web::http::header::CONTENT_TYPE;
use actix_web::{HttpResponse, get, web};
use app::App;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::NotReady;

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`
    pub status: &'static str,
}

/// Liveness: the process is up and answering. Touches no dependency.
#[utoipa::path(extensions(("x-rate-class" = json!("unlimited"))), operation_id = "health", tag = "operations", responses((status = 200, description = "Up", body = Health)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health { status: "ok" })
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Readiness {
    /// `ready`
    pub status: &'static str,
    /// Each dependency checked, and whether it answered.
    pub checks: Vec<CheckView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CheckView {
    pub name: &'static str,
    pub ok: bool,
}

/// Readiness: the database answers, and Redis when configured. 503 names what is down.
#[utoipa::path(extensions(("x-rate-class" = json!("unlimited"))), operation_id = "readiness", 
    tag = "operations",
    responses(
        (status = 200, description = "Ready", body = Readiness),
        Problems<NotReady>,
    )
)]
#[get("/readyz")]
pub async fn readyz(app: web::Data<App>) -> Result<HttpResponse, ApiError> {
    let checks = app.readiness().await;
    app::operations::health::all_ready(&checks)?;
    Ok(HttpResponse::Ok().json(Readiness {
        status: "ready",
        checks: checks
            .into_iter()
            .map(|c| CheckView {
                name: c.name,
                ok: c.ok,
            })
            .collect(),
    }))
}

/// Prometheus metrics: request counts and latency histograms by route.
#[utoipa::path(extensions(("x-rate-class" = json!("unlimited"))), operation_id = "metrics", 
    tag = "operations",
    responses((status = 200, description = "Prometheus text format", content_type = "text/plain", body = String))
)]
#[get("/metrics")]
pub async fn metrics() -> HttpResponse {
    let handle = crate::middleware::prometheus();
    handle.run_upkeep();
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8"))
        .body(handle.render())
}
