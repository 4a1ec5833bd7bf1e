use actix_web::{HttpResponse, delete, web};
use app::App;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::extract::Auth;

/// Delist a listing (members of its organisation): it is no longer found or bookable.
/// Bookings already made stand, and its reports stay published. Delisting again is a no-op.
#[utoipa::path(
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    responses(
        (status = 204, description = "Delisted"),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not a member of the listing's organisation", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such listing", body = Problem, content_type = "application/problem+json"),
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
