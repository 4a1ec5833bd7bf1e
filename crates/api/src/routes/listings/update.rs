use actix_web::{HttpResponse, patch, web};
use app::App;
use app::market::listings::ListingPatch;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    Forbidden, InvalidToken, ListingDelisted, NotFound, Unauthenticated, ValidationFailed,
};
use crate::extract::{Auth, Json};
use crate::views::{CatalogView, GuaranteeView, ListingView, SshView};

/// A field that may be set to `null` to clear it: absent → `None`, `null` → `Some(None)`.
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HardwarePatch {
    pub gpu_model: Option<String>,
    pub gpu_count: Option<i64>,
    pub vram_gb: Option<i64>,
    pub cpu_model: Option<String>,
    pub ram_gb: Option<i64>,
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PricePatch {
    pub amount_per_gpu_hour: Option<i64>,
    pub currency: Option<String>,
    /// The lowest bid it takes for an interruptible booking; `null` stops taking them
    /// (bookings made keep their bids).
    #[serde(default, deserialize_with = "nullable")]
    pub min_bid_per_gpu_hour: Option<Option<i64>>,
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnginePatch {
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// The engine it runs (`vllm`, `llamacpp`, `sglang`, `tgi`); `null` no longer states one.
    #[serde(default, deserialize_with = "nullable")]
    pub name: Option<Option<String>>,
    /// `null` removes the key.
    #[serde(default, deserialize_with = "nullable")]
    pub api_key: Option<Option<String>>,
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AvailabilityPatch {
    /// `null` opens the window's start.
    #[serde(default, deserialize_with = "nullable")]
    pub from: Option<Option<DateTime<Utc>>>,
    /// `null` opens the window's end.
    #[serde(default, deserialize_with = "nullable")]
    pub until: Option<Option<DateTime<Utc>>>,
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AccessPatch {
    /// `null` removes SSH access.
    #[serde(default, deserialize_with = "nullable")]
    pub ssh: Option<Option<SshView>>,
    /// `null` removes the HTTPS endpoint.
    #[serde(default, deserialize_with = "nullable")]
    pub https_url: Option<Option<String>>,
    /// Containers per booking (replaced whole); `null` stops offering them to new bookings
    /// (bookings made keep theirs).
    #[serde(default, deserialize_with = "nullable")]
    pub containers: Option<Option<crate::views::ContainerAccessView>>,
}

/// The fields to change; everything absent stays as it is.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateListingRequest {
    pub title: Option<String>,
    pub region: Option<String>,
    pub hardware: Option<HardwarePatch>,
    pub price: Option<PricePatch>,
    pub engine: Option<EnginePatch>,
    pub availability: Option<AvailabilityPatch>,
    pub access: Option<AccessPatch>,
    /// The catalog ids (replaced whole); `null` removes them.
    #[serde(default, deserialize_with = "nullable")]
    pub catalog: Option<Option<CatalogView>>,
    /// The performance guarantee (replaced whole); `null` withdraws it for new bookings.
    #[serde(default, deserialize_with = "nullable")]
    pub guarantee: Option<Option<GuaranteeView>>,
}

impl From<UpdateListingRequest> for ListingPatch {
    fn from(body: UpdateListingRequest) -> Self {
        let hardware = body.hardware.unwrap_or_default();
        let price = body.price.unwrap_or_default();
        let engine = body.engine.unwrap_or_default();
        let availability = body.availability.unwrap_or_default();
        let access = body.access.unwrap_or_default();
        Self {
            title: body.title,
            gpu_model: hardware.gpu_model,
            gpu_count: hardware.gpu_count,
            vram_gb: hardware.vram_gb,
            cpu_model: hardware.cpu_model,
            ram_gb: hardware.ram_gb,
            region: body.region,
            price_per_gpu_hour: price.amount_per_gpu_hour,
            min_bid_per_gpu_hour: price.min_bid_per_gpu_hour,
            currency: price.currency,
            engine_base_url: engine.base_url,
            engine_model: engine.model,
            engine_name: engine.name,
            engine_api_key: engine.api_key,
            available_from: availability.from,
            available_until: availability.until,
            ssh: access.ssh.map(|ssh| ssh.map(|s| (s.host, s.port, s.user))),
            https_url: access.https_url,
            containers: access.containers.map(|c| c.map(Into::into)),
            catalog: body.catalog.map(|c| c.map(|c| (c.gpu, c.model))),
            guarantee_min_fraction: body.guarantee.map(|g| g.map(|g| g.min_fraction)),
        }
    }
}

/// Edit a listing (members of its organisation). Changing the hardware or the engine
/// withdraws the verification badge: the latest report no longer describes the machine.
/// Bookings already made keep their price.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "update_listing", 
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    request_body = UpdateListingRequest,
    responses(
        (status = 200, description = "The listing as it is now", body = ListingView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, ListingDelisted, ValidationFailed)>,
    )
)]
#[patch("/listings/{id}")]
pub async fn update(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    Json(body): Json<UpdateListingRequest>,
) -> Result<HttpResponse, ApiError> {
    let listing = app
        .update_listing(caller, id.into_inner().into(), &ListingPatch::from(body))
        .await?;
    Ok(HttpResponse::Ok().json(ListingView::new(listing, true)))
}
