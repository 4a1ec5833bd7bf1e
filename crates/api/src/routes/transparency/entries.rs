use actix_web::{HttpResponse, get, web};
use app::App;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, ValidationFailed};
use crate::extract::Query;

#[derive(Debug, Deserialize, IntoParams)]
pub struct EntriesQuery {
    /// The first index (default 0).
    pub start: Option<u64>,
    /// One past the last index (default: the log's size).
    pub end: Option<u64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LogEntryView {
    pub index: u64,
    /// Standard base64 of the leaf's bytes: the report's DSSE envelope as RFC 8785 canonical
    /// JSON; for a `private` entry, the SHA-256 of that.
    pub leaf: String,
    /// The logged report: a listing's report, an organisation report, a community run or an
    /// uptime statement; `null` for a `private` entry (its existence and place are provable,
    /// nothing more).
    pub report_id: Option<Uuid>,
    /// `verification`, `spot_check`, `organisation` (an organisation report),
    /// `community_receipt` (the receipt of a community run), `uptime` (a listing's signed
    /// uptime statement over one period) or `log_rollback` (the signed statement that the log
    /// was restored behind a checkpoint it had published, and goes on from the restored tree).
    pub kind: String,
    /// The leaf is a digest: the envelope itself is not public.
    pub private: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct EntriesView {
    pub items: Vec<LogEntryView>,
    /// The `start` of the next page when the range holds more (pages hold at most 256).
    pub next_cursor: Option<u64>,
}

/// The log's leaves `[start, end)`, in order, so that a monitor can replay the log and
/// recompute its root. Public.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_log_entries", 
    tag = "log",
    params(EntriesQuery),
    responses(
        (status = 200, description = "A page of entries", body = EntriesView),
        Problems<(InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/log/entries")]
pub async fn entries(
    app: web::Data<App>,
    query: Query<EntriesQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = app.log_entries(query.start.unwrap_or(0), query.end).await?;
    Ok(HttpResponse::Ok().json(EntriesView {
        items: page
            .items
            .into_iter()
            .map(|e| LogEntryView {
                index: e.index,
                leaf: STANDARD.encode(&e.leaf),
                report_id: (!e.private).then_some(e.report_id),
                kind: e.kind,
                private: e.private,
            })
            .collect(),
        next_cursor: page.next_cursor,
    }))
}
