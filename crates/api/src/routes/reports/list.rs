use actix_web::{HttpResponse, get, web};
use app::App;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, ValidationFailed};
use crate::extract::Query;
use crate::views::{Page, ReportView, cursor_after};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PublicReportsQuery {
    /// Only reports whose listing claimed this catalog model (`GET /v1/models`) when the
    /// report was made.
    pub model: Option<String>,
    /// Only reports whose listing claimed this catalog GPU (`GET /v1/hardware`) when the
    /// report was made.
    pub gpu: Option<String>,
    /// Only reports of this kind: `verification` or `spot_check`.
    pub kind: Option<String>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<Uuid>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<u64>,
}

impl PublicReportsQuery {
    /// What the use case filters by.
    pub fn filters(&self) -> app::trust::reports::PublicReportQuery<'_> {
        app::trust::reports::PublicReportQuery {
            model: self.model.as_deref(),
            gpu: self.gpu.as_deref(),
            kind: self.kind.as_deref(),
            before: self.cursor,
        }
    }
}

/// Every public signed report, newest first, a page at a time. Public; private reports are
/// never listed (see `GET /reports/{id}` for envelopes that are withheld).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_reports",
    tag = "reports",
    params(PublicReportsQuery),
    responses(
        (status = 200, description = "A page of reports", body = Page<ReportView>),
        Problems<(InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/reports")]
pub async fn list(
    app: web::Data<App>,
    query: Query<PublicReportsQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = app::market::listings::page_limit(query.limit).map_err(app::AppError::from)?;
    let reports = app.public_reports(query.filters(), limit).await?;
    let next_cursor = cursor_after(&reports, limit, |r| r.id.to_string());
    Ok(HttpResponse::Ok().json(Page {
        items: reports.into_iter().map(ReportView::from).collect(),
        next_cursor,
    }))
}
