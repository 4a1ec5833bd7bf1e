use actix_web::{HttpResponse, get, web};
use app::App;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;

/// A published signing key.
#[derive(Debug, Serialize, ToSchema)]
pub struct SigningKeyView {
    /// `ed25519:` and the first 16 bytes of SHA-256 of the public key, hex.
    pub key_id: String,
    /// Always `ed25519`.
    pub algorithm: String,
    /// Standard base64 of the 32-byte raw public key.
    pub public_key: String,
    pub created_at: String,
    /// Set once the key stopped signing; it still verifies what it signed.
    pub retired_at: Option<String>,
    /// The key as a C2SP signed-note verifier key for the transparency log's checkpoints
    /// (`<origin>+<key hash hex>+<base64(0x01 ‖ public key)>`).
    pub log_verifier_key: Option<String>,
}

/// The public keys that sign reports, active and retired. Verify offline with
/// `gpumarket verify report.json --keys signing-keys.json`.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_signing_keys", 
    tag = "reports",
    responses((status = 200, description = "Every published key", body = Vec<SigningKeyView>))
)]
#[get("/signing-keys")]
pub async fn signing_keys(app: web::Data<App>) -> Result<HttpResponse, ApiError> {
    let keys: Vec<SigningKeyView> = app
        .signing_keys()
        .await?
        .into_iter()
        .map(|k| SigningKeyView {
            log_verifier_key: app.log_verifier_key_of(&k.public_key),
            key_id: k.key_id,
            algorithm: k.algorithm,
            public_key: k.public_key,
            created_at: k.created_at,
            retired_at: k.retired_at,
        })
        .collect();
    Ok(HttpResponse::Ok().json(keys))
}
