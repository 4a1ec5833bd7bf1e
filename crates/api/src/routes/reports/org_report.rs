use actix_web::{HttpResponse, get, web};
use app::App;
use domain::OrgId;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::NotFound;
use crate::views::LogPositionView;

/// An organisation's verified fleet: each listing's latest report and headline figures,
/// counts, best figures by GPU model — signed like a listing's report. Public. A stored
/// snapshot: signed, and logged in the transparency log, when its content changes; `id` is
/// its report id (for `GET /v1/reports/{id}/proof`), `log.leaf_index` its leaf.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_org_report", 
    tag = "reports",
    params(("id" = Uuid, Path, description = "The organisation's id")),
    responses(
        (status = 200, description = "`{id, org_id, report, envelope, log: {leaf_index}, created_at}`", content_type = "application/json", body = Object),
        Problems<NotFound>,
    )
)]
#[get("/orgs/{id}/report")]
pub async fn org_report(
    app: web::Data<App>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let report = app.org_report(OrgId::from_uuid(id.into_inner())).await?;
    Ok(HttpResponse::Ok().json(serde_json::json!({
        "id": report.id,
        "org_id": report.org_id,
        "report": report.report,
        "envelope": report.envelope,
        "log": LogPositionView::of(report.log_index),
        "created_at": report.created_at,
    })))
}
