use actix_web::{HttpResponse, get, web};
use app::App;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, ValidationFailed};
use crate::extract::Query;

#[derive(Debug, Deserialize, IntoParams)]
pub struct ConsistencyQuery {
    /// The older tree size.
    pub first: u64,
    /// The newer tree size, at most the log's size.
    pub second: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ConsistencyView {
    /// RFC 9162 consistency proof, standard base64 of each hash.
    pub proof: Vec<String>,
}

/// The RFC 9162 proof that the tree of `second` leaves extends the tree of `first` leaves
/// (empty when `first` is 0 or equals `second`). Public.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_log_consistency", 
    tag = "log",
    params(ConsistencyQuery),
    responses(
        (status = 200, description = "The proof", body = ConsistencyView),
        Problems<(InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/log/consistency")]
pub async fn consistency(
    app: web::Data<App>,
    query: Query<ConsistencyQuery>,
) -> Result<HttpResponse, ApiError> {
    let proof = app.log_consistency(query.first, query.second).await?;
    Ok(HttpResponse::Ok().json(ConsistencyView { proof }))
}
