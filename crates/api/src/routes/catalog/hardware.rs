use actix_web::{HttpResponse, get, web};
use app::App;
use serde::Serialize;
use utoipa::ToSchema;

use super::{GpuView, MeasuredCellView};
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::NotFound;

#[derive(Debug, Serialize, ToSchema)]
pub struct GpuListView {
    pub items: Vec<GpuView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GpuDetailView {
    #[serde(flatten)]
    pub gpu: GpuView,
    /// Figures of the models measured on it: verified ones (best total first), then
    /// community runs' (`source` tells which).
    pub results: Vec<MeasuredCellView>,
}

/// The GPUs the decode calculator knows, from vendor datasheets (each cites its source).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_gpus", tag = "catalog", responses((status = 200, description = "Every GPU", body = GpuListView)))]
#[get("/hardware")]
pub async fn list(app: web::Data<App>) -> Result<HttpResponse, ApiError> {
    let items = app.gpus()?.iter().cloned().map(GpuView::from).collect();
    Ok(HttpResponse::Ok().json(GpuListView { items }))
}

/// A GPU and the figures of every model measured on it, verified and community apart.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_gpu", 
    tag = "catalog",
    params(("gpu" = String, Path, description = "The GPU's catalog id, e.g. `rtx-3060-12gb`")),
    responses(
        (status = 200, description = "The GPU and its results", body = GpuDetailView),
        Problems<NotFound>,
    )
)]
#[get("/hardware/{gpu}")]
pub async fn get(app: web::Data<App>, gpu: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let (gpu, measured) = app.gpu(&gpu).await?;
    Ok(HttpResponse::Ok().json(GpuDetailView {
        gpu: gpu.into(),
        results: MeasuredCellView::all(measured),
    }))
}
