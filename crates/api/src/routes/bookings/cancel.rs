use actix_web::{HttpResponse, post, web};
use app::App;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::extract::Auth;
use crate::views::BookingView;

/// Cancel your booking: its GPUs are free again at once, and the refund due is recorded
/// (all of it before the start, the unused share after).
#[utoipa::path(
    tag = "bookings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The booking's id")),
    responses(
        (status = 200, description = "Cancelled", body = BookingView),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such booking of yours", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already cancelled or ended (`booking_not_cancellable`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/bookings/{id}/cancel")]
pub async fn cancel(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let booking = app.cancel_booking(caller, id.into_inner().into()).await?;
    Ok(HttpResponse::Ok().json(BookingView::from(booking)))
}
