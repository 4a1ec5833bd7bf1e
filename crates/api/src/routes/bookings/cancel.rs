use actix_web::{HttpResponse, post, web};
use app::App;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{BookingNotCancellable, InvalidToken, NotFound, Unauthenticated};
use crate::extract::Auth;
use crate::views::BookingView;

/// Cancel your booking: its GPUs are free again at once, and the refund due is recorded
/// (all of it before the start, the unused share after).
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "cancel_booking", 
    tag = "bookings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The booking's id")),
    responses(
        (status = 200, description = "Cancelled", body = BookingView),
        Problems<(InvalidToken, Unauthenticated, NotFound, BookingNotCancellable)>,
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
