use actix_web::{HttpResponse, get, web};
use app::App;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

use super::CommunityRunView;
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, ValidationFailed};
use crate::extract::Query;
use crate::views::{Page, cursor_after};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct RunsQuery {
    /// Only runs of this catalog model.
    pub model: Option<String>,
    /// Only runs on this catalog GPU.
    pub gpu: Option<String>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<Uuid>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<u64>,
}

/// Community runs, newest first, by model and hardware. Public; never mixed with verified
/// results.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_runs", 
    tag = "runs",
    params(RunsQuery),
    responses(
        (status = 200, description = "A page of runs", body = Page<CommunityRunView>),
        Problems<(InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/runs")]
pub async fn list(app: web::Data<App>, query: Query<RunsQuery>) -> Result<HttpResponse, ApiError> {
    let limit = app::market::listings::page_limit(query.limit).map_err(app::AppError::from)?;
    let runs = app
        .community_runs(
            query.gpu.as_deref(),
            query.model.as_deref(),
            query.cursor,
            limit,
        )
        .await?;
    let next_cursor = cursor_after(&runs, limit, |r| r.id.to_string());
    Ok(HttpResponse::Ok().json(Page {
        items: runs.into_iter().map(CommunityRunView::from).collect(),
        next_cursor,
    }))
}
