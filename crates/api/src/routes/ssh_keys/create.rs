use actix_web::{HttpResponse, post, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;

use super::SshKeyView;
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    Forbidden, InvalidToken, SshKeyExists, SshKeyLimit, Unauthenticated, ValidationFailed,
};
use crate::extract::{Auth, Json};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddSshKeyRequest {
    /// A label to tell keys apart.
    pub name: String,
    /// One OpenSSH public key line, as in a `.pub` file: ed25519, ECDSA, or RSA of at least
    /// 3,072 bits. Its comment is not kept.
    pub public_key: String,
}

/// Add an SSH public key to the caller's account: a provider's agent lets it log in to the
/// machines of the caller's bookings. At most ten keys; each once.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "add_ssh_key",
    tag = "accounts",
    security(("bearer" = [])),
    request_body = AddSshKeyRequest,
    responses(
        (status = 201, description = "Kept", body = SshKeyView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, ValidationFailed, SshKeyLimit, SshKeyExists)>,
    )
)]
#[post("/me/ssh-keys")]
pub async fn create(
    app: web::Data<App>,
    Auth(caller): Auth,
    Json(body): Json<AddSshKeyRequest>,
) -> Result<HttpResponse, ApiError> {
    let key = app
        .add_ssh_key(caller, &body.name, &body.public_key)
        .await?;
    Ok(HttpResponse::Created().json(SshKeyView::from(key)))
}
