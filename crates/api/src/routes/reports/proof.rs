use actix_web::{HttpResponse, get, web};
use app::App;
use app::trust::transparency::ProofOutcome;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, InvalidToken, NotFound, ValidationFailed};
use crate::extract::MaybeAuth;
use crate::extract::Query;

#[derive(Debug, Deserialize, IntoParams)]
pub struct ProofQuery {
    /// Prove against the checkpoint of this tree size instead of the latest.
    pub tree_size: Option<u64>,
    /// A share link's token, for a private report.
    pub share: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProofView {
    pub leaf_index: u64,
    pub tree_size: u64,
    /// RFC 9162 inclusion proof, leaf to root, standard base64 of each hash.
    pub inclusion_proof: Vec<String>,
    /// The signed checkpoint (C2SP signed note) whose root the proof leads to.
    pub checkpoint: String,
}

/// The proof that a report (a listing's report or an organisation report) is in the
/// transparency log: its leaf's inclusion in the latest checkpoint. The leaf is the report's
/// DSSE envelope as RFC 8785 canonical JSON; its hash is SHA-256(0x00 ‖ leaf). Before a
/// checkpoint covers the report: 202 with `Retry-After`. Public, but a private report's
/// only for those who may read the report.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_report_proof", 
    tag = "log",
    params(("id" = Uuid, Path, description = "The report's id"), ProofQuery),
    responses(
        (status = 200, description = "The inclusion proof", body = ProofView),
        (status = 202, description = "Logged, but in no checkpoint yet: ask again after `Retry-After` seconds (`{status: pending, retry_after_secs}`)", body = Object),
        Problems<(InvalidToken, InvalidParameter, NotFound, ValidationFailed)>,
    )
)]
#[get("/reports/{id}/proof")]
pub async fn proof(
    app: web::Data<App>,
    id: web::Path<Uuid>,
    query: Query<ProofQuery>,
    MaybeAuth(viewer): MaybeAuth,
) -> Result<HttpResponse, ApiError> {
    let proof = app
        .report_proof(
            id.into_inner(),
            query.tree_size,
            viewer,
            query.share.as_deref(),
        )
        .await?;
    match proof {
        ProofOutcome::Ready(p) => Ok(HttpResponse::Ok().json(ProofView {
            leaf_index: p.leaf_index,
            tree_size: p.tree_size,
            inclusion_proof: p.inclusion_proof,
            checkpoint: p.checkpoint,
        })),
        ProofOutcome::Pending { retry_after_secs } => Ok(HttpResponse::Accepted()
            .insert_header(("Retry-After", retry_after_secs.to_string()))
            .json(serde_json::json!({"status": "pending", "retry_after_secs": retry_after_secs}))),
    }
}
