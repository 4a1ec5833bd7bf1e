use actix_web::{HttpResponse, delete, web};
use app::App;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{Forbidden, InvalidToken, NotFound, Unauthenticated};
use crate::extract::Auth;

/// Withdraw a run you submitted: it leaves every list and page; its receipt stays in the
/// transparency log.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "withdraw_run", 
    tag = "runs",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The run's id")),
    responses(
        (status = 204, description = "Withdrawn"),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
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
