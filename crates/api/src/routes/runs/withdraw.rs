use actix_web::{HttpResponse, delete, web};
use app::App;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::extract::Auth;

/// Withdraw a run you submitted: it leaves every list and page; its receipt stays in the
/// transparency log.
#[utoipa::path(
    tag = "runs",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The run's id")),
    responses(
        (status = 204, description = "Withdrawn"),
        (status = 401, description = "Not signed in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not its submitter", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such run, or withdrawn", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/runs/{id}")]
pub async fn withdraw(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    app.withdraw_run(caller, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
