use actix_web::{HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use super::ShareQuery;
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, NotFound};
use crate::extract::MaybeAuth;
use crate::extract::Query;

/// A report's cells as CSV.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_report_matrix_csv", 
    tag = "reports",
    params(("id" = Uuid, Path, description = "The report's id"), ShareQuery),
    responses(
        (status = 200, description = "One row per cell", content_type = "text/csv", body = String),
        Problems<(InvalidToken, NotFound)>,
    )
)]
#[get("/reports/{id}/matrix.csv")]
pub async fn csv(
    app: web::Data<App>,
    id: web::Path<Uuid>,
    query: Query<ShareQuery>,
    MaybeAuth(viewer): MaybeAuth,
) -> Result<HttpResponse, ApiError> {
    let cells = app
        .report_cells(id.into_inner().into(), viewer, query.share.as_deref())
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(("content-type", "text/csv; charset=utf-8"))
        .body(super::render::matrix_csv(&cells)))
}

/// A report's decode matrix as an SVG heatmap (contexts × concurrency, colour = total tok/s).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_report_matrix_svg", 
    tag = "reports",
    params(("id" = Uuid, Path, description = "The report's id"), ShareQuery),
    responses(
        (status = 200, description = "The heatmap", content_type = "image/svg+xml", body = String),
        Problems<(InvalidToken, NotFound)>,
    )
)]
#[get("/reports/{id}/matrix.svg")]
pub async fn svg(
    app: web::Data<App>,
    id: web::Path<Uuid>,
    query: Query<ShareQuery>,
    MaybeAuth(viewer): MaybeAuth,
) -> Result<HttpResponse, ApiError> {
    let cells = app
        .report_cells(id.into_inner().into(), viewer, query.share.as_deref())
        .await?;
    Ok(HttpResponse::Ok()
        .insert_header(("content-type", "image/svg+xml"))
        .body(super::render::matrix_svg(&cells)))
}
