use actix_web::{HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::views::ReportView;

/// A signed report: `envelope` is the DSSE envelope over the in-toto statement whose
/// predicate is the full report. Public.
#[utoipa::path(
    tag = "reports",
    params(("id" = Uuid, Path, description = "The report's id")),
    responses(
        (status = 200, description = "The report", body = ReportView),
        (status = 404, description = "No such report", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/reports/{id}")]
pub async fn get(app: web::Data<App>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let report = app.report(id.into_inner().into()).await?;
    Ok(HttpResponse::Ok().json(ReportView::from(report)))
}
