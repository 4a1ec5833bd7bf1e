use actix_web::{HttpResponse, get, web};
use app::App;

use crate::error::ApiError;

/// The latest checkpoint: a C2SP `tlog-checkpoint` (origin, tree size, base64 root hash)
/// signed as a C2SP signed note by the current signing key. A new one is made at most every
/// `log_checkpoint_secs` when the log grew. Public.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_log_checkpoint", 
    tag = "log",
    responses((status = 200, description = "The signed note", content_type = "text/plain", body = String))
)]
#[get("/log/checkpoint")]
pub async fn checkpoint(app: web::Data<App>) -> Result<HttpResponse, ApiError> {
    let checkpoint = app.latest_checkpoint().await?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; charset=utf-8")
        .insert_header(("Cache-Control", "no-cache"))
        .body(checkpoint.note))
}
