use actix_web::{HttpRequest, HttpResponse, post, web};
use app::App;
use app::market::offers::{OfferParams, PlanRequest};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    BookingConflict, BudgetExceeded, EmailUnverified, HardwareMismatch, IdempotencyKeyReused,
    InvalidToken, PaymentProviderError, PayoutsNotEnabled, RateLimited, SloUnmet, Unauthenticated,
    ValidationFailed,
};
use crate::extract::{Auth, Json};
use crate::views::{BookingView, MoneyView};

/// The objective (as `GET /v1/offers` takes it) and the interval to book.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BookPlanRequest {
    /// A catalog model's id, name or alias, or the name an engine serves.
    pub model: String,
    /// The longest prompt, tokens.
    pub context: i64,
    /// Users to serve at once (1–10,000).
    pub users: i64,
    pub ttft_p99_ms: f64,
    pub itl_p99_ms: f64,
    /// Prices in this ISO 4217 currency (default `USD`).
    pub currency: Option<String>,
    /// At most this price per hour for each whole machine, minor units.
    pub max_price_per_hour: Option<i64>,
    /// Only machines whose 30-day uptime (`reliability`) is at least this, 0 to 1.
    pub min_reliability: Option<f64>,
    /// Start of the half-open interval `[starts_at, ends_at)`, RFC 3339.
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// Give the bookings the machines' SSH and HTTPS access (default `true`). `false` waives
    /// them: only the gateway reaches the engines, and the bookings carry the listings'
    /// performance guarantees (a booking with direct access has none).
    pub direct_access: Option<bool>,
    /// The price per hour of the whole plan you expect to pay (as `GET /v1/offers`'s `plan`
    /// showed it), minor units: if the plan costs another now, 409 `price_changed` with
    /// `price`, the plan's price now, and nothing is booked.
    pub expected_price_per_hour: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BookedPlanView {
    /// Ties the plan's bookings (each booking's `plan_id`).
    pub plan_id: Uuid,
    /// One booking per listing of the plan, every GPU of it, by listing id.
    pub bookings: Vec<BookingView>,
    /// The users the plan serves within the objective.
    pub users: u64,
    /// Its machines' price per hour when booked.
    pub price_per_hour: MoneyView,
}

/// Book the cheapest plan that meets a service-level objective over an interval: every
/// listing of it whole, in one transaction, all or none. Each listing is checked again under
/// its lock (the offers may be stale); one taken meanwhile is left out and the plan chosen
/// again from the offers that still meet the objective. The `Idempotency-Key` header is
/// required: the same key and body again returns the same plan. A plan counts as one booking
/// against `max_open_bookings`; its GPU-hours count in full.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "book_offers",
    tag = "bookings",
    security(("bearer" = [])),
    params(("Idempotency-Key" = String, Header, description = "A key unique to this plan; retries reuse it", pattern = "^[!-~]{1,255}$")),
    request_body = BookPlanRequest,
    responses(
        (status = 201, description = "Booked (or the same request replayed: `Idempotent-Replayed: true`)", body = BookedPlanView),
        Problems<(InvalidToken, Unauthenticated, EmailUnverified, SloUnmet, BookingConflict, HardwareMismatch, PayoutsNotEnabled, BudgetExceeded, IdempotencyKeyReused, ValidationFailed, RateLimited, PaymentProviderError)>,
    )
)]
#[post("/offers/book")]
pub async fn book(
    app: web::Data<App>,
    Auth(caller): Auth,
    req: HttpRequest,
    Json(body): Json<BookPlanRequest>,
) -> Result<HttpResponse, ApiError> {
    let key = crate::extract::idempotency_key(&req);
    let booked = app
        .book_plan(
            caller,
            &PlanRequest {
                offers: OfferParams {
                    model: Some(body.model),
                    context: Some(body.context),
                    users: Some(body.users),
                    ttft_p99_ms: Some(body.ttft_p99_ms),
                    itl_p99_ms: Some(body.itl_p99_ms),
                    currency: body.currency,
                    max_price_per_hour: body.max_price_per_hour,
                    min_reliability: body.min_reliability,
                    ..OfferParams::default()
                },
                starts_at: body.starts_at,
                ends_at: body.ends_at,
                idempotency_key: key,
                direct_access: body.direct_access.unwrap_or(true),
                expected_price_per_hour: body.expected_price_per_hour,
            },
        )
        .await?;
    let mut response = HttpResponse::Created();
    if booked.replayed {
        response.insert_header(("idempotent-replayed", "true"));
    }
    Ok(response.json(BookedPlanView {
        plan_id: booked.plan_id,
        bookings: booked.bookings.into_iter().map(BookingView::from).collect(),
        users: booked.users,
        price_per_hour: booked.price_per_hour.into(),
    }))
}
