use actix_web::{HttpResponse, post, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    Forbidden, HardwareMismatch, InvalidToken, NotFound, PlanRequired, PreflightFailed,
    RunInProgress, Unauthenticated, ValidationFailed,
};
use crate::extract::{Auth, Json};
use crate::views::RunView;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyRequest {
    /// `standard` (the full matrix) or `quick`.
    pub profile: String,
    /// `public` (default), or `private` (Pro): the report is signed and logged as any
    /// other, shown to the organisation's members and share links only, absent from search
    /// figures, the leaderboard and public pages, and it sets no badge.
    #[serde(default)]
    pub visibility: Option<String>,
}

/// Request a verification run of the listing's engine. Members of its organisation may. The
/// engine's preflight checks run first (within 10 s): a failed one refuses the request (409
/// `preflight_failed`, with every check) before any engine time is queued.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "request_verification", 
    tag = "verification",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    request_body = VerifyRequest,
    responses(
        (status = 202, description = "Queued", body = RunView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, PlanRequired, NotFound, RunInProgress, HardwareMismatch, PreflightFailed, ValidationFailed)>,
    )
)]
#[post("/listings/{id}/verifications")]
pub async fn verify(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    Json(body): Json<VerifyRequest>,
) -> Result<HttpResponse, ApiError> {
    let run = app
        .request_verification(
            caller,
            id.into_inner().into(),
            &body.profile,
            body.visibility.as_deref().unwrap_or("public"),
        )
        .await?;
    Ok(HttpResponse::Accepted().json(RunView::from(run)))
}
