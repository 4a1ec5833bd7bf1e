use actix_web::{HttpRequest, HttpResponse, post, web};
use app::App;
use app::market::bookings::BookingRequest;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    BookingConflict, BudgetExceeded, EmailUnverified, HardwareMismatch, IdempotencyKeyReused,
    InvalidToken, ListingDelisted, NotFound, OutsideAvailability, PaymentProviderError,
    PayoutsNotEnabled, PriceChanged, Unauthenticated, ValidationFailed,
};
use crate::extract::{Auth, Json};
use crate::views::BookingView;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateBookingRequest {
    pub listing_id: Uuid,
    pub gpu_count: i64,
    /// Start of the half-open interval `[starts_at, ends_at)`, RFC 3339.
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// Give the booking the machine's SSH and HTTPS access, where the listing has them
    /// (default `true`). `false` waives them: only the gateway reaches the engine, and the
    /// booking carries the listing's performance guarantee (a booking with direct access
    /// has none: `no_guarantee_reason: "direct_access"`).
    pub direct_access: Option<bool>,
    /// The price per GPU-hour you expect to pay, in the listing's currency's minor units (as
    /// its `price.amount_per_gpu_hour` showed it): if the listing asks another now, 409
    /// `price_changed` with `price`, the price now, and nothing is booked.
    pub expected_amount_per_gpu_hour: Option<i64>,
    /// A container to run on the booked GPUs, holding exactly them (the listing must offer
    /// containers and the image: 422 naming `container` or `container.image` otherwise). The
    /// machine's agent starts it at the booking's start and removes it, with its volume, when
    /// access ends.
    pub container: Option<crate::views::BookingContainerView>,
    /// End the booking when no gateway request has been made for this many seconds (60 to
    /// 604,800): it is then cancelled as you would cancel it, with the same refund. Only for a
    /// booking reached through the gateway alone (`direct_access: false`; 422 naming
    /// `stop_when_idle_secs` otherwise). An open stream is never idle.
    pub stop_when_idle_secs: Option<i64>,
    /// `on_demand` (the default) or `interruptible`. An interruptible booking is priced at its
    /// `bid_per_gpu_hour` and holds its GPUs until an on-demand booking or a higher bid needs
    /// them: displaced after its start, it keeps them for the notice (`[payments]
    /// interrupt_notice_secs`) and is refunded the rest; before, it ends at once refunded in
    /// full. It carries no performance guarantee (`no_guarantee_reason: "interruptible"`).
    pub tier: Option<String>,
    /// An interruptible booking's bid per GPU-hour, in the listing's currency's minor units: at
    /// least its `price.min_bid_per_gpu_hour` (422 naming the field otherwise).
    pub bid_per_gpu_hour: Option<i64>,
}

/// Book GPUs of a listing over an interval. The `Idempotency-Key` header is required: the
/// same key and body again returns the same booking; the same key with another body is 422.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "create_booking", 
    tag = "bookings",
    security(("bearer" = [])),
    params(("Idempotency-Key" = String, Header, description = "A key unique to this booking attempt; retries reuse it", pattern = "^[!-~]{1,255}$")),
    request_body = CreateBookingRequest,
    responses(
        (status = 201, description = "Booked (or the same request replayed: `Idempotent-Replayed: true`)", body = BookingView),
        Problems<(InvalidToken, Unauthenticated, EmailUnverified, NotFound, BookingConflict, ListingDelisted, OutsideAvailability, PayoutsNotEnabled, PriceChanged, BudgetExceeded, HardwareMismatch, IdempotencyKeyReused, ValidationFailed, PaymentProviderError)>,
    )
)]
#[post("/bookings")]
pub async fn create(
    app: web::Data<App>,
    Auth(caller): Auth,
    req: HttpRequest,
    Json(body): Json<CreateBookingRequest>,
) -> Result<HttpResponse, ApiError> {
    let key = crate::extract::idempotency_key(&req);
    let booked = app
        .create_booking(
            caller,
            &BookingRequest {
                listing_id: body.listing_id.into(),
                gpu_count: body.gpu_count,
                starts_at: body.starts_at,
                ends_at: body.ends_at,
                idempotency_key: key,
                direct_access: body.direct_access.unwrap_or(true),
                expected_amount_per_gpu_hour: body.expected_amount_per_gpu_hour,
                container: body.container.map(Into::into),
                stop_when_idle_secs: body.stop_when_idle_secs,
                tier: body.tier.as_deref(),
                bid_per_gpu_hour: body.bid_per_gpu_hour,
            },
        )
        .await?;
    let mut response = HttpResponse::Created();
    if booked.replayed {
        response.insert_header(("idempotent-replayed", "true"));
    }
    Ok(response.json(BookingView::from(booked.booking)))
}
