use actix_web::{HttpResponse, delete, web};
use app::App;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{Forbidden, InvalidToken, NotFound, Unauthenticated};
use crate::extract::Auth;

/// Delist a listing (members of its organisation): it is no longer found or bookable.
/// Bookings already made stand, and its reports stay published. Delisting again is a no-op.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "delete_listing", 
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    responses(
        (status = 204, description = "Delisted"),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[delete("/listings/{id}")]
pub async fn delete(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    app.delist_listing(caller, id.into_inner().into()).await?;
    Ok(HttpResponse::NoContent().finish())
}
