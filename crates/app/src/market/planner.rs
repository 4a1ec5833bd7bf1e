//! The capacity planner: for a model of the catalog and a service-level objective, what each
//! GPU of the catalog serves — measured where verified listings of that GPU and model exist
//! (their goodput, from the search projection), else the decode calculator's prediction
//! (`catalog::predict_at_slo`: per-stream speed from the roofline, TTFT from the roofline's
//! compute-bound prefill, stutter = 1000 ÷ per-stream speed). A provider sees what a GPU would
//! be worth listing; a renter, how many machines of each it takes.

use std::collections::HashMap;

use domain::ValidationError;

use store::OfferQuery;

use crate::{App, AppError};

/// A planner query as a client asks it.
#[derive(Debug, Clone, Default)]
pub struct PlannerParams {
    /// A catalog model's id, name or alias.
    pub model: Option<String>,
    pub context: Option<i64>,
    pub users: Option<i64>,
    pub ttft_p99_ms: Option<f64>,
    pub itl_p99_ms: Option<f64>,
    /// The price of electricity, minor units per MWh: each row's energy cost beside it.
    pub electricity_per_mwh: Option<i64>,
}

/// Where a row's figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Verified listings of this GPU and model: the best of them.
    Measured { listings: usize },
    /// The roofline's prediction for one GPU.
    Predicted,
}

/// What one GPU of the catalog serves at the objective.
#[derive(Debug, Clone)]
pub struct PlannerRow {
    pub gpu: catalog::Gpu,
    pub source: Source,
    /// Users one machine serves within the objective (0: none).
    pub users: u64,
    /// The machine's GPUs: the measured listing's, or 1 when predicted.
    pub gpu_count: i32,
    /// Machines of this kind it takes for the users asked for (`None`: it serves none).
    pub machines_needed: Option<u64>,
    /// TTFT p99 for a fresh prompt of the objective's context at that load (estimated);
    /// `None` for a measured GPU that meets the objective at no load.
    pub ttft_ms: Option<f64>,
    /// The gap between tokens at that load, ms (measured: the cell's p99).
    pub stutter_ms: Option<f64>,
    pub per_stream_tok_s: Option<f64>,
    pub total_tok_s: f64,
    /// The machine's GPU power at that load, W, and where it comes from: `agent` (the
    /// measured cell's energy per token × its tok/s, as its agent sampled it) or
    /// `board_power` (the catalog's board power × GPUs: a ceiling, predicted rows).
    pub power: Option<(f64, &'static str)>,
    /// Energy per output token at that load, J (for `board_power`, a ceiling).
    pub energy_j_per_token: Option<f64>,
    /// With `electricity_per_mwh`: the energy's cost per hour and per million output
    /// tokens, minor units.
    pub energy_cost_per_hour: Option<f64>,
    pub energy_cost_per_mtok: Option<f64>,
}

impl PlannerRow {
    /// The row with its power and energy, priced at `per_mwh` when given.
    fn powered(mut self, power: Option<(f64, &'static str)>, per_mwh: Option<i64>) -> Self {
        let per_token = power
            .filter(|_| self.total_tok_s > 0.0)
            .map(|(w, _)| domain::energy::round_sig(w / self.total_tok_s, 5));
        self.power = power;
        self.energy_j_per_token = per_token;
        if let Some(per_mwh) = per_mwh {
            self.energy_cost_per_hour =
                power.map(|(w, _)| domain::energy::energy_cost_per_hour(w, per_mwh));
            self.energy_cost_per_mtok =
                per_token.map(|j| domain::energy::energy_cost_per_mtok(j, per_mwh));
        }
        self
    }
}

/// The planner's answer.
#[derive(Debug, Clone)]
pub struct Planner {
    pub model: catalog::Model,
    pub context: u64,
    pub users: u64,
    pub ttft_p99_ms: f64,
    pub itl_p99_ms: f64,
    /// Measured rows first, then predicted; each by users served (most first), then GPU id.
    pub rows: Vec<PlannerRow>,
}

impl App {
    /// The planner. Public.
    pub async fn planner(&self, params: PlannerParams) -> Result<Planner, AppError> {
        let catalog = crate::market::catalogs::catalogs()?;
        let named = params
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .ok_or_else(|| ValidationError::new("model", "is required: a model of the catalog"))?;
        let model = catalog.model_named(named).ok_or_else(|| {
            ValidationError::new(
                "model",
                "names no model of the catalog (GET /v1/models lists them)",
            )
        })?;
        let (objective, users) = crate::market::offers::objective(
            params.context,
            params.users,
            params.ttft_p99_ms,
            params.itl_p99_ms,
        )?;
        let context = objective.context();
        let per_mwh = domain::energy::electricity_price(params.electricity_per_mwh)?;
        let machines = |served: u64| (served > 0).then(|| users.div_ceil(served));

        // Measured: the verified listings that name this model, by the GPU they name.
        let candidates = self
            .db()
            .offer_candidates(&OfferQuery {
                catalog_model: Some(model.id.clone()),
                served_model: model.id.clone(),
                min_context: i64::try_from(context).unwrap_or(i64::MAX),
                currency: None,
                max_price_per_hour: None,
                min_reliability: None,
                window: None,
                engine: None,
            })
            .await?;
        // A machine whose agent reports other hardware measured something else than it claims.
        let mismatched = self
            .mismatched_listings(candidates.iter().map(|c| &c.listing))
            .await?;
        let mut by_gpu: HashMap<&str, Vec<_>> = HashMap::new();
        for candidate in &candidates {
            if candidate.listing.catalog_model.as_deref() != Some(model.id.as_str())
                || mismatched.contains(&candidate.listing.id)
            {
                continue;
            }
            if let Some(gpu) = candidate.listing.catalog_gpu.as_deref() {
                by_gpu.entry(gpu).or_default().push(candidate);
            }
        }
        let mut rows = Vec::new();
        for gpu in &catalog.gpus {
            let row = match by_gpu.get(gpu.id.as_str()) {
                Some(listed) => {
                    // The listing that serves the most users (ties: fewer GPUs).
                    let best = listed
                        .iter()
                        .map(|c| (c, crate::market::offers::goodput_of(c, &objective).ok()))
                        .max_by_key(|(c, g)| {
                            (
                                g.map_or(0, |g| g.users),
                                std::cmp::Reverse(c.listing.gpu_count),
                            )
                        });
                    let Some((candidate, goodput)) = best else {
                        continue;
                    };
                    let served = goodput.map_or(0, |g| g.users);
                    let power = goodput.and_then(|g| {
                        let j = crate::market::offers::energy_at(candidate, &g)?;
                        Some((domain::energy::round_sig(j * g.total_tok_s, 5), "agent"))
                    });
                    PlannerRow {
                        gpu: gpu.clone(),
                        source: Source::Measured {
                            listings: listed.len(),
                        },
                        users: served,
                        gpu_count: candidate.listing.gpu_count,
                        machines_needed: machines(served),
                        ttft_ms: goodput.map(|g| g.ttft_ms_estimated),
                        stutter_ms: goodput.map(|g| g.itl_ms_p99),
                        per_stream_tok_s: goodput.map(|g| g.total_tok_s / g.users.max(1) as f64),
                        total_tok_s: goodput.map_or(0.0, |g| g.total_tok_s),
                        power: None,
                        energy_j_per_token: None,
                        energy_cost_per_hour: None,
                        energy_cost_per_mtok: None,
                    }
                    .powered(power, per_mwh)
                }
                None => {
                    let p = catalog::predict_at_slo(
                        gpu,
                        model,
                        context,
                        objective.ttft_p99_ms(),
                        objective.itl_p99_ms(),
                    );
                    PlannerRow {
                        gpu: gpu.clone(),
                        source: Source::Predicted,
                        users: p.users,
                        gpu_count: 1,
                        machines_needed: machines(p.users),
                        ttft_ms: Some(p.ttft_ms),
                        stutter_ms: Some(p.stutter_ms),
                        per_stream_tok_s: Some(p.per_stream_tok_s),
                        total_tok_s: p.total_tok_s,
                        power: None,
                        energy_j_per_token: None,
                        energy_cost_per_hour: None,
                        energy_cost_per_mtok: None,
                    }
                    .powered(Some((gpu.board_power_w, "board_power")), per_mwh)
                }
            };
            rows.push(row);
        }
        rows.sort_by(|a, b| {
            let measured = |r: &PlannerRow| matches!(r.source, Source::Measured { .. });
            measured(b)
                .cmp(&measured(a))
                .then(b.users.cmp(&a.users))
                .then(a.gpu.id.cmp(&b.gpu.id))
        });
        Ok(Planner {
            model: model.clone(),
            context,
            users,
            ttft_p99_ms: objective.ttft_p99_ms(),
            itl_p99_ms: objective.itl_p99_ms(),
            rows,
        })
    }
}
