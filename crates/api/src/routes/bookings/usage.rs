use actix_web::{HttpResponse, get, web};
use app::App;
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{ApiError, Problem};
use crate::extract::Auth;

#[derive(Debug, Serialize, ToSchema)]
pub struct UsageTotalsView {
    pub requests: u64,
    pub prompt_tokens: u64,
    pub output_tokens: u64,
}

/// Five minutes of the booking's requests through the gateway.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageBucketView {
    pub start: DateTime<Utc>,
    pub requests: u64,
    pub prompt_tokens: u64,
    pub output_tokens: u64,
    /// Median time to first token the gateway saw (streams only).
    pub ttft_ms_p50: Option<f64>,
    /// Median per-stream output tok/s the gateway saw (streams only).
    pub per_stream_tok_s_p50: Option<f64>,
    /// Most streams open at once.
    pub concurrency_max: u64,
    /// Credit accrued for this bucket, in the booking's currency's minor units.
    pub credit_minor: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct UsageView {
    pub booking_id: Uuid,
    pub totals: UsageTotalsView,
    pub buckets: Vec<UsageBucketView>,
}

/// What the booking used through the metered gateway: prompt and output tokens (the
/// engine's usage capped by each request's `max_tokens`; a client that went away is metered
/// for what it received), and per five minutes the delivered performance the gateway saw.
/// For the renter and the provider's members.
#[utoipa::path(
    tag = "bookings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The booking's id")),
    responses(
        (status = 200, description = "Totals and five-minute buckets", body = UsageView),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such booking (or not yours to see)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/bookings/{id}/usage")]
pub async fn usage(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let u = app.booking_usage(caller, id).await?;
    Ok(HttpResponse::Ok().json(UsageView {
        booking_id: id,
        totals: UsageTotalsView {
            requests: u.requests,
            prompt_tokens: u.prompt_tokens,
            output_tokens: u.output_tokens,
        },
        buckets: u
            .buckets
            .into_iter()
            .map(|b| UsageBucketView {
                start: b.start,
                requests: b.requests,
                prompt_tokens: b.prompt_tokens,
                output_tokens: b.output_tokens,
                ttft_ms_p50: b.ttft_ms_p50,
                per_stream_tok_s_p50: b.per_stream_tok_s_p50,
                concurrency_max: b.concurrency_max,
                credit_minor: b.credit_minor,
            })
            .collect(),
    }))
}
