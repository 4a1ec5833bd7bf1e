//! Community runs ("matrix runs"): anyone signed in submits a report they measured. The
//! server checks it against the standard (shape, units, each status's rule, totals against
//! per-request figures and active requests: `bench::audit`) and refuses an inconsistent one
//! naming the fields; it stores it without any engine address, with its submitter, labelled
//! `community` — never verified — and signs a receipt (who submitted what, when), not the
//! figures. The submitter may withdraw it.

use chrono::{DateTime, Utc};
use domain::ValidationError;
use domain::quota::RollingDay;
use serde_json::{Value, json};
use store::{CommunityRunQuery, CommunityRunRecord};
use uuid::Uuid;

use crate::{App, AppError, Caller, Credential};

/// The predicate type of a community run's receipt.
pub const RECEIPT_PREDICATE: &str = "https://gpumarket.dev/attestations/community-run-receipt/v1";
/// A row of the community leaderboard.
#[derive(Debug, Clone, PartialEq)]
pub struct CommunityLeaderboardRow {
    pub gpu_model: String,
    pub model: String,
    pub context_tokens: i64,
    pub concurrency: i64,
    pub total_tok_s: f64,
    pub per_request_tok_s: Option<f64>,
    /// The engine the run's report names, when the standard knows it.
    pub engine: Option<String>,
    pub run_id: Uuid,
}

/// A decode cell of a community run's report.
pub type CommunityCell = bench::DecodeCell;

/// Longest launch command and hardware notes kept.
const MAX_NOTE_CHARS: usize = 4000;
/// The largest report stored, as JSON after its strings are clipped.
pub const MAX_REPORT_BYTES: usize = 128 * 1024;
/// Most rows of the community board.
const BOARD_ROWS: u64 = 1000;

/// Every string of a submitted report cleaned of control characters and cut like an
/// engine's: the model id to its bound, anything else to an error message's.
fn clip_strings(value: &mut Value, key: &str) {
    match value {
        Value::String(text) => {
            let max = if key == "model" {
                bench::bounds::MODEL_ID
            } else {
                bench::bounds::MESSAGE
            };
            *text = bench::bounds::clip(text, max);
        }
        Value::Array(items) => items.iter_mut().for_each(|item| clip_strings(item, key)),
        Value::Object(fields) => fields
            .iter_mut()
            .for_each(|(key, field)| clip_strings(field, key)),
        _ => {}
    }
}

/// What a submitter sends.
#[derive(Debug, Clone, Default)]
pub struct Submission {
    /// The report as `gpumarket bench --out` writes it.
    pub report: Value,
    pub catalog_gpu: Option<String>,
    pub catalog_model: Option<String>,
    pub launch_command: Option<String>,
    pub hardware_notes: Option<String>,
}

/// A stored community run.
#[derive(Debug, Clone)]
pub struct CommunityRun {
    pub id: Uuid,
    pub submitter_id: Uuid,
    pub submitter_handle: String,
    pub catalog_gpu: Option<String>,
    pub catalog_model: Option<String>,
    /// The model the engine served.
    pub model: String,
    pub report: Value,
    pub report_sha256: String,
    pub launch_command: Option<String>,
    pub hardware_notes: Option<String>,
    /// The signed receipt (a DSSE envelope).
    pub receipt: Value,
    pub created_at: DateTime<Utc>,
    /// The receipt's leaf in the transparency log.
    pub log_index: Option<u64>,
}

impl CommunityRun {
    fn of(r: CommunityRunRecord, log_index: Option<u64>) -> Self {
        Self {
            id: r.id,
            submitter_id: r.submitter_id,
            submitter_handle: r.submitter_handle,
            catalog_gpu: r.catalog_gpu,
            catalog_model: r.catalog_model,
            model: r.model,
            report: serde_json::from_str(&r.report).unwrap_or(Value::Null),
            report_sha256: r.report_sha256,
            launch_command: r.launch_command,
            hardware_notes: r.hardware_notes,
            receipt: serde_json::from_str(&r.receipt).unwrap_or(Value::Null),
            created_at: r.created_at,
            log_index,
        }
    }
}

fn note(field: &'static str, text: Option<String>) -> Result<Option<String>, ValidationError> {
    match text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()) {
        Some(t) if t.chars().count() > MAX_NOTE_CHARS => Err(ValidationError::new(
            field,
            format!("at most {MAX_NOTE_CHARS} characters"),
        )),
        other => Ok(other),
    }
}

impl App {
    /// Checks and stores a submitted report; its receipt is signed and logged.
    pub async fn submit_run(
        &self,
        caller: Caller,
        submission: Submission,
    ) -> Result<CommunityRun, AppError> {
        if matches!(caller.via, Credential::OrgKey { .. }) {
            return Err(AppError::Forbidden(
                "community runs are submitted by people: use your own API key".into(),
            ));
        }
        self.require_verified_email(caller).await?;
        let catalog_gpu = submission
            .catalog_gpu
            .map(|id| domain::catalog_id("catalog.gpu", &id, |c, id| c.gpu(id).is_some()))
            .transpose()?;
        let catalog_model = submission
            .catalog_model
            .map(|id| domain::catalog_id("catalog.model", &id, |c, id| c.model(id).is_some()))
            .transpose()?;
        let launch_command = note("launch_command", submission.launch_command)?;
        let hardware_notes = note("hardware_notes", submission.hardware_notes)?;
        let mut report: bench::Report = serde_path_to_error::deserialize(submission.report)
            .map_err(|e| {
                AppError::Invalid(vec![(
                    format!("report.{}", e.path()),
                    e.inner().to_string(),
                )])
            })?;
        let findings = bench::audit::audit(&report);
        if !findings.is_empty() {
            return Err(AppError::Invalid(
                findings
                    .into_iter()
                    .map(|(field, why)| (format!("report.{field}"), why))
                    .collect(),
            ));
        }
        // Never an engine address in anything stored or shown.
        report.engine.base_url = None;
        let cells: Vec<(usize, i64, i64, f64, Option<f64>)> = report
            .decode
            .iter()
            .enumerate()
            .filter(|(_, c)| c.status == bench::Status::Valid)
            .filter_map(|(i, c)| {
                let total = c.total_tok_s?;
                Some((
                    i,
                    c.context_tokens as i64,
                    c.concurrency as i64,
                    total,
                    c.per_request_tok_s,
                ))
            })
            .collect();
        self.db()
            .user_by_id(caller.user_id)
            .await?
            .filter(|user| user.deleted_at.is_none())
            .ok_or(AppError::Unauthenticated)?;
        let mut stored =
            serde_json::to_value(&report).map_err(|e| AppError::Internal(e.to_string()))?;
        clip_strings(&mut stored, "");
        let size = stored.to_string().len();
        if size > MAX_REPORT_BYTES {
            return Err(ValidationError::new(
                "report",
                format!("is {size} bytes as stored; at most {MAX_REPORT_BYTES}"),
            )
            .into());
        }
        let engine_name = stored["engine"]["name"]
            .as_str()
            .and_then(domain::known_engine)
            .map(str::to_owned);
        let model: String = stored["engine"]["model"]
            .as_str()
            .unwrap_or_default()
            .chars()
            .take(200)
            .collect();
        let report_sha256 = crate::trust::reports::sha256_hex(&attest::canonical_json(&stored));
        // A pseudonym, not the person's name: a signed receipt cannot be changed when its
        // submitter's account is erased.
        let handle = self
            .db()
            .community_handle(caller.user_id, || {
                format!("member-{}", &Uuid::new_v4().simple().to_string()[..12])
            })
            .await?;
        let (id, now) = (Uuid::now_v7(), Utc::now());
        let statement = attest::statement(
            &format!("gpumarket:run:{id}"),
            &report_sha256,
            RECEIPT_PREDICATE,
            json!({
                "run_id": id,
                "label": "community",
                "submitter": {"handle": handle},
                "submitted_at": now.to_rfc3339(),
                "report_sha256": report_sha256,
                "catalog": {"gpu": catalog_gpu, "model": catalog_model},
                "note": "the platform signs who submitted this report and when, not its figures",
            }),
        );
        let receipt = attest::sign_statement(self.signer(), &statement);
        let receipt_json =
            serde_json::to_value(&receipt).map_err(|e| AppError::Internal(e.to_string()))?;
        let record = CommunityRunRecord {
            id,
            submitter_id: caller.user_id.as_uuid(),
            submitter_handle: handle,
            catalog_gpu,
            catalog_model,
            model: model.clone(),
            report: stored.to_string(),
            report_sha256,
            launch_command,
            hardware_notes,
            receipt: receipt_json.to_string(),
            created_at: now,
            withdrawn_at: None,
        };
        let cells = cells
            .into_iter()
            .map(
                |(i, context, concurrency, total, per_request)| store::CommunityCellRecord {
                    run_id: id,
                    position: i32::try_from(i).unwrap_or(i32::MAX),
                    catalog_gpu: record.catalog_gpu.clone(),
                    catalog_model: record.catalog_model.clone(),
                    model: model.clone(),
                    context_tokens: context,
                    concurrency,
                    total_tok_s: total,
                    per_request_tok_s: per_request,
                    engine_name: engine_name.clone(),
                    cell: stored["decode"][i].to_string(),
                },
            )
            .collect();
        let per_day = self.config().limits.community_runs_per_day;
        match self
            .db()
            .insert_community_run(
                record.clone(),
                cells,
                attest::log_leaf(&receipt_json).0,
                RollingDay::new(per_day as usize),
            )
            .await?
        {
            store::Submitted::Stored(index) => Ok(CommunityRun::of(record, Some(index))),
            store::Submitted::OverQuota { frees_at } => Err(AppError::RateLimited {
                what: format!(
                    "you submitted {per_day} runs in the last 24 hours (community_runs_per_day)"
                ),
                retry_after_secs: (frees_at - now).num_seconds().max(1) as u64,
            }),
        }
    }

    /// A community run that was not withdrawn.
    pub async fn community_run(&self, id: Uuid) -> Result<CommunityRun, AppError> {
        let record = self
            .db()
            .community_run(id)
            .await?
            .filter(|r| r.withdrawn_at.is_none())
            .ok_or(AppError::NotFound("run"))?;
        let index = self.db().log_index_of(id).await?;
        Ok(CommunityRun::of(record, index))
    }

    /// Community runs, newest first, by catalog GPU and model.
    pub async fn community_runs(
        &self,
        gpu: Option<&str>,
        model: Option<&str>,
        before: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<CommunityRun>, AppError> {
        let query = CommunityRunQuery { gpu, model, before };
        let records = self.db().community_runs(query, limit).await?;
        let ids: Vec<Uuid> = records.iter().map(|r| r.id).collect();
        let indexes = self.db().log_indexes_of(&ids).await?;
        Ok(records
            .into_iter()
            .map(|r| {
                let index = indexes.get(&r.id).copied();
                CommunityRun::of(r, index)
            })
            .collect())
    }

    /// The best total tok/s of community runs per GPU, model and engine (the catalog GPU's
    /// name, or `unknown`; the model the engine served; the engine its report names),
    /// optionally at one context and concurrency:
    /// read from the board's maintained cells, never from stored reports.
    pub async fn community_leaderboard(
        &self,
        context: Option<i64>,
        concurrency: Option<i64>,
    ) -> Result<Vec<CommunityLeaderboardRow>, AppError> {
        let catalogs = catalog::Catalog::get().ok();
        let mut best: Vec<CommunityLeaderboardRow> = Vec::new();
        for cell in self
            .db()
            .community_best(context, concurrency, BOARD_ROWS)
            .await?
        {
            let gpu_model = cell
                .catalog_gpu
                .as_deref()
                .and_then(|id| catalogs.and_then(|c| c.gpu(id)))
                .map_or_else(|| "unknown".to_owned(), |g| g.name.clone());
            // Ids the catalog no longer knows share the `unknown` row.
            if best.iter().any(|r| {
                r.gpu_model == gpu_model && r.model == cell.model && r.engine == cell.engine_name
            }) {
                continue; // best first: the first of each pair is its best
            }
            best.push(CommunityLeaderboardRow {
                gpu_model,
                model: cell.model,
                context_tokens: cell.context_tokens,
                concurrency: cell.concurrency,
                total_tok_s: cell.total_tok_s,
                per_request_tok_s: cell.per_request_tok_s,
                engine: cell.engine_name,
                run_id: cell.run_id,
            });
        }
        Ok(best)
    }

    /// The submitter takes a run back: it leaves every list; its receipt stays in the log.
    pub async fn withdraw_run(&self, caller: Caller, id: Uuid) -> Result<(), AppError> {
        let run = self.community_run(id).await?;
        if run.submitter_id != caller.user_id.as_uuid()
            || matches!(caller.via, Credential::OrgKey { .. })
        {
            return Err(AppError::Forbidden(
                "only its submitter withdraws a run".into(),
            ));
        }
        self.db().withdraw_community_run(id, Utc::now()).await?;
        Ok(())
    }
}
