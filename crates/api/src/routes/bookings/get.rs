use actix_web::{HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, NotFound, Unauthenticated};
use crate::extract::Auth;
use crate::views::BookingView;

/// A booking: for its renter, and for members of the provider organisation.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_booking", 
    tag = "bookings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The booking's id")),
    responses(
        (status = 200, description = "The booking", body = BookingView),
        Problems<(InvalidToken, Unauthenticated, NotFound)>,
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
