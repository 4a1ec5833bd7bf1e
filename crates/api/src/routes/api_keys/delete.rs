use actix_web::{HttpResponse, delete, web};
use app::App;
use domain::ApiKeyId;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, NotFound, Unauthenticated};
use crate::extract::Auth;

/// Revoke one of the caller's API keys. It stops working at once.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "delete_api_key", 
    tag = "accounts",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The key's id")),
    responses(
        (status = 204, description = "Revoked"),
        Problems<(InvalidToken, Unauthenticated, NotFound)>,
    )
)]
#[delete("/api-keys/{id}")]
pub async fn delete(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    app.revoke_api_key(caller, ApiKeyId::from_uuid(id.into_inner()))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
