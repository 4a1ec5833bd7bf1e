use actix_web::{HttpResponse, delete, web};
use app::App;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{Forbidden, InvalidToken, NotFound, Unauthenticated};
use crate::extract::Auth;

/// Delete one of the caller's SSH keys: agents stop installing it within their next answer.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "delete_ssh_key",
    tag = "accounts",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The key's id")),
    responses(
        (status = 204, description = "Deleted"),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[delete("/me/ssh-keys/{id}")]
pub async fn delete(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    app.delete_ssh_key(caller, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}
