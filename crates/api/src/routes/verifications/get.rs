use actix_web::{HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, NotFound};
use crate::extract::MaybeAuth;
use crate::views::RunView;

/// A verification run's state. Public, like the reports it produces: a failed run shows its
/// `failure_code` to everyone and its `failure_reason` (which may quote the engine) only to
/// the members of the listing's organisation.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_verification", 
    tag = "verification",
    params(("id" = Uuid, Path, description = "The run's id")),
    responses(
        (status = 200, description = "The run", body = RunView),
        Problems<(InvalidToken, NotFound)>,
    )
)]
#[get("/verifications/{id}")]
pub async fn get(
    app: web::Data<App>,
    id: web::Path<Uuid>,
    MaybeAuth(viewer): MaybeAuth,
) -> Result<HttpResponse, ApiError> {
    let run = app.run_seen_by(id.into_inner().into(), viewer).await?;
    Ok(HttpResponse::Ok().json(RunView::from(run)))
}
