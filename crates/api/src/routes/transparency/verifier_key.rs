use actix_web::{HttpResponse, get, web};
use app::App;

use crate::error::ApiError;

/// The signed-note verifier key of the current signing key, which signs checkpoints:
/// `<origin>+<key hash hex>+<base64(0x01 ‖ Ed25519 public key)>`. Earlier keys stay listed,
/// each with its `log_verifier_key`, at `GET /v1/signing-keys`. Public.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_log_verifier_key", 
    tag = "log",
    responses((status = 200, description = "The verifier key", content_type = "text/plain", body = String))
)]
#[get("/log/verifier-key")]
pub async fn verifier_key(app: web::Data<App>) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .body(format!("{}\n", app.log_verifier_key()?)))
}
