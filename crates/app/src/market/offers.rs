//! Offers at a service-level objective, the cheapest plan that meets it, and booking a plan.
//!
//! One offer is one verified listing (one engine): its goodput at the SLO (the standard's
//! "Derived figures", `domain::slo`) judged on its search projection, priced per hour, per
//! million output tokens and per user-hour at that load. Offers are sorted by cost per
//! user-hour, ties by listing id. A plan is the cheapest set of whole machines whose goodput
//! adds up to the users asked for (`domain::slo::cheapest_plan`), among the offers free for
//! the interval when one is given.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use domain::ValidationError;
use domain::booking::{self, Interval};
pub use domain::slo::Unmet;
use domain::slo::{self, DecodeCell, Goodput, PlanOffer, PrefillRate, Slo};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use store::{OfferCandidate, OfferQuery, PlanError, PlanRecord};
use uuid::Uuid;

use crate::market::bookings::{Booking, NewBooking};
use crate::market::listings::{Listing, page_limit, requested_window};
use crate::{App, AppError, Caller};

/// An SLO query as a client asks it, before checking.
#[derive(Debug, Clone, Default)]
pub struct OfferParams {
    /// A catalog model's id, name or alias, or the name an engine serves.
    pub model: Option<String>,
    pub context: Option<i64>,
    pub users: Option<i64>,
    pub ttft_p99_ms: Option<f64>,
    pub itl_p99_ms: Option<f64>,
    pub currency: Option<String>,
    pub max_price_per_hour: Option<i64>,
    /// The 30-day uptime at least this, 0 to 1.
    pub min_reliability: Option<f64>,
    /// The engine the verified report measured (`vllm`, `llamacpp`, `sglang`, `tgi`).
    pub engine: Option<String>,
    pub available_from: Option<DateTime<Utc>>,
    pub available_until: Option<DateTime<Utc>>,
    pub include_failing: Option<bool>,
    /// `cost_per_user_hour` (default) or `j_per_token` (least energy per output token at the
    /// load that meets the objective first; offers without the figure are left out).
    pub sort: Option<String>,
    /// At most this energy per output token at that load, J (offers without it are left out).
    pub max_j_per_token: Option<f64>,
    pub cursor: Option<String>,
    pub limit: Option<u64>,
}

/// What offers are listed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OfferSort {
    CostPerUserHour,
    JPerToken,
}

impl OfferSort {
    fn name(self) -> &'static str {
        match self {
            Self::CostPerUserHour => "cost_per_user_hour",
            Self::JPerToken => "j_per_token",
        }
    }
}

/// A checked SLO query.
#[derive(Debug, Clone)]
struct Checked {
    query: OfferQuery,
    slo: Slo,
    users: u64,
    sort: OfferSort,
    max_j_per_token: Option<f64>,
}

impl OfferParams {
    fn check(&self) -> Result<Checked, ValidationError> {
        let model = self
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .ok_or_else(|| {
                ValidationError::new("model", "is required: a catalog model or a served name")
            })?;
        if model.len() > 200 {
            return Err(ValidationError::new(
                "model",
                "must be at most 200 characters",
            ));
        }
        let (slo, users) = objective(self.context, self.users, self.ttft_p99_ms, self.itl_p99_ms)?;
        let context = slo.context();
        let currency = match self.currency.as_deref().map(str::trim) {
            None | Some("") => "USD".to_owned(),
            Some(code) => domain::Currency::parse("currency", code)?.code().to_owned(),
        };
        if let Some(max) = self.max_price_per_hour
            && max < 1
        {
            return Err(ValidationError::new(
                "max_price_per_hour",
                "must be a positive amount in minor units",
            ));
        }
        let window = requested_window(self.available_from, self.available_until)?;
        let sort = match self.sort.as_deref().map(str::trim) {
            None | Some("" | "cost_per_user_hour") => OfferSort::CostPerUserHour,
            Some("j_per_token") => OfferSort::JPerToken,
            Some(_) => {
                return Err(ValidationError::new(
                    "sort",
                    "must be cost_per_user_hour or j_per_token",
                ));
            }
        };
        if let Some(max) = self.max_j_per_token
            && !(max.is_finite() && max >= 0.0)
        {
            return Err(ValidationError::new(
                "max_j_per_token",
                "must be a non-negative number",
            ));
        }
        let catalog_model = catalog::Catalog::get()
            .ok()
            .and_then(|c| c.model_named(model))
            .map(|m| m.id.clone());
        Ok(Checked {
            query: OfferQuery {
                catalog_model,
                served_model: model.to_owned(),
                min_context: i64::try_from(context).unwrap_or(i64::MAX),
                currency: Some(currency),
                max_price_per_hour: self.max_price_per_hour,
                min_reliability: crate::market::listings::reliability_floor(self.min_reliability)?,
                window,
                engine: self
                    .engine
                    .as_deref()
                    .map(str::trim)
                    .filter(|e| !e.is_empty())
                    .map(|e| domain::engine_name("engine", e))
                    .transpose()?,
            },
            slo,
            users,
            sort,
            max_j_per_token: self.max_j_per_token,
        })
    }
}

/// An objective as asked: context, users (1 to [`slo::MAX_USERS`]) and both limits, all
/// required; checked.
pub(crate) fn objective(
    context: Option<i64>,
    users: Option<i64>,
    ttft_p99_ms: Option<f64>,
    itl_p99_ms: Option<f64>,
) -> Result<(Slo, u64), ValidationError> {
    let required = |field: &'static str| ValidationError::new(field, "is required");
    let context = context.ok_or_else(|| required("context"))?;
    let context =
        u64::try_from(context).map_err(|_| ValidationError::new("context", "must be ≥ 0"))?;
    let users = users.ok_or_else(|| required("users"))?;
    if !(1..=slo::MAX_USERS as i64).contains(&users) {
        return Err(ValidationError::new(
            "users",
            format!("must be between 1 and {}", slo::MAX_USERS),
        ));
    }
    let slo = Slo::new(
        context,
        ttft_p99_ms.ok_or_else(|| required("ttft_p99_ms"))?,
        itl_p99_ms.ok_or_else(|| required("itl_p99_ms"))?,
    )?;
    Ok((slo, users as u64))
}

/// What a listing shows at the SLO's load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AtSlo {
    pub goodput: Goodput,
    /// Price per million output tokens at that load, minor units.
    pub price_per_mtok: Option<f64>,
    /// The machine's price per hour over the users it serves, minor units.
    pub cost_per_user_hour: f64,
    /// Energy per output token at that load, J: its cell's, as the machine's agent sampled
    /// it (`None` where the report has none).
    pub energy_j_per_token: Option<f64>,
}

/// One listing's answer to an SLO.
#[derive(Debug, Clone)]
pub struct Offer {
    pub listing: Listing,
    /// The whole machine's price per hour (every GPU: goodput is the engine's).
    pub price_per_hour: domain::Money,
    /// `Ok`: it meets the SLO at this load; `Err`: why it cannot at any measured load.
    pub at_slo: Result<AtSlo, Unmet>,
}

/// The cheapest set of offers that serves the users asked for.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Listing ids, ascending.
    pub listings: Vec<domain::ListingId>,
    /// The users they serve together (at least the users asked for).
    pub users: u64,
    pub price_per_hour: domain::Money,
}

/// A page of offers, and the plan over all of them.
#[derive(Debug, Clone)]
pub struct OffersPage {
    pub items: Vec<Offer>,
    pub next_cursor: Option<String>,
    /// `None` when all offers (free over the interval, if given) together serve fewer.
    pub plan: Option<Plan>,
    /// Users every offer that meets the SLO serves together.
    pub users_available: u64,
}

/// A plan booked: its bookings, one per listing.
#[derive(Debug, Clone)]
pub struct BookedPlan {
    pub plan_id: Uuid,
    pub bookings: Vec<Booking>,
    pub users: u64,
    pub price_per_hour: domain::Money,
    /// The key had been used for this same request: nothing new was booked.
    pub replayed: bool,
}

#[derive(Serialize, Deserialize)]
struct Cursor {
    meets: bool,
    cost: f64,
    id: Uuid,
    /// The order the cursor belongs to (absent: cost per user-hour).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sort: Option<String>,
}

/// The order offers are listed in: those that meet the SLO by cost per user-hour (or energy
/// per token), then those that do not; ties by listing id.
fn sort_key(offer: &Offer, sort: OfferSort) -> (bool, f64, Uuid) {
    let id = offer.listing.id.as_uuid();
    match (&offer.at_slo, sort) {
        (Ok(at), OfferSort::CostPerUserHour) => (true, at.cost_per_user_hour, id),
        (Ok(at), OfferSort::JPerToken) => (true, at.energy_j_per_token.unwrap_or(f64::MAX), id),
        (Err(_), _) => (false, 0.0, id),
    }
}

fn before(a: (bool, f64, Uuid), b: (bool, f64, Uuid)) -> std::cmp::Ordering {
    b.0.cmp(&a.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2))
}

/// The offer a candidate makes at `slo`.
fn offer_of(candidate: OfferCandidate, slo: &Slo) -> Result<Offer, AppError> {
    let per_gpu_hour =
        crate::stored_money(candidate.listing.price_amount, &candidate.listing.currency)?;
    let price_per_hour = per_gpu_hour.times(i64::from(candidate.listing.gpu_count));
    let at_slo = goodput_of(&candidate, slo).map(|goodput| AtSlo {
        price_per_mtok: domain::money::price_per_mtok(price_per_hour, goodput.total_tok_s),
        cost_per_user_hour: slo::cost_per_user_hour(price_per_hour.minor(), goodput.users)
            .unwrap_or(f64::INFINITY),
        energy_j_per_token: energy_at(&candidate, &goodput),
        goodput,
    });
    Ok(Offer {
        listing: Listing::try_from(candidate.listing)?,
        price_per_hour,
        at_slo,
    })
}

/// Energy per token of the cell a candidate's goodput comes from.
pub(crate) fn energy_at(candidate: &OfferCandidate, goodput: &Goodput) -> Option<f64> {
    candidate
        .cells
        .iter()
        .find(|c| {
            c.context_tokens.max(0) as u64 == goodput.context_tokens
                && c.concurrency.max(0) as u64 == goodput.users
        })
        .and_then(|c| c.energy_j_per_token)
}

/// A candidate's goodput at `slo`, from its projected cells and prefill rates.
pub(crate) fn goodput_of(candidate: &OfferCandidate, slo: &Slo) -> Result<Goodput, Unmet> {
    let decode: Vec<DecodeCell> = candidate
        .cells
        .iter()
        .map(|c| DecodeCell {
            context_tokens: c.context_tokens.max(0) as u64,
            concurrency: c.concurrency.max(0) as u64,
            // The projection holds valid cells only.
            valid: true,
            total_tok_s: Some(c.total_tok_s),
            ttft_ms_p99: c.ttft_ms_p99,
            ttft_samples: c.ttft_samples.map(|n| n.max(0) as u64),
            itl_ms_p99: c.itl_ms_p99,
        })
        .collect();
    let prefill: Vec<PrefillRate> = candidate
        .prefill
        .iter()
        .map(|&(context, rate)| PrefillRate {
            context_tokens: context.max(0) as u64,
            prompt_tok_s: rate,
        })
        .collect();
    slo::goodput(slo, &decode, &prefill)
}

/// The cheapest plan among `offers` (those meeting the SLO, already in offer order).
fn plan_of(offers: &[&Offer], users: u64) -> Option<Plan> {
    let meeting: Vec<(&Offer, AtSlo)> = offers
        .iter()
        .filter_map(|o| o.at_slo.ok().map(|at| (*o, at)))
        .take(slo::MAX_PLAN_OFFERS)
        .collect();
    let priced: Vec<PlanOffer> = meeting
        .iter()
        .map(|(o, at)| PlanOffer {
            price_per_hour: o.price_per_hour.minor(),
            users: at.goodput.users,
        })
        .collect();
    let chosen = slo::cheapest_plan(&priced, users)?;
    let first = meeting.get(*chosen.first()?)?.0.price_per_hour;
    let mut listings: Vec<domain::ListingId> =
        chosen.iter().map(|&i| meeting[i].0.listing.id).collect();
    listings.sort_by_key(|id| id.as_uuid());
    Some(Plan {
        listings,
        users: chosen.iter().map(|&i| priced[i].users).sum(),
        price_per_hour: first.with_minor(
            chosen
                .iter()
                .map(|&i| priced[i].price_per_hour)
                .sum::<i64>(),
        ),
    })
}

impl App {
    /// Every offer for a checked query, in offer order; with an interval, only machines
    /// free over all of it (a plan books them whole). `exclude`: listings left out.
    async fn all_offers(
        &self,
        checked: &Checked,
        exclude: &[Uuid],
    ) -> Result<Vec<Offer>, AppError> {
        let mut candidates = self.db().offer_candidates(&checked.query).await?;
        let mismatched = self
            .mismatched_listings(candidates.iter().map(|c| &c.listing))
            .await?;
        candidates
            .retain(|c| !exclude.contains(&c.listing.id) && !mismatched.contains(&c.listing.id));
        if let Some((from, until)) = checked.query.window {
            let ids: Vec<Uuid> = candidates.iter().map(|c| c.listing.id).collect();
            let busy = self
                .db()
                .holding_bookings(&ids, from, until, Utc::now())
                .await?;
            candidates.retain(|c| !busy.iter().any(|h| h.0 == c.listing.id));
        }
        let mut offers = candidates
            .into_iter()
            .map(|c| offer_of(c, &checked.slo))
            .collect::<Result<Vec<_>, _>>()?;
        // The energy order and ceiling list only offers with the figure at their load.
        let energy = |o: &Offer| o.at_slo.ok().and_then(|at| at.energy_j_per_token);
        if checked.sort == OfferSort::JPerToken || checked.max_j_per_token.is_some() {
            offers.retain(|o| {
                o.at_slo.is_err()
                    || energy(o).is_some_and(|j| checked.max_j_per_token.is_none_or(|max| j <= max))
            });
        }
        offers.sort_by(|a, b| before(sort_key(a, checked.sort), sort_key(b, checked.sort)));
        Ok(offers)
    }

    /// Offers at an SLO, a page at a time, and the cheapest plan. Public.
    pub async fn offers(&self, params: OfferParams) -> Result<OffersPage, AppError> {
        let checked = params.check()?;
        let limit = page_limit(params.limit)?;
        let after = params
            .cursor
            .as_deref()
            .map(|c| decode_cursor(c, checked.sort))
            .transpose()?;
        let offers = self.all_offers(&checked, &[]).await?;
        let all: Vec<&Offer> = offers.iter().collect();
        let plan = plan_of(&all, checked.users);
        let users_available = offers
            .iter()
            .filter_map(|o| o.at_slo.ok().map(|at| at.goodput.users))
            .sum();
        let include_failing = params.include_failing.unwrap_or(false);
        let mut items: Vec<Offer> = offers
            .into_iter()
            .filter(|o| include_failing || o.at_slo.is_ok())
            .filter(|o| after.is_none_or(|a| before(a, sort_key(o, checked.sort)).is_lt()))
            .take(limit as usize + 1)
            .collect();
        let next_cursor = if items.len() as u64 > limit {
            items.truncate(limit as usize);
            items
                .last()
                .map(|o| encode_cursor(sort_key(o, checked.sort), checked.sort))
        } else {
            None
        };
        Ok(OffersPage {
            items,
            next_cursor,
            plan,
            users_available,
        })
    }
}

fn encode_cursor((meets, cost, id): (bool, f64, Uuid), sort: OfferSort) -> String {
    let sort = (sort != OfferSort::CostPerUserHour).then(|| sort.name().to_owned());
    let json = serde_json::to_vec(&Cursor {
        meets,
        cost,
        id,
        sort,
    })
    .unwrap_or_default();
    URL_SAFE_NO_PAD.encode(json)
}

fn decode_cursor(raw: &str, sort: OfferSort) -> Result<(bool, f64, Uuid), ValidationError> {
    let bad = || ValidationError::new("cursor", "is not a cursor these offers returned");
    let bytes = URL_SAFE_NO_PAD.decode(raw).map_err(|_| bad())?;
    let c: Cursor = serde_json::from_slice(&bytes).map_err(|_| bad())?;
    if !c.cost.is_finite() {
        return Err(bad());
    }
    if c.sort
        .as_deref()
        .unwrap_or(OfferSort::CostPerUserHour.name())
        != sort.name()
    {
        return Err(ValidationError::new(
            "cursor",
            "belongs to offers in another order",
        ));
    }
    Ok((c.meets, c.cost, c.id))
}

/// How many times booking a plan re-plans after listings were taken meanwhile.
const REPLANS: usize = 5;

/// A request to book the cheapest plan at an SLO.
#[derive(Debug, Clone)]
pub struct PlanRequest<'a> {
    pub offers: OfferParams,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
    pub idempotency_key: &'a str,
    /// Whether the plan's bookings are given the machines' SSH and HTTPS access: `false`
    /// waives them, so that they can carry the listings' guarantees.
    pub direct_access: bool,
    /// The price per hour of the whole plan the renter expects to pay, minor units of the
    /// plan's currency: another one now is `price_changed` (not part of what the key stands
    /// for).
    pub expected_price_per_hour: Option<i64>,
}

impl PlanRequest<'_> {
    /// What identifies "the same request" under one idempotency key.
    fn fingerprint(&self, checked: &Checked) -> String {
        let q = &checked.query;
        let canonical = format!(
            "plan|{}|{}|{}|{}|{}|{}|{}|{:?}|{}|{}",
            q.served_model,
            checked.slo.context(),
            checked.slo.ttft_p99_ms(),
            checked.slo.itl_p99_ms(),
            checked.users,
            q.currency.as_deref().unwrap_or_default(),
            q.max_price_per_hour.unwrap_or(0),
            q.catalog_model,
            self.starts_at.timestamp_micros(),
            self.ends_at.timestamp_micros()
        );
        // Added later: only a request that sets it hashes it, so earlier keys still replay.
        let mut canonical = match q.min_reliability {
            Some(min) => format!("{canonical}|reliability {min}"),
            None => canonical,
        };
        if !self.direct_access {
            canonical.push_str("|direct_access=false");
        }
        hex::encode(Sha256::digest(canonical.as_bytes()))
    }
}

impl App {
    /// Books the cheapest plan at an SLO for an interval: every listing of it whole, in one
    /// transaction, all or none. A listing taken meanwhile is left out and the plan chosen
    /// again from the offers that still meet the SLO. Idempotent by `Idempotency-Key`.
    pub async fn book_plan(
        &self,
        caller: Caller,
        request: &PlanRequest<'_>,
    ) -> Result<BookedPlan, AppError> {
        let key = crate::market::bookings::idempotency_key(request.idempotency_key)?;
        self.require_verified_email(caller).await?;
        let now = Utc::now();
        let interval = Interval::new(request.starts_at, request.ends_at, now)?;
        let mut params = request.offers.clone();
        params.available_from = Some(interval.starts_at());
        params.available_until = Some(interval.ends_at());
        let checked = params.check()?;
        let fingerprint = request.fingerprint(&checked);
        let renter = caller.user_id.as_uuid();
        if let Some(found) = self.replay_plan(renter, key, &fingerprint).await? {
            return Ok(found);
        }
        let quota = self.renter_quota();
        let notice = self.interrupt_notice();
        let mut excluded: Vec<Uuid> = Vec::new();
        for _ in 0..REPLANS {
            let offers = self.all_offers(&checked, &excluded).await?;
            let all: Vec<&Offer> = offers.iter().collect();
            let Some(plan) = plan_of(&all, checked.users) else {
                let served: u64 = offers
                    .iter()
                    .filter_map(|o| o.at_slo.ok().map(|at| at.goodput.users))
                    .sum();
                return Err(AppError::SloUnmet(format!(
                    "the machines free over the interval that meet the objective serve {served} \
                     of the {} users asked for",
                    checked.users
                )));
            };
            if request
                .expected_price_per_hour
                .is_some_and(|expected| expected != plan.price_per_hour.minor())
            {
                return Err(AppError::PriceChanged(plan.price_per_hour));
            }
            let plan_id = Uuid::now_v7();
            let mut bookings = Vec::with_capacity(plan.listings.len());
            let mut destinations = Vec::with_capacity(plan.listings.len());
            for id in &plan.listings {
                let offer = offers
                    .iter()
                    .find(|o| o.listing.id == *id)
                    .ok_or_else(|| AppError::Internal("a planned listing vanished".into()))?;
                let listing = self.listing_record(id.as_uuid()).await?;
                self.require_hardware_as_claimed(&listing, false).await?;
                let destination = self.payment_destination(&listing).await?;
                // Unique per renter like any key; a renter cannot know the plan's id before
                // it exists.
                let booking_key = format!("plan:{plan_id}:{id}");
                bookings.push(self.new_booking(
                    NewBooking {
                        listing: id.as_uuid(),
                        renter,
                        gpus: offer.listing.gpu_count,
                        interval: &interval,
                        per_gpu_hour: offer.listing.price,
                        key: &booking_key,
                        fingerprint: &fingerprint,
                        plan: Some(plan_id),
                        direct_access: request.direct_access,
                        container: None,
                        stop_when_idle_secs: None,
                        tier: domain::booking::Tier::OnDemand,
                    },
                    destination.is_some(),
                    now,
                ));
                destinations.push((listing, destination));
            }
            let gpus: i32 = bookings.iter().map(|b| b.gpu_count).sum();
            // Each of the plan's bookings that waits for its payment holds its machine unpaid:
            // all count against the unpaid-hold quota (the open-bookings quota counts the plan
            // once, its GPU-hours all).
            let unpaid = destinations.iter().filter(|(_, d)| d.is_some()).count();
            let unpaid = u32::try_from(unpaid).unwrap_or(u32::MAX);
            let record = PlanRecord {
                id: plan_id,
                renter_id: renter,
                idempotency_key: key.to_owned(),
                request_hash: fingerprint.clone(),
                users: i64::try_from(plan.users).unwrap_or(i64::MAX),
                price_amount: plan.price_per_hour.minor(),
                currency: plan.price_per_hour.currency().code().to_owned(),
                created_at: now,
            };
            let cost = plan
                .price_per_hour
                .with_minor(bookings.iter().map(|b| b.price_amount).sum());
            let booked = self
                .db()
                .book_plan(
                    record,
                    bookings,
                    now,
                    |open| {
                        booking::within_quota(open, (&interval, gpus, unpaid), now, quota)?;
                        booking::within_budget(open, cost)
                    },
                    |machine, b| {
                        // A machine whose price changed since the plan was priced is left out
                        // and the plan chosen again: never booked at a stale price.
                        let priced = offers
                            .iter()
                            .find(|o| o.listing.id.as_uuid() == b.listing_id)
                            .map(|o| o.listing.price);
                        booking::price_as_expected(machine, priced)?;
                        // On demand: interruptible bookings in the way are displaced.
                        booking::interruptible::admit_displacing(
                            machine,
                            &interval,
                            b.gpu_count,
                            booking::interruptible::Claim::OnDemand,
                            now,
                            notice,
                        )
                    },
                )
                .await;
            let booked = match booked {
                Ok((booked, displaced)) => {
                    self.settle_displaced(&displaced).await;
                    booked
                }
                Err(PlanError::Taken(taken)) => {
                    excluded.extend(taken);
                    continue;
                }
                Err(PlanError::KeyUsed) => {
                    return self
                        .replay_plan(renter, key, &fingerprint)
                        .await?
                        .ok_or_else(|| {
                            AppError::Internal("idempotency key conflict without a plan".into())
                        });
                }
                Err(PlanError::Refused(refusal)) => {
                    self.note_budget_refusal(renter, &refusal, now).await;
                    return Err(crate::market::bookings::refusal_error(refusal, now));
                }
                Err(PlanError::Store(e)) => return Err(e.into()),
            };
            let mut records = Vec::with_capacity(booked.len());
            for booking in booked {
                let Some((listing, destination)) = destinations
                    .iter()
                    .find(|(l, _)| l.id == booking.listing_id)
                else {
                    return Err(AppError::Internal("a booked listing vanished".into()));
                };
                records.push(match destination {
                    Some(destination) => self.start_payment(&booking, destination.clone()).await?,
                    None => {
                        self.record_not_collected(&booking, listing).await?;
                        booking
                    }
                });
            }
            return Ok(BookedPlan {
                plan_id,
                bookings: self.booking_list(records).await?,
                users: plan.users,
                price_per_hour: plan.price_per_hour,
                replayed: false,
            });
        }
        Err(AppError::BookingConflict)
    }

    async fn replay_plan(
        &self,
        renter: Uuid,
        key: &str,
        fingerprint: &str,
    ) -> Result<Option<BookedPlan>, AppError> {
        let Some(plan) = self.db().plan_by_key(renter, key).await? else {
            return Ok(None);
        };
        if plan.request_hash != fingerprint {
            return Err(AppError::IdempotencyKeyReused);
        }
        let bookings = self
            .booking_list(self.db().bookings_of_plan(plan.id).await?)
            .await?;
        Ok(Some(BookedPlan {
            plan_id: plan.id,
            users: plan.users.max(0) as u64,
            price_per_hour: crate::stored_money(plan.price_amount, &plan.currency)?,
            bookings,
            replayed: true,
        }))
    }
}
