use actix_web::{HttpResponse, get, web};
use app::App;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;

#[derive(Debug, Serialize, ToSchema)]
pub struct LogStatusView {
    /// The log's leaves.
    pub size: u64,
    /// The latest signed checkpoint's size (`null` before the first).
    pub checkpoint_size: Option<u64>,
    /// `active`, or `held`: the log was restored behind a checkpoint it had published, and
    /// nothing is signed (reports, statements, checkpoints) until the rollback is accepted.
    pub signing: &'static str,
    /// While `held`: the size of the published checkpoint the restored log is behind.
    pub held_behind: Option<u64>,
}

/// Where the log stands, and whether it signs. Public.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_log_status",
    tag = "log",
    responses((status = 200, description = "The log's state", body = LogStatusView))
)]
#[get("/log/status")]
pub async fn status(app: web::Data<App>) -> Result<HttpResponse, ApiError> {
    let status = app.log_status().await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-cache"))
        .json(LogStatusView {
            size: status.size,
            checkpoint_size: status.checkpoint_size,
            signing: if status.held_behind.is_some() {
                "held"
            } else {
                "active"
            },
            held_behind: status.held_behind,
        }))
}
