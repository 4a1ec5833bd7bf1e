use actix_web::{HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, NotFound};
use crate::extract::MaybeAuth;
use crate::views::ListingView;

/// A listing, with its verification badge and headline figures. Public; the members of its
/// organisation also see its engine's address and access details.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_listing", 
    tag = "listings",
    params(("id" = Uuid, Path, description = "The listing's id")),
    responses(
        (status = 200, description = "The listing", body = ListingView),
        Problems<(InvalidToken, NotFound)>,
    )
)]
#[get("/listings/{id}")]
pub async fn get(
    app: web::Data<App>,
    id: web::Path<Uuid>,
    MaybeAuth(viewer): MaybeAuth,
) -> Result<HttpResponse, ApiError> {
    let listing = app.listing(id.into_inner().into()).await?;
    let member = app.is_member(viewer, listing.org_id).await?;
    Ok(HttpResponse::Ok().json(ListingView::new(listing, member)))
}
