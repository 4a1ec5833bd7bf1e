use actix_web::{HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::views::RunView;

/// A verification run's state. Public, like the reports it produces.
#[utoipa::path(
    tag = "verification",
    params(("id" = Uuid, Path, description = "The run's id")),
    responses(
        (status = 200, description = "The run", body = RunView),
        (status = 404, description = "No such run", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/verifications/{id}")]
pub async fn get(app: web::Data<App>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let run = app.run(id.into_inner().into()).await?;
    Ok(HttpResponse::Ok().json(RunView::from(run)))
}
