//! Preflight: what would make a verification of a listing fail, found before any engine time
//! is spent on a run, each check with its evidence and what to do about it. Members ask for
//! one (`POST /listings/{id}/preflight`, spending the verification budget); a verification
//! request runs the engine's checks first and is refused (409 `preflight_failed`) when one
//! fails; every run repeats them at its start and fails `preflight_failed` without measuring.
//! A spot check is never refused: its failed preflight is a failed check (demotion), and its
//! result is stored only when the check ends, so nothing announces it.
//!
//! The engine's checks ask what the harness's own preflight asks (`/v1/models`, `/metrics`,
//! the info endpoint, a completion) within a [`Patience`]; the agent's read what the
//! machine's agent last said — its word, not a proof, as everything it says. Whatever an
//! engine answers is bounded and clipped before it becomes evidence, and evidence is shown
//! only to the listing's organisation.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use domain::quota::RollingDay;
use domain::{OrgId, Role};
use store::{ListingRecord, PreflightRecord};
use uuid::Uuid;

pub use domain::preflight::{Check, CheckState, failures, kind, passed};

use crate::identity::agent_presence::{AgentPresence, GpuHealth};
use crate::{App, AppError, Caller};

/// How long the engine's checks may take: together, and each request.
#[derive(Debug, Clone, Copy)]
pub struct Patience {
    pub within: Duration,
    pub step: Duration,
}

impl Patience {
    /// A member waits for them (a preflight, a verification request): 10 s, 3 s a request.
    pub const REQUEST: Self = Self {
        within: Duration::from_secs(10),
        step: Duration::from_secs(3),
    };
    /// At a run's start, with the harness's own patience (30 s a control request): an engine
    /// busy with its renters is slow, not broken, and a spot check must not be failed for it.
    /// A cancel, the deadline or a shutdown stops them sooner.
    pub const RUN: Self = Self {
        within: Duration::from_secs(120),
        step: Duration::from_secs(30),
    };
}

/// The time the checks have left.
#[derive(Debug, Clone, Copy)]
struct Budget {
    deadline: Instant,
    step: Duration,
}

impl Budget {
    fn of(patience: Patience) -> Self {
        Self {
            deadline: Instant::now() + patience.within,
            step: patience.step,
        }
    }

    /// The time left for one request, at most a step.
    fn step(self) -> Duration {
        self.deadline
            .saturating_duration_since(Instant::now())
            .min(self.step)
    }
}
/// Cells over capacity named one by one, at most.
const MAX_CELLS_NAMED: usize = 8;

/// The checks, in the order they run.
pub mod check {
    pub const ENGINE_REACHABLE: &str = "engine_reachable";
    pub const MODEL_SERVED: &str = "model_served";
    pub const METRICS_DIALECT: &str = "metrics_dialect";
    pub const COMPLETION: &str = "completion";
    pub const KV_CAPACITY: &str = "kv_capacity";
    pub const AGENT_ONLINE: &str = "agent_online";
    pub const HARDWARE_MATCH: &str = "hardware_match";
    pub const CLOCK_OFFSET: &str = "clock_offset";
    pub const GPU_HEALTH: &str = "gpu_health";
}

/// An engine's words as evidence: control characters out, at most the characters kept of an
/// engine's message.
fn clipped(text: &str) -> String {
    bench::bounds::clip(text, bench::bounds::MESSAGE)
}

/// A preflight, as kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Preflight {
    pub id: Uuid,
    pub listing_id: Uuid,
    /// The run it preceded, for a run's.
    pub run_id: Option<Uuid>,
    pub kind: String,
    pub passed: bool,
    pub checks: Vec<Check>,
    pub created_at: DateTime<Utc>,
}

impl TryFrom<PreflightRecord> for Preflight {
    type Error = AppError;

    fn try_from(r: PreflightRecord) -> Result<Self, AppError> {
        Ok(Self {
            id: r.id,
            listing_id: r.listing_id,
            run_id: r.run_id,
            kind: r.kind,
            passed: r.passed,
            checks: serde_json::from_str(&r.checks)
                .map_err(|e| AppError::Internal(format!("stored preflight: {e}")))?,
            created_at: r.created_at,
        })
    }
}

/// What an engine request gave: its answer, or the evidence of why there is none.
async fn within<T>(
    budget: Budget,
    what: &str,
    request: impl std::future::Future<Output = Result<T, bench::BenchError>>,
) -> Result<T, (bool, String)> {
    let limit = budget.step();
    match tokio::time::timeout(limit, request).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(e)) => {
            let unreachable = matches!(
                e,
                bench::BenchError::Unreachable(_) | bench::BenchError::Refused(_)
            );
            Err((unreachable, clipped(&format!("{what}: {e}"))))
        }
        Err(_) => Err((
            true,
            format!("{what} was not answered within {} ms", limit.as_millis()),
        )),
    }
}

/// An engine as the checks reach it.
#[derive(Debug, Clone, Copy)]
pub struct EngineTarget<'a> {
    pub base_url: &'a str,
    pub model: &'a str,
    /// The engine the listing states (`engine.name`), if it states one.
    pub stated: Option<&'a str>,
    pub key: Option<&'a str>,
}

/// The engine's checks of `target` for a run of `params`, within `patience`:
/// `engine_reachable`, `model_served`, `metrics_dialect`, `completion` (one token through
/// `client`, which must be built under `policy`), `kv_capacity`. A check whose ground an
/// earlier one took away is skipped. The platform's own trouble is an error, never the
/// engine's failed check.
pub async fn engine_checks_at(
    target: EngineTarget<'_>,
    params: &bench::Parameters,
    patience: Patience,
    (client, policy): (&reqwest::Client, outbound::Policy),
) -> Result<Vec<Check>, AppError> {
    let budget = Budget::of(patience);
    let mut checks = Vec::new();
    let later = [
        check::MODEL_SERVED,
        check::METRICS_DIALECT,
        check::COMPLETION,
        check::KV_CAPACITY,
    ];
    let unreachable = |checks: &mut Vec<Check>, failed: Check| {
        checks.push(failed);
        for name in later {
            checks.push(Check::skip(name, "the engine could not be reached"));
        }
    };
    let key = target.key;
    let engine = match bench::client::Engine::new(target.base_url, key, policy) {
        Ok(engine) => engine,
        Err(e @ bench::BenchError::Refused(_)) => {
            unreachable(
                &mut checks,
                Check::fail(
                    check::ENGINE_REACHABLE,
                    clipped(&e.to_string()),
                    &["list the engine at a public address this platform may connect to"],
                ),
            );
            return Ok(checks);
        }
        Err(e) => {
            return Err(AppError::Internal(format!(
                "the engine's client could not be made: {e}"
            )));
        }
    };
    // engine_reachable, model_served: its `/v1/models`.
    let started = Instant::now();
    let models = match within(budget, "GET /v1/models", engine.models()).await {
        Ok(models) => {
            checks.push(Check::pass(
                check::ENGINE_REACHABLE,
                format!(
                    "GET /v1/models answered in {} ms",
                    started.elapsed().as_millis()
                ),
            ));
            Some(models)
        }
        Err((true, evidence)) => {
            unreachable(
                &mut checks,
                Check::fail(
                    check::ENGINE_REACHABLE,
                    evidence,
                    &[
                        "start the engine, and check it listens on the address the listing states (engine.base_url)",
                        "check no firewall between this platform and the engine drops the connection",
                    ],
                ),
            );
            return Ok(checks);
        }
        // It answered, but not a list of models.
        Err((false, evidence)) => {
            checks.push(Check::pass(
                check::ENGINE_REACHABLE,
                "the engine answered GET /v1/models",
            ));
            checks.push(Check::fail(
                check::MODEL_SERVED,
                evidence,
                &["serve an OpenAI-compatible API whose GET /v1/models lists the model"],
            ));
            None
        }
    };
    let wanted = target.model;
    let model = models.as_ref().and_then(|models| {
        let found = models.iter().find(|m| m.id == wanted).cloned();
        checks.push(match &found {
            Some(_) => Check::pass(check::MODEL_SERVED, format!("{wanted:?} is served")),
            None => Check::fail(
                check::MODEL_SERVED,
                clipped(&format!(
                    "{wanted:?} is not among the served models: {}",
                    models
                        .iter()
                        .take(10)
                        .map(|m| format!("{:?}", m.id))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                &[
                    "serve the model the listing states (engine.model), or change the listing's model to the one served",
                ],
            ),
        });
        found
    });
    // metrics_dialect: the engine's own counters, in the dialect the listing states.
    let metrics = within(budget, "GET /metrics", engine.metrics_text()).await;
    let dialect = match &metrics {
        Ok(Some(text)) => match bench::engine::Dialect::detect(text) {
            Some(dialect) => match target.stated {
                Some(stated) if stated != dialect.name() => {
                    checks.push(Check::fail(
                        check::METRICS_DIALECT,
                        format!(
                            "the listing states {stated}, but its engine's /metrics speak {}'s dialect",
                            dialect.name()
                        ),
                        &["state the engine the machine runs (engine.name), or run the one stated"],
                    ));
                    None
                }
                _ => {
                    checks.push(Check::pass(
                        check::METRICS_DIALECT,
                        format!("/metrics speak {}'s dialect", dialect.name()),
                    ));
                    Some(dialect)
                }
            },
            None => {
                checks.push(Check::fail(
                    check::METRICS_DIALECT,
                    format!(
                        "/metrics name no engine the standard reads ({})",
                        bench::engine::Dialect::ALL.map(bench::engine::Dialect::name).join(", ")
                    ),
                    &["serve an engine's own metrics: vLLM always; llama.cpp with --metrics; SGLang with --enable-metrics; TGI always"],
                ));
                None
            }
        },
        Ok(None) => {
            checks.push(Check::fail(
                check::METRICS_DIALECT,
                "the engine serves no /metrics",
                &["serve an engine's own metrics: vLLM always; llama.cpp with --metrics; SGLang with --enable-metrics; TGI always"],
            ));
            None
        }
        Err((_, evidence)) => {
            checks.push(Check::fail(
                check::METRICS_DIALECT,
                evidence.clone(),
                &["check GET /metrics answers on the engine's address"],
            ));
            None
        }
    };
    // completion: one token of the model, as a renter would ask.
    match &model {
        None => checks.push(Check::skip(check::COMPLETION, "the model is not served")),
        Some(model) => {
            let started = Instant::now();
            let answered = crate::trust::completion::complete_once(
                client,
                (target.base_url, &model.id),
                key,
                budget.step(),
                policy,
                Some(1),
            )
            .await;
            checks.push(match answered {
                Ok(()) => Check::pass(
                    check::COMPLETION,
                    format!(
                        "a one-token completion answered in {} ms",
                        started.elapsed().as_millis()
                    ),
                ),
                Err(why) => Check::fail(
                    check::COMPLETION,
                    clipped(&format!("a one-token completion failed: {why}")),
                    &["check POST /v1/completions answers for the model (the engine's log says why it did not)"],
                ),
            });
        }
    }
    checks.push(
        kv_check(
            &engine,
            dialect,
            metrics.ok().flatten(),
            model,
            params,
            budget,
        )
        .await,
    );
    Ok(checks)
}

/// kv_capacity: the cells a run of `params` measures that the engine's KV cache, request
/// length or slots cannot hold (the harness's own rule, `bench::cell::over_capacity`).
async fn kv_check(
    engine: &bench::client::Engine,
    dialect: Option<bench::engine::Dialect>,
    metrics: Option<String>,
    model: Option<bench::client::Model>,
    params: &bench::Parameters,
    budget: Budget,
) -> Check {
    let (Some(dialect), Some(model)) = (dialect, model) else {
        return Check::skip(
            check::KV_CAPACITY,
            "the engine's sizes are read in its dialect, for the served model",
        );
    };
    let engine = engine.clone().speaking(dialect);
    let info = match within(budget, "its info endpoint", engine.info()).await {
        Ok(info) => info,
        Err((_, evidence)) => {
            return Check::warn(check::KV_CAPACITY, evidence, &[]);
        }
    };
    let snapshot = metrics.and_then(|text| dialect.snapshot(&text).ok());
    let (sizes, _) = bench::plan::ServerSizes::of(snapshot.as_ref(), &info, &model);
    let profile = &params.profile;
    let cells = bench::plan::plan(params, sizes).cells;
    let over: Vec<String> = cells
        .iter()
        .filter_map(|c| {
            c.over_capacity.as_ref().map(|why| {
                format!(
                    "context {} × concurrency {} ({why})",
                    c.context_tokens, c.concurrency
                )
            })
        })
        .collect();
    let Some(kv) = sizes.kv_cache_tokens else {
        return Check::warn(
            check::KV_CAPACITY,
            "the engine states no KV-cache size: cells it cannot hold are found while measuring",
            &[
                "run an engine version that publishes its cache size (vLLM's cache_config_info, llama.cpp's /props)",
            ],
        );
    };
    let steps = &[
        "give the engine more KV cache (vLLM: --gpu-memory-utilization, --max-model-len; llama.cpp: --ctx-size) or expect those cells reported over capacity",
    ];
    let named = over
        .iter()
        .take(MAX_CELLS_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    let more = over.len().saturating_sub(MAX_CELLS_NAMED);
    let named = if more > 0 {
        format!("{named}; and {more} more")
    } else {
        named
    };
    match over.len() {
        0 => Check::pass(
            check::KV_CAPACITY,
            format!(
                "a KV cache of {kv} tokens holds all {} cells of the {profile} profile",
                cells.len()
            ),
        ),
        n if n == cells.len() => Check::fail(
            check::KV_CAPACITY,
            format!(
                "a KV cache of {kv} tokens holds none of the {profile} profile's cells: {named}"
            ),
            steps,
        ),
        n => Check::warn(
            check::KV_CAPACITY,
            format!(
                "a KV cache of {kv} tokens cannot hold {n} of the {} cells of the {profile} profile: {named}",
                cells.len()
            ),
            steps,
        ),
    }
}

impl App {
    /// The engine's checks of `listing` (see [`engine_checks_at`]), with its stored key, through
    /// the gateway's client and the outbound rules.
    pub(crate) async fn engine_checks(
        &self,
        listing: &ListingRecord,
        params: &bench::Parameters,
        patience: Patience,
    ) -> Result<Vec<Check>, AppError> {
        let key = self.engine_key_of(listing)?;
        let target = EngineTarget {
            base_url: &listing.engine_base_url,
            model: &listing.engine_model,
            stated: listing.engine_name.as_deref(),
            key: key.as_ref().map(domain::EngineKey::expose),
        };
        engine_checks_at(
            target,
            params,
            patience,
            (self.gateway_client(), self.outbound_policy()),
        )
        .await
    }

    /// The agent's checks of `listing`: `agent_online`, `hardware_match`, `clock_offset`,
    /// `gpu_health`, each `skip` for a machine without an agent.
    pub(crate) async fn agent_checks(
        &self,
        listing: &ListingRecord,
    ) -> Result<Vec<Check>, AppError> {
        let state = self.agent_state(listing).await?;
        let presence = self.agent_presence(listing.id).await?;
        if state.is_none() && presence.is_none() {
            let none = "no agent reports for this machine (gpumarket agent run)";
            return Ok([
                check::AGENT_ONLINE,
                check::HARDWARE_MATCH,
                check::CLOCK_OFFSET,
                check::GPU_HEALTH,
            ]
            .map(|name| Check::skip(name, none))
            .into());
        }
        let run_it = &[
            "check `gpumarket agent run` runs on the machine and reaches this server (its log says why not)",
        ];
        let mut checks = vec![match &presence {
            Some(p) if p.online => Check::pass(
                check::AGENT_ONLINE,
                format!(
                    "heard {} s ago",
                    (Utc::now() - p.last_seen_at).num_seconds().max(0)
                ),
            ),
            Some(p) => Check::fail(
                check::AGENT_ONLINE,
                format!("silent since {}", p.last_seen_at.to_rfc3339()),
                run_it,
            ),
            None => Check::fail(
                check::AGENT_ONLINE,
                "the agent reported facts but never beat",
                run_it,
            ),
        }];
        checks.push(match &state {
            None => Check::fail(
                check::HARDWARE_MATCH,
                "the agent has not reported the machine's facts",
                run_it,
            ),
            Some(state) if state.differences.is_empty() => Check::pass(
                check::HARDWARE_MATCH,
                format!(
                    "the agent reports {} × {}, as claimed (the machine's word, not an attestation)",
                    state.facts.gpus.len(),
                    state.facts.gpus.first().map_or("", |g| g.name.as_str())
                ),
            ),
            Some(state) => Check::fail(
                check::HARDWARE_MATCH,
                clipped(&state.differences.join("; ")),
                &["correct the listing's hardware claim, or run it on the machine it claims"],
            ),
        });
        checks.extend(self.machine_checks(presence.as_ref()));
        Ok(checks)
    }

    /// Asks for a preflight of `listing` (its organisation's members): the engine's checks
    /// and the agent's, kept as the listing's latest. It spends the verification budget (a
    /// run's worth of the organisation's daily runs).
    pub async fn request_preflight(
        &self,
        caller: Caller,
        listing_id: Uuid,
        profile: &str,
    ) -> Result<Preflight, AppError> {
        crate::trust::runs::check_profile(profile)?;
        let listing = self.listing_record(listing_id).await?;
        self.require_role(caller, OrgId::from_uuid(listing.org_id), Role::Member)
            .await?;
        let now = Utc::now();
        let plan = self.plan_of(listing.org_id.into()).await?;
        let record = PreflightRecord {
            id: Uuid::now_v7(),
            listing_id,
            org_id: listing.org_id,
            run_id: None,
            kind: kind::ASKED.to_owned(),
            passed: false,
            checks: "[]".to_owned(),
            created_at: now,
            finished_at: None,
        };
        let id = record.id;
        self.db()
            .insert_preflight_within(
                record,
                RollingDay::new(plan.verification_runs_per_day as usize),
            )
            .await?
            .map_err(|over| crate::trust::runs::over_daily_runs(&plan, over, now))?;
        // Its own task: a caller that goes away does not leave the budget spent and the
        // preflight unfinished. The platform's own failure gives the budget back.
        let app = self.clone();
        let params = self.config().verification.params(profile);
        let checked = tokio::spawn(async move {
            let checks = async {
                let mut checks = app
                    .engine_checks(&listing, &params, Patience::REQUEST)
                    .await?;
                checks.extend(app.agent_checks(&listing).await?);
                serde_json::to_string(&checks)
                    .map(|text| (passed(&checks), text))
                    .map_err(|e| AppError::Internal(e.to_string()))
            }
            .await;
            match checks {
                Ok((passed, text)) => Ok(app
                    .db()
                    .finish_preflight(id, passed, &text, Utc::now())
                    .await?),
                Err(e) => {
                    app.db().delete_preflight(id).await?;
                    Err(e)
                }
            }
        });
        let record = checked
            .await
            .map_err(|e| AppError::Internal(format!("a preflight's task: {e}")))??;
        Preflight::try_from(record)
    }

    /// Keeps a preflight made for a verification request or at a run's start.
    pub(crate) async fn keep_preflight(
        &self,
        listing: &ListingRecord,
        run_id: Option<Uuid>,
        kind: &str,
        checks: &[Check],
    ) -> Result<(), AppError> {
        let now = Utc::now();
        self.db()
            .insert_preflight(PreflightRecord {
                id: Uuid::now_v7(),
                listing_id: listing.id,
                org_id: listing.org_id,
                run_id,
                kind: kind.to_owned(),
                passed: passed(checks),
                checks: serde_json::to_string(checks)
                    .map_err(|e| AppError::Internal(e.to_string()))?,
                created_at: now,
                finished_at: Some(now),
            })
            .await?;
        Ok(())
    }

    /// The listing's latest preflight its organisation may see (a spot check's only once the
    /// check ended); `None` before any.
    pub async fn latest_preflight(
        &self,
        caller: Caller,
        listing_id: Uuid,
    ) -> Result<Option<Preflight>, AppError> {
        let listing = self.listing_record(listing_id).await?;
        self.require_role(caller, OrgId::from_uuid(listing.org_id), Role::Member)
            .await?;
        self.db()
            .latest_preflight(listing_id)
            .await?
            .map(Preflight::try_from)
            .transpose()
    }
}

/// Throttle reasons that slow a GPU for a reason of its own (heat, power delivery, the
/// hardware), not because it is idle or capped as configured.
const SLOWDOWNS: &[&str] = &[
    "hw_slowdown",
    "sw_thermal_slowdown",
    "hw_thermal_slowdown",
    "hw_power_brake_slowdown",
];
/// The most a machine's clock may be off the server's.
const MAX_CLOCK_OFFSET_MS: i64 = 1000;

impl App {
    /// clock_offset and gpu_health, from the agent's last kept heartbeat.
    fn machine_checks(&self, presence: Option<&AgentPresence>) -> [Check; 2] {
        let Some(presence) = presence else {
            let never = "the agent has not beaten";
            return [
                Check::skip(check::CLOCK_OFFSET, never),
                Check::skip(check::GPU_HEALTH, never),
            ];
        };
        let clock = match presence.clock_offset_ms {
            None => Check::skip(
                check::CLOCK_OFFSET,
                "the agent does not say its time (an older agent)",
            ),
            Some(ms) => {
                let said = format!(
                    "the machine's clock is {} ms {} the server's (within a network delay)",
                    ms.abs(),
                    if ms < 0 { "behind" } else { "ahead of" }
                );
                if ms.abs() <= MAX_CLOCK_OFFSET_MS {
                    Check::pass(check::CLOCK_OFFSET, said)
                } else {
                    Check::fail(
                        check::CLOCK_OFFSET,
                        format!("{said}: more than {MAX_CLOCK_OFFSET_MS} ms"),
                        &["keep the machine's clock synchronised (chrony or systemd-timesyncd)"],
                    )
                }
            }
        };
        [clock, gpu_health(presence.gpus.as_deref())]
    }
}

/// gpu_health: uncorrected ECC errors fail; a slowdown of the GPU's own, persistence mode
/// off, or another process beside the engine's warn.
fn gpu_health(gpus: Option<&[GpuHealth]>) -> Check {
    let Some(gpus) = gpus else {
        return Check::skip(
            check::GPU_HEALTH,
            "the agent does not read the GPUs' health (an older agent)",
        );
    };
    if gpus.is_empty() {
        return Check::fail(
            check::GPU_HEALTH,
            "the agent could read no GPU's health: neither NVML nor nvidia-smi answered",
            &[
                "run `gpumarket agent health` on the machine: it says why the driver does not answer",
            ],
        );
    }
    let (mut failed, mut warned, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    for gpu in gpus {
        if let Some(errors) = gpu.ecc_errors_uncorrected.filter(|n| *n > 0) {
            failed.push(format!("{}: {errors} uncorrected ECC errors", gpu.uuid));
            steps.push(
                "reset the GPU (nvidia-smi -r) or have it replaced: its memory is corrupting data",
            );
        }
        let slowdowns: Vec<&str> = gpu
            .throttle_reasons
            .iter()
            .map(String::as_str)
            .filter(|r| SLOWDOWNS.contains(r))
            .collect();
        if !slowdowns.is_empty() {
            warned.push(format!(
                "{}: clocks held down ({})",
                gpu.uuid,
                slowdowns.join(", ")
            ));
            steps.push("cool the GPU or check its power delivery: a slowed GPU measures slow");
        }
        if gpu.persistence_mode == Some(false) {
            warned.push(format!("{}: persistence mode off", gpu.uuid));
            steps.push("turn persistence mode on (nvidia-smi -pm 1, or nvidia-persistenced)");
        }
        if let Some(n) = gpu.compute_processes.filter(|n| *n > 1) {
            warned.push(format!(
                "{}: {n} compute processes (another beside the engine)",
                gpu.uuid
            ));
            steps.push("stop what else runs on the engine's GPUs: it would share the measurement");
        }
    }
    // Each step once, in the order first met (GPUs alternate them).
    let steps = steps.iter().fold(Vec::new(), |mut unique, step| {
        if !unique.contains(step) {
            unique.push(*step);
        }
        unique
    });
    let mut evidence: Vec<String> = failed.iter().chain(&warned).cloned().collect();
    if evidence.is_empty() {
        evidence.push(format!(
            "{} GPUs: no uncorrected ECC error, no slowdown of their own, persistence mode on, no process beside the engine's",
            gpus.len()
        ));
    }
    let state = if !failed.is_empty() {
        CheckState::Fail
    } else if !warned.is_empty() {
        CheckState::Warn
    } else {
        CheckState::Pass
    };
    Check::new(check::GPU_HEALTH, state, clipped(&evidence.join("; "))).steps(&steps)
}
