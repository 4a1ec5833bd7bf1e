use actix_web::{HttpResponse, get, web};
use app::App;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::views::Page;

#[derive(Debug, Deserialize, IntoParams)]
pub struct LeaderboardQuery {
    /// Only cells at this context (tokens).
    pub context: Option<i64>,
    /// Only cells at this concurrency.
    pub concurrency: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardRowView {
    pub gpu_model: String,
    pub model: String,
    pub context_tokens: i64,
    pub concurrency: i64,
    pub total_tok_s: f64,
    pub per_request_tok_s: Option<f64>,
    pub report_id: Uuid,
    pub listing_id: Uuid,
}

/// The best verified total tok/s per GPU model and engine model, from valid cells of
/// compliant reports; each row links its report.
#[utoipa::path(
    tag = "reports",
    params(LeaderboardQuery),
    responses(
        (status = 200, description = "Best first", body = Page<LeaderboardRowView>),
        (status = 400, description = "A malformed filter", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/leaderboard")]
pub async fn leaderboard(
    app: web::Data<App>,
    query: web::Query<LeaderboardQuery>,
) -> Result<HttpResponse, ApiError> {
    let rows = app.leaderboard(query.context, query.concurrency).await?;
    let items = rows
        .into_iter()
        .map(|r| LeaderboardRowView {
            gpu_model: r.gpu_model,
            model: r.model,
            context_tokens: r.context_tokens,
            concurrency: r.concurrency,
            total_tok_s: r.total_tok_s,
            per_request_tok_s: r.per_request_tok_s,
            report_id: r.report_id.into(),
            listing_id: r.listing_id.into(),
        })
        .collect();
    Ok(HttpResponse::Ok().json(Page::all(items)))
}
