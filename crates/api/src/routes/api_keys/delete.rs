use actix_web::{HttpResponse, delete, web};
use app::App;
use domain::ApiKeyId;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::extract::Auth;

/// Revoke one of the caller's API keys. It stops working at once.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The key's id")),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "The caller has no such active key", body = Problem, content_type = "application/problem+json"),
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
