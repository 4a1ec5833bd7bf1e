//! `PATCH /v1/bookings/{id}` `{bid_per_gpu_hour}` (issue 59): raise an interruptible booking's
//! bid, never lower it.

use actix_web::{HttpResponse, patch, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    BookingNotActive, BudgetExceeded, InvalidToken, NotFound, PaymentProviderError,
    Unauthenticated, ValidationFailed,
};
use crate::extract::{Auth, Json};
use crate::views::BookingView;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RaiseBidRequest {
    /// The new bid per GPU-hour, minor units: above the one in force (a bid is never lowered),
    /// at most 100,000,000.
    pub bid_per_gpu_hour: i64,
}

/// Raise your interruptible booking's bid: the whole booking is repriced at it (the
/// difference judged by your budget: 409 `budget_exceeded`), and from then on only an
/// on-demand booking or a bid above it displaces it. Where the provider takes no payments it
/// holds at once. A booking paid through Stripe is charged the difference: the answer's
/// `bid_raise.payment` carries the PaymentIntent (with its `client_secret`), the old bid holds
/// until Stripe reports it paid, and a raise paid once it could no longer hold is refunded in
/// full. A new raise replaces one still waiting for its payment. A booking displaced, over or
/// (with Stripe) not paid yet answers 409 `booking_not_active`.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "raise_bid",
    tag = "bookings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The booking's id")),
    request_body = RaiseBidRequest,
    responses(
        (status = 200, description = "Raised", body = BookingView),
        Problems<(InvalidToken, Unauthenticated, NotFound, BookingNotActive, BudgetExceeded, ValidationFailed, PaymentProviderError)>,
    )
)]
#[patch("/bookings/{id}")]
pub async fn raise(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    Json(body): Json<RaiseBidRequest>,
) -> Result<HttpResponse, ApiError> {
    let booking = app
        .raise_bid(caller, id.into_inner().into(), body.bid_per_gpu_hour)
        .await?;
    Ok(HttpResponse::Ok().json(BookingView::from(booking)))
}
