use actix_web::{HttpResponse, get, web};
use app::App;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, NotFound};
use crate::extract::MaybeAuth;
use crate::extract::Query;
use crate::views::{Page, ReportView, cursor_after};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ReportsQuery {
    /// Only reports of this kind: `verification` or `spot_check`.
    pub kind: Option<String>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<Uuid>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<u64>,
}

/// A listing's signed reports, newest first, a page at a time. Public (see `GET /reports/{id}` for envelopes
/// that are withheld).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_listing_reports", 
    tag = "reports",
    params(("id" = Uuid, Path, description = "The listing's id"), ReportsQuery),
    responses(
        (status = 200, description = "Its reports", body = Page<ReportView>),
        Problems<(InvalidToken, NotFound)>,
    )
)]
#[get("/listings/{id}/reports")]
pub async fn reports(
    app: web::Data<App>,
    id: web::Path<Uuid>,
    query: Query<ReportsQuery>,
    MaybeAuth(viewer): MaybeAuth,
) -> Result<HttpResponse, ApiError> {
    let limit = app::market::listings::page_limit(query.limit).map_err(app::AppError::from)?;
    let reports = app
        .listing_reports(
            id.into_inner().into(),
            viewer,
            query.kind.as_deref(),
            query.cursor.map(Into::into),
            limit,
        )
        .await?;
    let next_cursor = cursor_after(&reports, limit, |r| r.id.to_string());
    Ok(HttpResponse::Ok().json(Page {
        items: reports.into_iter().map(ReportView::from).collect(),
        next_cursor,
    }))
}
