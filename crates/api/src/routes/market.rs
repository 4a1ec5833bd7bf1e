//! `GET /v1/market/history` (issue 59): the market's price history per GPU, by hour or day —
//! rows the sweeper rolled up once each bucket closed.

use actix_web::{HttpResponse, get, web};
use app::App;
use app::market::history::{History, HistoryQuery};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, ValidationFailed};
use crate::extract::Query;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryParams {
    /// A GPU of the catalog, by id, name or alias; every listing when absent (`*`).
    pub gpu: Option<String>,
    /// `hour` or `day` (default).
    pub bucket: Option<String>,
    /// Buckets starting in `[from, until)`; by default the last 30 days (48 hours by hour).
    /// At most 366 days, or 31 days of hours.
    pub from: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    /// The ISO 4217 currency of the prices (default `USD`): listings priced in another are
    /// in that currency's rows.
    pub currency: Option<String>,
}

/// The listed price per GPU-hour across listings, minor units.
#[derive(Debug, Serialize, ToSchema)]
pub struct PriceSpreadView {
    pub p10: i64,
    pub median: i64,
    pub p90: i64,
    pub currency: String,
}

/// One closed bucket.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryPointView {
    pub start: DateTime<Utc>,
    /// Listings that existed during the bucket, and their GPUs.
    pub listings: i64,
    pub gpus_listed: i64,
    /// GPU-hours bookings held during the bucket (a provider's own members' left out).
    pub gpu_hours_booked: f64,
    /// Percentiles (nearest rank) of the listed price per GPU-hour, across listings, as
    /// listed when the bucket was rolled up.
    pub price_per_gpu_hour: PriceSpreadView,
    /// The lowest bid per GPU-hour of an interruptible booking that held GPUs in the bucket
    /// (a provider's own members' left out); `null` when none did.
    pub clearing_bid_per_gpu_hour: Option<i64>,
    /// The median of the listings' verified price per million output tokens; `null` when
    /// none is verified.
    pub price_per_mtok_median: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryView {
    /// The catalog GPU's id, or `*`.
    pub gpu: String,
    pub bucket: &'static str,
    pub currency: String,
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    /// Oldest first; a bucket appears once it has closed and been rolled up.
    pub items: Vec<HistoryPointView>,
}

impl From<History> for HistoryView {
    fn from(h: History) -> Self {
        let currency = h.currency.code().to_owned();
        Self {
            gpu: h.gpu,
            bucket: h.bucket.as_str(),
            currency: currency.clone(),
            from: h.from,
            until: h.until,
            items: h
                .items
                .into_iter()
                .map(|p| HistoryPointView {
                    start: p.start,
                    listings: p.listings,
                    gpus_listed: p.gpus_listed,
                    gpu_hours_booked: p.gpu_hours_booked,
                    price_per_gpu_hour: PriceSpreadView {
                        p10: p.price_p10.minor(),
                        median: p.price_median.minor(),
                        p90: p.price_p90.minor(),
                        currency: currency.clone(),
                    },
                    clearing_bid_per_gpu_hour: p.clearing_bid.map(|b| b.minor()),
                    price_per_mtok_median: p.price_per_mtok_median,
                })
                .collect(),
        }
    }
}

impl From<HistoryParams> for HistoryQuery {
    fn from(p: HistoryParams) -> Self {
        Self {
            gpu: p.gpu,
            bucket: p.bucket,
            currency: p.currency,
            from: p.from,
            until: p.until,
        }
    }
}

/// The market's price history of a GPU, by hour or day. Public.
#[utoipa::path(extensions(("x-rate-class" = json!("search"))), operation_id = "market_history",
    tag = "listings",
    params(HistoryParams),
    responses(
        (status = 200, description = "The closed buckets in the range", body = HistoryView),
        Problems<(InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/market/history")]
pub async fn history(
    app: web::Data<App>,
    query: Query<HistoryParams>,
) -> Result<HttpResponse, ApiError> {
    let history = app.market_history(query.into_inner().into()).await?;
    Ok(HttpResponse::Ok().json(HistoryView::from(history)))
}
