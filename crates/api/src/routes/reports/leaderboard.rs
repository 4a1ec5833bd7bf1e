use actix_web::{HttpResponse, get, web};
use app::App;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, ValidationFailed};
use crate::extract::Query;
use crate::views::Page;

#[derive(Debug, Deserialize, IntoParams)]
pub struct LeaderboardQuery {
    /// Only cells at this context (tokens).
    pub context: Option<i64>,
    /// Only cells at this concurrency.
    pub concurrency: Option<i64>,
    /// `verified` (default: the platform's signed reports) or `community` (submitted runs);
    /// never mixed.
    pub source: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardRowView {
    /// `verified` or `community`.
    pub source: &'static str,
    pub gpu_model: String,
    pub model: String,
    /// The engine a row's report measured (`vllm`, `llamacpp`, `sglang`, `tgi`; a community
    /// run's as its submitter's report names it): rows are per GPU, model and engine. Absent
    /// for reports signed before engines were named, and for community reports naming none
    /// the standard knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    pub context_tokens: i64,
    pub concurrency: i64,
    pub total_tok_s: f64,
    pub per_request_tok_s: Option<f64>,
    /// A verified row's report and listing.
    pub report_id: Option<Uuid>,
    pub listing_id: Option<Uuid>,
    /// A community row's run.
    pub run_id: Option<Uuid>,
}

/// The best total tok/s per GPU model, engine model and engine: from valid cells of compliant
/// verified reports (each row links its report), or with `source=community` from community
/// runs (each row links its run).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_leaderboard", 
    tag = "reports",
    params(LeaderboardQuery),
    responses(
        (status = 200, description = "Best first", body = Page<LeaderboardRowView>),
        Problems<(InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/leaderboard")]
pub async fn leaderboard(
    app: web::Data<App>,
    query: Query<LeaderboardQuery>,
) -> Result<HttpResponse, ApiError> {
    let items = match query.source.as_deref() {
        None | Some("verified") => app
            .leaderboard(query.context, query.concurrency)
            .await?
            .into_iter()
            .map(|r| LeaderboardRowView {
                source: "verified",
                gpu_model: r.gpu_model,
                model: r.model,
                engine: r.engine,
                context_tokens: r.context_tokens,
                concurrency: r.concurrency,
                total_tok_s: r.total_tok_s,
                per_request_tok_s: r.per_request_tok_s,
                report_id: Some(r.report_id.into()),
                listing_id: Some(r.listing_id.into()),
                run_id: None,
            })
            .collect(),
        Some("community") => app
            .community_leaderboard(query.context, query.concurrency)
            .await?
            .into_iter()
            .map(|r| LeaderboardRowView {
                source: "community",
                gpu_model: r.gpu_model,
                model: r.model,
                engine: r.engine,
                context_tokens: r.context_tokens,
                concurrency: r.concurrency,
                total_tok_s: r.total_tok_s,
                per_request_tok_s: r.per_request_tok_s,
                report_id: None,
                listing_id: None,
                run_id: Some(r.run_id),
            })
            .collect(),
        Some(_) => {
            return Err(app::AppError::from(domain::ValidationError::new(
                "source",
                "must be `verified` or `community`",
            ))
            .into());
        }
    };
    Ok(HttpResponse::Ok().json(Page::all(items)))
}
