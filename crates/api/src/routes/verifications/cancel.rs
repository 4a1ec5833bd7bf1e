use actix_web::{HttpResponse, post, web};
use app::App;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::extract::Auth;
use crate::views::RunView;

/// Cancel a queued or running verification. Members of the listing's organisation may. A
/// worker measuring it stops at its next lease renewal; no report is attached.
#[utoipa::path(
    tag = "verification",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The run's id")),
    responses(
        (status = 200, description = "Cancelled", body = RunView),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a member of the organisation", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such run", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already finished (`run_finished`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/verifications/{id}/cancel")]
pub async fn cancel(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let run = app
        .cancel_verification(caller, id.into_inner().into())
        .await?;
    Ok(HttpResponse::Ok().json(RunView::from(run)))
}
