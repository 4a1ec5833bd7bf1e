//! `GET /v1/quote` (issue 59): what a booking request would cost and whether it would hold
//! right now — what it would displace, what would refuse it, and the bid that would hold. No
//! side effects; it spends the search budget.

use actix_web::{HttpResponse, get, web};
use app::App;
use app::market::quotes::QuoteRequest;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::Problems;
use crate::error::problem::{InvalidParameter, NotFound, ValidationFailed};
use crate::error::{ApiError, Problem};
use crate::extract::Query;
use crate::views::MoneyView;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct QuoteQuery {
    pub listing_id: Uuid,
    pub gpu_count: i64,
    /// The half-open interval `[starts_at, ends_at)`, RFC 3339.
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// `on_demand` (default) or `interruptible` (with `bid_per_gpu_hour`).
    pub tier: Option<String>,
    /// The bid per GPU-hour, minor units of the listing's currency (interruptible).
    pub bid_per_gpu_hour: Option<i64>,
}

/// What a booking request would cost and do, were it made now.
#[derive(Debug, Serialize, ToSchema)]
pub struct QuoteView {
    pub listing_id: Uuid,
    pub gpu_count: i32,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    /// `on_demand` or `interruptible`.
    pub tier: &'static str,
    /// The price per GPU-hour it would be made at: the listing's, or the bid.
    pub amount_per_gpu_hour: i64,
    pub bid_per_gpu_hour: Option<i64>,
    /// What it would cost.
    pub total: MoneyView,
    /// Whether it would be made now by the machine's capacity rules (a renter's quota and
    /// budget are judged when booking). An interruptible request that is outbid does not hold.
    pub holds: bool,
    /// Why it would not hold: the problem a booking would answer now (`code`, `detail`, and
    /// `earliest_starts_at` when a running interruptible booking's notice is in the way).
    pub refusal: Option<Problem>,
    /// The interruptible bookings it would displace now (lowest bids first), and their GPUs.
    pub displaces: DisplacesView,
    /// The lowest bid per GPU-hour that would hold now for these GPUs over this interval;
    /// `null` when the listing takes no interruptible bookings or no bid would hold.
    pub min_bid_per_gpu_hour_now: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DisplacesView {
    pub bookings: usize,
    pub gpus: i32,
}

/// Quote a booking request. Public; no side effects.
#[utoipa::path(extensions(("x-rate-class" = json!("search"))), operation_id = "quote",
    tag = "bookings",
    params(QuoteQuery),
    responses(
        (status = 200, description = "What it would cost and do now", body = QuoteView),
        Problems<(InvalidParameter, NotFound, ValidationFailed)>,
    )
)]
#[get("/quote")]
pub async fn quote(
    app: web::Data<App>,
    query: Query<QuoteQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let quote = app
        .quote(&QuoteRequest {
            listing_id: q.listing_id.into(),
            gpu_count: q.gpu_count,
            starts_at: q.starts_at,
            ends_at: q.ends_at,
            tier: q.tier.as_deref(),
            bid_per_gpu_hour: q.bid_per_gpu_hour,
        })
        .await?;
    let now = Utc::now();
    Ok(HttpResponse::Ok().json(QuoteView {
        listing_id: quote.listing_id.into(),
        gpu_count: quote.gpu_count,
        starts_at: quote.starts_at,
        ends_at: quote.ends_at,
        tier: quote.tier.as_str(),
        amount_per_gpu_hour: quote.per_gpu_hour.minor(),
        bid_per_gpu_hour: match quote.tier {
            domain::booking::Tier::Interruptible { bid } => Some(bid),
            domain::booking::Tier::OnDemand => None,
        },
        total: quote.total.into(),
        holds: quote.refusal.is_none(),
        refusal: quote.refusal.map(|refusal| {
            ApiError::from(app::market::bookings::refusal_error(refusal, now)).problem()
        }),
        displaces: DisplacesView {
            bookings: quote.displaces_bookings,
            gpus: quote.displaces_gpus,
        },
        min_bid_per_gpu_hour_now: quote.min_bid_per_gpu_hour_now,
    }))
}
