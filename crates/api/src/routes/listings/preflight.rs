//! A listing's preflight: what would make its verification fail, each check with its
//! evidence and next steps, before any engine time is spent (members of its organisation).

use actix_web::{HttpResponse, get, post, web};
use app::App;
use app::trust::preflight::Preflight;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::problem::{
    Forbidden, InvalidToken, NotFound, RateLimited, ScopeRequired, Unauthenticated,
    ValidationFailed,
};
use crate::error::{ApiError, Problems};
use crate::extract::{Auth, Query};
use crate::views::PreflightCheckView;

/// A preflight of a listing.
#[derive(Debug, Serialize, ToSchema)]
pub struct PreflightView {
    pub id: Uuid,
    pub listing_id: Uuid,
    /// No check failed.
    pub passed: bool,
    /// `asked` (a member's), `request` (before a verification request was accepted) or `run`
    /// (at a run's start; a spot check's is shown once the check ended).
    pub kind: String,
    /// The run it preceded, for a run's.
    pub run_id: Option<Uuid>,
    pub checks: Vec<PreflightCheckView>,
    pub created_at: DateTime<Utc>,
}

impl From<Preflight> for PreflightView {
    fn from(p: Preflight) -> Self {
        Self {
            id: p.id,
            listing_id: p.listing_id,
            passed: p.passed,
            kind: p.kind,
            run_id: p.run_id,
            checks: p.checks.into_iter().map(PreflightCheckView::from).collect(),
            created_at: p.created_at,
        }
    }
}

/// The profile whose cells `kv_capacity` checks.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PreflightQuery {
    /// `standard` (default) or `quick`.
    pub profile: Option<String>,
}

/// Run a preflight of the listing now (members of its organisation): the engine's checks
/// (within 10 s) and its agent's. It spends the verification budget: one of the
/// organisation's daily verification runs.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "request_preflight",
    tag = "verification",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id"), PreflightQuery),
    responses(
        (status = 200, description = "Its checks", body = PreflightView),
        Problems<(InvalidToken, Unauthenticated, ScopeRequired, Forbidden, NotFound, ValidationFailed, RateLimited)>,
    )
)]
#[post("/listings/{id}/preflight")]
pub async fn request(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    query: Query<PreflightQuery>,
) -> Result<HttpResponse, ApiError> {
    let profile = query.0.profile.as_deref().unwrap_or("standard");
    let preflight = app
        .request_preflight(caller, id.into_inner(), profile)
        .await?;
    Ok(HttpResponse::Ok().json(PreflightView::from(preflight)))
}

/// The listing's last preflight (members of its organisation): a member's, a verification
/// request's, or a run's (a spot check's only once the check ended).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_preflight",
    tag = "verification",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    responses(
        (status = 200, description = "Its checks", body = PreflightView),
        Problems<(InvalidToken, Unauthenticated, ScopeRequired, Forbidden, NotFound)>,
    )
)]
#[get("/listings/{id}/preflight")]
pub async fn latest(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    match app.latest_preflight(caller, id.into_inner()).await? {
        Some(preflight) => Ok(HttpResponse::Ok().json(PreflightView::from(preflight))),
        None => Err(app::AppError::NotFound("preflight").into()),
    }
}
