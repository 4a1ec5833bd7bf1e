//! `GET /v1/gateway/{booking_id}/metrics`: the engine's counters, for a booking of the whole
//! machine only — on a shared machine they are the other renters' use too.

use actix_web::{HttpRequest, HttpResponse, get, web};
use app::{App, AppError};
use uuid::Uuid;

use super::proxy::{self, Answers};
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    BookingNotActive, EngineUnavailable, Forbidden, InvalidToken, NotFound, SharedMachine,
    Unauthenticated, WrongTokenAudience,
};

/// The booked engine's `/metrics` (Prometheus text), so the harness can measure through the
/// gateway. Only for a booking that holds every GPU of the machine.
#[utoipa::path(extensions(("x-rate-class" = json!("gateway"))), operation_id = "gateway_metrics", 
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    responses(
        (status = 200, description = "The engine's counters, unchanged", body = String, content_type = "text/plain"),
        Problems<(InvalidToken, Unauthenticated, WrongTokenAudience, Forbidden, SharedMachine, NotFound, BookingNotActive, EngineUnavailable)>,
    )
)]
#[get("/gateway/{booking_id}/metrics")]
pub async fn metrics(
    app: web::Data<App>,
    req: HttpRequest,
    booking: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let target = proxy::target_of(&app, &req, booking.into_inner()).await?;
    if !target.whole_machine {
        return Err(AppError::SharedMachine(
            "the machine's counters include other bookings' use: only a booking of every GPU of the machine reads them",
        )
        .into());
    }
    proxy::pass(
        proxy::request(&app, &target, "/metrics", None)?,
        Answers::Metrics,
    )
    .await
}
