use actix_web::{HttpResponse, post, web};
use app::App;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{Forbidden, InvalidToken, NotFound, RunFinished, Unauthenticated};
use crate::extract::Auth;
use crate::views::RunView;

/// Cancel a queued or running verification. Members of the listing's organisation may. A
/// worker measuring it stops at its next lease renewal; no report is attached.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "cancel_verification", 
    tag = "verification",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The run's id")),
    responses(
        (status = 200, description = "Cancelled", body = RunView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, RunFinished)>,
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
