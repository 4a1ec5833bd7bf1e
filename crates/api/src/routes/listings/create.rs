use actix_web::{HttpResponse, post, web};
use app::App;
use domain::{ListingInput, OrgId};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::extract::{Auth, Json};
use crate::views::{HardwareView, ListingView, PriceView};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EngineInput {
    /// Where the verification worker reaches the engine (OpenAI-compatible, vLLM-like).
    pub base_url: String,
    /// The served model id to measure.
    pub model: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateListingRequest {
    pub org_id: Uuid,
    pub title: String,
    pub hardware: HardwareView,
    pub region: String,
    pub price: PriceView,
    pub engine: EngineInput,
}

/// List a machine for an organisation the caller belongs to.
#[utoipa::path(
    tag = "listings",
    security(("bearer" = [])),
    request_body = CreateListingRequest,
    responses(
        (status = 201, description = "Listed", body = ListingView),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a member of the organisation", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A field is invalid; `errors[0].field` names it", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/listings")]
pub async fn create(
    app: web::Data<App>,
    Auth(caller): Auth,
    Json(body): Json<CreateListingRequest>,
) -> Result<HttpResponse, ApiError> {
    let input = ListingInput {
        title: &body.title,
        gpu_model: &body.hardware.gpu_model,
        gpu_count: i64::from(body.hardware.gpu_count),
        vram_gb: i64::from(body.hardware.vram_gb),
        cpu_model: &body.hardware.cpu_model,
        ram_gb: i64::from(body.hardware.ram_gb),
        region: &body.region,
        price_per_gpu_hour: body.price.amount_per_gpu_hour,
        currency: &body.price.currency,
        engine_base_url: &body.engine.base_url,
        engine_model: &body.engine.model,
    };
    let listing = app
        .create_listing(caller, OrgId::from_uuid(body.org_id), &input)
        .await?;
    Ok(HttpResponse::Created().json(ListingView::new(listing, true)))
}
