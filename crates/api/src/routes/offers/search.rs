use actix_web::{HttpResponse, get, web};
use app::App;
use app::market::offers::{Offer, OfferParams, OffersPage, Plan};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, ValidationFailed};
use crate::extract::Query;
use crate::views::{ListingView, MoneyView};

/// A service-level objective, and which listings may meet it.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OffersQuery {
    /// The model: a catalog model's id, name or alias (listings that name it as their
    /// `catalog.model`), or the name an engine serves (`engine.model`).
    pub model: Option<String>,
    /// The longest prompt, tokens: figures come from the smallest measured context at least
    /// this long.
    pub context: Option<i64>,
    /// Users to serve at once (1–10,000).
    pub users: Option<i64>,
    /// The first token within this many ms for 99 in 100 requests (estimated: the cell's
    /// TTFT p99 plus a fresh prompt's prefill).
    pub ttft_p99_ms: Option<f64>,
    /// No gap between tokens longer than this many ms for 99 in 100 tokens.
    pub itl_p99_ms: Option<f64>,
    /// Prices in this ISO 4217 currency (default `USD`): prices in different currencies do
    /// not add up.
    pub currency: Option<String>,
    /// At most this price per hour for a whole machine, minor units.
    pub max_price_per_hour: Option<i64>,
    /// Only machines whose 30-day uptime (`reliability`) is at least this, 0 to 1.
    pub min_reliability: Option<f64>,
    /// Only machines whose verified report measured this engine: `vllm`, `llamacpp`,
    /// `sglang` or `tgi`.
    pub engine: Option<String>,
    /// With `available_until`: only machines free (every GPU) over the whole interval.
    pub available_from: Option<DateTime<Utc>>,
    pub available_until: Option<DateTime<Utc>>,
    /// `true`: also list verified listings that cannot meet the objective, with `meets:
    /// false` and the reason, after those that can.
    pub include_failing: Option<bool>,
    /// `cost_per_user_hour` (default: cheapest per user-hour first) or `j_per_token` (least
    /// energy per output token at the load that meets the objective first, from the GPU
    /// samples of the machine's agent; offers without the figure are left out).
    pub sort: Option<String>,
    /// At most this energy per output token at that load, J (offers without it are left
    /// out).
    pub max_j_per_token: Option<f64>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<u64>,
}

/// What a machine shows at the load where it meets the objective.
#[derive(Debug, Serialize, ToSchema)]
pub struct GoodputView {
    /// Users (concurrent streams) one machine serves within the objective: the largest
    /// measured concurrency whose cell meets both limits.
    pub users: u64,
    /// The measured context the figures come from (the smallest at least the objective's).
    pub context_tokens: u64,
    /// Time to first token p99 at that load for a fresh prompt of the objective's context:
    /// estimated (the cell's TTFT p99 plus the prompt's prefill time at the measured rate).
    pub ttft_ms_p99_estimated: f64,
    /// The requests behind the cell's TTFT p99 (a p99 of a few samples is near the slowest).
    pub ttft_samples: Option<u64>,
    /// Stutter: the cell's inter-token gap p99, over every token of its window.
    pub itl_ms_p99: f64,
    /// The machine's total output tok/s at that load.
    pub total_tok_s: f64,
    /// Energy per output token at that load, J: the GPUs' energy over the cell's window as
    /// the machine's agent sampled it (`source: agent`); `null` where the report has none.
    pub energy_j_per_token: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OfferView {
    pub listing: ListingView,
    /// Whether the machine meets the objective at some measured load.
    pub meets: bool,
    /// Why it cannot (with `meets: false`): `context_not_measured`, `prefill_not_measured`,
    /// `no_valid_cell`, `ttft_too_slow` or `stutter_too_long`.
    pub reason: Option<String>,
    /// The closest it came: the best estimated TTFT or stutter, ms (with the reasons that
    /// have one).
    pub best_ms: Option<f64>,
    pub goodput: Option<GoodputView>,
    /// The whole machine's price per hour (every GPU: goodput is the engine's).
    pub price_per_hour: MoneyView,
    /// Price per million output tokens at that load, minor units.
    pub price_per_mtok: Option<f64>,
    /// Price per hour ÷ users served, minor units: what offers are sorted by.
    pub cost_per_user_hour: Option<f64>,
}

/// The cheapest set of whole machines whose goodput adds up to the users asked for.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlanView {
    /// Listing ids, ascending.
    pub listings: Vec<Uuid>,
    /// The users they serve together (at least those asked for).
    pub users: u64,
    pub price_per_hour: MoneyView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OffersView {
    pub items: Vec<OfferView>,
    pub next_cursor: Option<String>,
    /// The cheapest plan over every offer (free over the interval, when one is given);
    /// `null` when all of them together serve fewer users than asked for.
    pub plan: Option<PlanView>,
    /// The users every offer that meets the objective serves together.
    pub users_available: u64,
}

impl From<Plan> for PlanView {
    fn from(p: Plan) -> Self {
        Self {
            listings: p.listings.into_iter().map(|id| id.as_uuid()).collect(),
            users: p.users,
            price_per_hour: p.price_per_hour.into(),
        }
    }
}

impl From<Offer> for OfferView {
    fn from(o: Offer) -> Self {
        let (goodput, price_per_mtok, cost, reason, best_ms) = match o.at_slo {
            Ok(at) => (
                Some(GoodputView {
                    users: at.goodput.users,
                    context_tokens: at.goodput.context_tokens,
                    ttft_ms_p99_estimated: at.goodput.ttft_ms_estimated,
                    ttft_samples: at.goodput.ttft_samples,
                    itl_ms_p99: at.goodput.itl_ms_p99,
                    total_tok_s: at.goodput.total_tok_s,
                    energy_j_per_token: at.energy_j_per_token,
                }),
                at.price_per_mtok,
                Some(at.cost_per_user_hour),
                None,
                None,
            ),
            Err(unmet) => (
                None,
                None,
                None,
                Some(unmet.code().to_owned()),
                match unmet {
                    app::market::offers::Unmet::TtftTooSlow { best_ms }
                    | app::market::offers::Unmet::StutterTooLong { best_ms } => Some(best_ms),
                    _ => None,
                },
            ),
        };
        Self {
            meets: goodput.is_some(),
            listing: ListingView::new(o.listing, false),
            reason,
            best_ms,
            goodput,
            price_per_hour: o.price_per_hour.into(),
            price_per_mtok,
            cost_per_user_hour: cost,
        }
    }
}

impl From<OffersPage> for OffersView {
    fn from(p: OffersPage) -> Self {
        Self {
            items: p.items.into_iter().map(OfferView::from).collect(),
            next_cursor: p.next_cursor,
            plan: p.plan.map(PlanView::from),
            users_available: p.users_available,
        }
    }
}

/// Search by a service-level objective: verified machines serving a model, each with the
/// users it serves within the objective (goodput, from its signed report's figures), priced
/// per hour, per million output tokens and per user-hour, cheapest per user-hour first; and
/// the cheapest plan of whole machines that serves `users`. Public. Pages `{items,
/// next_cursor}`; the plan is over every offer, on every page.
#[utoipa::path(extensions(("x-rate-class" = json!("search"))), operation_id = "search_offers",
    tag = "listings",
    params(OffersQuery),
    responses(
        (status = 200, description = "One page of offers, and the plan", body = OffersView),
        Problems<(InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/offers")]
pub async fn search(
    app: web::Data<App>,
    query: Query<OffersQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let page = app
        .offers(OfferParams {
            model: q.model,
            context: q.context,
            users: q.users,
            ttft_p99_ms: q.ttft_p99_ms,
            itl_p99_ms: q.itl_p99_ms,
            currency: q.currency,
            max_price_per_hour: q.max_price_per_hour,
            min_reliability: q.min_reliability,
            engine: q.engine,
            available_from: q.available_from,
            available_until: q.available_until,
            include_failing: q.include_failing,
            sort: q.sort,
            max_j_per_token: q.max_j_per_token,
            cursor: q.cursor,
            limit: q.limit,
        })
        .await?;
    Ok(HttpResponse::Ok().json(OffersView::from(page)))
}
