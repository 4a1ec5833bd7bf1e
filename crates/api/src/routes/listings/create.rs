use actix_web::{HttpResponse, post, web};
use app::App;
use domain::{ListingInput, OrgId, SshInput};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    EmailUnverified, Forbidden, InvalidToken, ListingQuotaReached, Unauthenticated,
    ValidationFailed,
};
use crate::extract::{Auth, Json};
use crate::views::{
    AvailabilityWindowView, CatalogView, GuaranteeView, HardwareView, ListingView, PriceView,
    SshView,
};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EngineInput {
    /// Where the verification worker reaches the engine (OpenAI-compatible, vLLM-like).
    pub base_url: String,
    /// The served model id to measure.
    pub model: String,
    /// The engine it runs: `vllm`, `llamacpp`, `sglang` or `tgi`. When stated, a
    /// verification of an engine that speaks another dialect is refused (422
    /// `validation_failed`); reports name the engine they measured either way.
    #[serde(default)]
    pub name: Option<String>,
    /// The bearer token the engine requires (vLLM's `--api-key`), if any. Stored for the
    /// verification worker; never shown again.
    #[serde(default)]
    pub api_key: Option<String>,
}

/// How renters reach the machine: SSH and/or an HTTPS endpoint.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AccessInput {
    #[serde(default)]
    pub ssh: Option<SshView>,
    #[serde(default)]
    pub https_url: Option<String>,
    /// Containers per booking: the images a booking may run and each GPU's share.
    #[serde(default)]
    pub containers: Option<crate::views::ContainerAccessView>,
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
    /// When the machine may be booked; open-ended when absent.
    #[serde(default)]
    pub availability: Option<AvailabilityWindowView>,
    #[serde(default)]
    pub access: Option<AccessInput>,
    /// The claimed GPU's and model's catalog ids; with both, verification checks the figures
    /// against the GPU's physical limit for the model.
    #[serde(default)]
    pub catalog: Option<CatalogView>,
    /// A performance guarantee for bookings: when the gateway delivers less than
    /// `min_fraction` of the verified per-stream speed in a five-minute bucket, the booking
    /// is credited that bucket's share of its price.
    #[serde(default)]
    pub guarantee: Option<GuaranteeView>,
}

/// List a machine for an organisation the caller belongs to.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "create_listing", 
    tag = "listings",
    security(("bearer" = [])),
    request_body = CreateListingRequest,
    responses(
        (status = 201, description = "Listed", body = ListingView),
        Problems<(InvalidToken, Unauthenticated, EmailUnverified, Forbidden, ListingQuotaReached, ValidationFailed)>,
    )
)]
#[post("/listings")]
pub async fn create(
    app: web::Data<App>,
    Auth(caller): Auth,
    Json(body): Json<CreateListingRequest>,
) -> Result<HttpResponse, ApiError> {
    let access = body.access.unwrap_or_default();
    let input = ListingInput {
        title: &body.title,
        gpu_model: &body.hardware.gpu_model,
        gpu_count: i64::from(body.hardware.gpu_count),
        vram_gb: i64::from(body.hardware.vram_gb),
        cpu_model: &body.hardware.cpu_model,
        ram_gb: i64::from(body.hardware.ram_gb),
        region: &body.region,
        price_per_gpu_hour: body.price.amount_per_gpu_hour,
        min_bid_per_gpu_hour: body.price.min_bid_per_gpu_hour,
        currency: &body.price.currency,
        engine_base_url: &body.engine.base_url,
        engine_model: &body.engine.model,
        engine_name: body.engine.name.as_deref(),
        engine_api_key: body.engine.api_key.as_deref(),
        available_from: body.availability.as_ref().and_then(|w| w.from),
        available_until: body.availability.as_ref().and_then(|w| w.until),
        ssh: access.ssh.as_ref().map(|s| SshInput {
            host: &s.host,
            port: s.port,
            user: &s.user,
        }),
        https_url: access.https_url.as_deref(),
        catalog_gpu: body.catalog.as_ref().and_then(|c| c.gpu.as_deref()),
        catalog_model: body.catalog.as_ref().and_then(|c| c.model.as_deref()),
        guarantee_min_fraction: body.guarantee.as_ref().map(|g| g.min_fraction),
        containers: access.containers.clone().map(Into::into),
    };
    let listing = app
        .create_listing(caller, OrgId::from_uuid(body.org_id), &input)
        .await?;
    Ok(HttpResponse::Created().json(ListingView::new(listing, true)))
}
