use actix_web::{HttpResponse, get, web};
use app::App;
use app::market::listings::SearchParams;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, ValidationFailed};
use crate::extract::Query;
use crate::json::{self, Hit, ListingJson};
use crate::views::{MatchView, Page, SearchHitView};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// Exactly this GPU model (e.g. `NVIDIA GeForce RTX 3060`).
    pub gpu_model: Option<String>,
    /// A GPU of the catalog, by its id (e.g. `rtx-3060-12gb`), name or an alias, in any case:
    /// listings that name it as their `catalog.gpu` or give one of its names as their
    /// `hardware.gpu_model`. An unknown GPU is a 422.
    pub gpu: Option<String>,
    /// At least this much VRAM per GPU, GB.
    pub min_vram_gb: Option<i64>,
    /// At most this price per GPU-hour, minor units.
    pub max_price: Option<i64>,
    /// Only prices in this ISO 4217 currency.
    pub currency: Option<String>,
    /// Exactly this region.
    pub region: Option<String>,
    /// `true`: only listings with a compliant verification report.
    pub verified: Option<bool>,
    /// `true`: only listings whose machine's agent reports the hardware the listing claims
    /// (the machine's word, not an attestation).
    pub hardware_confirmed: Option<bool>,
    /// At least this verified total tok/s — at `context`×`concurrency` when given, else the
    /// listing's best cell.
    pub min_total_tok_s: Option<f64>,
    /// At most this energy per output token, J, at `context`×`concurrency` (required): the
    /// GPUs' energy as the machine's agent sampled it. Listings without it are left out.
    pub max_j_per_token: Option<f64>,
    /// The decode cell's context (tokens) that measured figures refer to; needs `concurrency`.
    pub context: Option<i64>,
    /// The decode cell's concurrency; needs `context`.
    pub concurrency: Option<i64>,
    /// With `available_until`: only machines available over `[available_from, available_until)`
    /// with `gpu_count` GPUs free all along.
    pub available_from: Option<DateTime<Utc>>,
    pub available_until: Option<DateTime<Utc>>,
    /// GPUs needed (default 1 with an interval): machines with at least this many, free
    /// over the interval when one is given.
    pub gpu_count: Option<i64>,
    /// Only machines whose 30-day uptime (`reliability`, from liveness probes) is at least
    /// this, 0 to 1; machines never probed are left out.
    pub min_reliability: Option<f64>,
    /// Only machines whose verified report measured this engine: `vllm`, `llamacpp`,
    /// `sglang` or `tgi` (unverified machines are left out).
    pub engine: Option<String>,
    /// `price` (cheapest first, default), `tok_s` (fastest first), `price_per_mtok`
    /// (cheapest per million output tokens first), `reliability` (most reliable first) or
    /// `j_per_token` (least energy per output token first; needs `context` and
    /// `concurrency`). The measured sorts list only listings with that figure.
    pub sort: Option<String>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<u64>,
}

impl From<SearchQuery> for SearchParams {
    fn from(q: SearchQuery) -> Self {
        Self {
            gpu_model: q.gpu_model,
            gpu: q.gpu,
            min_vram_gb: q.min_vram_gb,
            max_price: q.max_price,
            currency: q.currency,
            region: q.region,
            verified: q.verified,
            hardware_confirmed: q.hardware_confirmed,
            min_total_tok_s: q.min_total_tok_s,
            max_j_per_token: q.max_j_per_token,
            context: q.context,
            concurrency: q.concurrency,
            available_from: q.available_from,
            available_until: q.available_until,
            gpu_count: q.gpu_count,
            min_reliability: q.min_reliability,
            engine: q.engine,
            sort: q.sort,
            cursor: q.cursor,
            limit: q.limit,
        }
    }
}

/// Search listings by hardware, price, region, free capacity and measured performance.
/// Public. Results are pages `{items, next_cursor}`; pass `cursor` for the next one.
#[utoipa::path(extensions(("x-rate-class" = json!("search"))), operation_id = "search_listings", 
    tag = "listings",
    params(SearchQuery),
    responses(
        (status = 200, description = "One page of matching listings", body = Page<SearchHitView>),
        Problems<(InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/listings")]
pub async fn search(
    app: web::Data<App>,
    query: Query<SearchQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = app.search_listings(query.into_inner().into()).await?;
    let now = Utc::now();
    let mut hits = Vec::with_capacity(page.items.len());
    for hit in &page.items {
        let listing = ListingJson::kept(hit)?;
        hits.push(Hit {
            listing,
            age_s: listing.age_s(now),
            figures: MatchView {
                total_tok_s: hit.total_tok_s,
                price_per_mtok: hit.price_per_mtok,
                energy_j_per_token: hit.energy_j_per_token,
            },
        });
    }
    let body = json::search_page(&hits, page.next_cursor.as_deref())?;
    Ok(HttpResponse::Ok()
        .content_type(actix_web::http::header::ContentType::json())
        .body(body))
}
