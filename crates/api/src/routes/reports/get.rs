use actix_web::{HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use super::ShareQuery;
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, NotFound};
use crate::extract::MaybeAuth;
use crate::extract::Query;
use crate::views::ReportView;

/// A signed report: `envelope` is the DSSE envelope over the in-toto statement whose
/// predicate is the full report. Public; a report signed before engine addresses were left
/// out of reports has its envelope withheld (`envelope_withheld`) from everyone but the
/// listing's organisation. A private report (Pro) is shown to its organisation's members
/// and to holders of a share link (`?share=`) only; to anyone else it does not exist.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_report", 
    tag = "reports",
    params(("id" = Uuid, Path, description = "The report's id"), ShareQuery),
    responses(
        (status = 200, description = "The report", body = ReportView),
        Problems<(InvalidToken, NotFound)>,
    )
)]
#[get("/reports/{id}")]
pub async fn get(
    app: web::Data<App>,
    id: web::Path<Uuid>,
    query: Query<ShareQuery>,
    MaybeAuth(viewer): MaybeAuth,
) -> Result<HttpResponse, ApiError> {
    let report = app
        .report_for(id.into_inner().into(), viewer, query.share.as_deref())
        .await?;
    Ok(HttpResponse::Ok().json(ReportView::from(report)))
}
