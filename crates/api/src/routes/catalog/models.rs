use actix_web::{HttpResponse, get, web};
use app::App;
use serde::Serialize;
use utoipa::ToSchema;

use super::{MeasuredCellView, ModelView};
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::NotFound;

#[derive(Debug, Serialize, ToSchema)]
pub struct ModelListView {
    pub items: Vec<ModelView>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ModelDetailView {
    #[serde(flatten)]
    pub model: ModelView,
    /// Figures on every GPU it was measured on: verified ones (best total first), then
    /// community runs' (`source` tells which).
    pub results: Vec<MeasuredCellView>,
}

/// The models the decode calculator knows, with the architecture facts it uses (each cites
/// its model card).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_models", tag = "catalog", responses((status = 200, description = "Every model", body = ModelListView)))]
#[get("/models")]
pub async fn list(app: web::Data<App>) -> Result<HttpResponse, ApiError> {
    let items = app.models()?.iter().cloned().map(ModelView::from).collect();
    Ok(HttpResponse::Ok().json(ModelListView { items }))
}

/// A model and its figures across hardware, verified and community apart.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_model", 
    tag = "catalog",
    params(("id" = String, Path, description = "The model's catalog id")),
    responses(
        (status = 200, description = "The model and its results", body = ModelDetailView),
        Problems<NotFound>,
    )
)]
#[get("/models/{id}")]
pub async fn get(app: web::Data<App>, id: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let (model, measured) = app.model(&id).await?;
    Ok(HttpResponse::Ok().json(ModelDetailView {
        model: model.into(),
        results: MeasuredCellView::all(measured),
    }))
}
