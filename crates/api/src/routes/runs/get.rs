use actix_web::{HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use super::CommunityRunView;
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::NotFound;

/// A community run. Public.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_run", 
    tag = "runs",
    params(("id" = Uuid, Path, description = "The run's id")),
    responses(
        (status = 200, description = "The run", body = CommunityRunView),
        Problems<NotFound>,
    )
)]
#[get("/runs/{id}")]
pub async fn get(app: web::Data<App>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let run = app.community_run(id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(CommunityRunView::from(run)))
}
