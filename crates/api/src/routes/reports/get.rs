use actix_web::{HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::extract::MaybeAuth;
use crate::views::ReportView;

/// A signed report: `envelope` is the DSSE envelope over the in-toto statement whose
/// predicate is the full report. Public; a report signed before engine addresses were left
/// out of reports has its envelope withheld (`envelope_withheld`) from everyone but the
/// listing's organisation.
#[utoipa::path(
    tag = "reports",
    params(("id" = Uuid, Path, description = "The report's id")),
    responses(
        (status = 200, description = "The report", body = ReportView),
        (status = 404, description = "No such report", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/reports/{id}")]
pub async fn get(
    app: web::Data<App>,
    id: web::Path<Uuid>,
    MaybeAuth(viewer): MaybeAuth,
) -> Result<HttpResponse, ApiError> {
    let report = app.report(id.into_inner().into(), viewer).await?;
    Ok(HttpResponse::Ok().json(ReportView::from(report)))
}
