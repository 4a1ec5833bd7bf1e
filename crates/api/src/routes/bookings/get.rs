use actix_web::{HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::extract::Auth;
use crate::views::BookingView;

/// A booking: for its renter, and for members of the provider organisation.
#[utoipa::path(
    tag = "bookings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The booking's id")),
    responses(
        (status = 200, description = "The booking", body = BookingView),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such booking (or not yours to see)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/bookings/{id}")]
pub async fn get(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let booking = app.booking(caller, id.into_inner().into()).await?;
    Ok(HttpResponse::Ok().json(BookingView::from(booking)))
}
