use actix_web::{HttpResponse, post, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::extract::{Auth, Json};
use crate::views::RunView;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyRequest {
    /// `standard` (the full matrix) or `quick`.
    pub profile: String,
}

/// Request a verification run of the listing's engine. Members of its organisation may.
#[utoipa::path(
    tag = "verification",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    request_body = VerifyRequest,
    responses(
        (status = 202, description = "Queued", body = RunView),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a member of the listing's organisation", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such listing", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown profile", body = Problem, content_type = "application/problem+json"),
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
        .request_verification(caller, id.into_inner().into(), &body.profile)
        .await?;
    Ok(HttpResponse::Accepted().json(RunView::from(run)))
}
