use actix_web::{HttpResponse, get, web};
use app::App;
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, NotFound, Unauthenticated};
use crate::extract::Auth;

#[derive(Debug, Serialize, ToSchema)]
pub struct UsageTotalsView {
    pub requests: u64,
    pub prompt_tokens: u64,
    pub output_tokens: u64,
}

/// A bucket (five minutes, `gateway_bucket_secs`) of the booking's requests through the
/// gateway, and what they delivered against the verified report.
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
    /// The verified per-stream tok/s the bucket's requests are held to: each request's cell
    /// of the report (the time per token interpolated between the measured contexts just
    /// below and just above its prompt and output, at the smallest measured concurrency at or
    /// above its own), median over the bucket; `null` when no request ran at a context and
    /// load the report measured as valid.
    pub verified_tok_s: Option<f64>,
    /// Median over the bucket's judged requests of each one's delivered share of its cell:
    /// the smallest of its per-stream speed, its pace after the TTFT allowed, and its TTFT
    /// against the one allowed (the gateway's own timings; the tokens the renter received:
    /// the fewest of the engine's usage, the text chunks × the report's tokens per chunk,
    /// the bytes of text and `max_tokens`). A request the engine failed (5xx, a broken
    /// stream, one cut before `[DONE]`, an unreadable chunk) delivered 0. `null` with fewer
    /// than 5 judged requests.
    pub delivered_fraction: Option<f64>,
    /// Requests held to the report: streamed, of the listing's model, asking only for what
    /// the benchmark sends within each value's documented range, at a context and load the
    /// report measured as valid.
    pub judged_requests: u64,
    /// Requests that would have been judged but the engine refused (4xx): the renter's own,
    /// never judged. Over a fifth of the bucket's such requests brings the listing's spot
    /// check forward.
    pub rejected_requests: u64,
    /// The longest the gateway's writes to the client stayed blocked (streams only).
    pub client_stall_ms_max: Option<f64>,
    /// Writes to the client stayed blocked for more than 50 ms: the bucket earns no credit
    /// (a slow reader slows the stream, not the machine).
    pub slow_reader: bool,
    /// Why the bucket was not judged at all: `direct_access` when a booking of the same
    /// machine that reached it directly (SSH or an HTTPS URL) held it during the bucket (its
    /// renter could load the engine around the gateway); `null` otherwise.
    #[schema(value_type = Option<String>)]
    pub unjudged_reason: Option<&'static str>,
    /// Credit the bucket earned under the booking's guarantee, in the booking's currency's
    /// minor units (0 until the bucket is judged, a bucket's length after it ends).
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
/// for what it received), and per five minutes the delivered performance the gateway saw,
/// against the verified report, with the credits a performance guarantee gave.
/// For the renter and the provider's members.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_booking_usage", 
    tag = "bookings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The booking's id")),
    responses(
        (status = 200, description = "Totals and five-minute buckets", body = UsageView),
        Problems<(InvalidToken, Unauthenticated, NotFound)>,
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
                verified_tok_s: b.verified_tok_s,
                delivered_fraction: b.delivered_fraction,
                judged_requests: b.judged_requests,
                rejected_requests: b.rejected_requests,
                client_stall_ms_max: b.client_stall_ms_max,
                slow_reader: b.slow_reader,
                unjudged_reason: b.unjudged_reason,
                credit_minor: b.credit_minor,
            })
            .collect(),
    }))
}
