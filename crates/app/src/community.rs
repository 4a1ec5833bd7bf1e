//! Community runs ("matrix runs"): anyone signed in submits a report they measured. The
//! server checks it against the standard (shape, units, each status's rule, totals against
//! per-request figures and active requests: `bench::audit`) and refuses an inconsistent one
//! naming the fields; it stores it without any engine address, with its submitter, labelled
//! `community` — never verified — and signs a receipt (who submitted what, when), not the
//! figures. The submitter may withdraw it.

use chrono::{DateTime, Utc};
use domain::ValidationError;
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
    pub run_id: Uuid,
}

/// A decode cell of a community run's report.
pub type CommunityCell = bench::DecodeCell;

/// Longest launch command and hardware notes kept.
const MAX_NOTE_CHARS: usize = 4000;

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
        let user = self
            .db()
            .user_by_id(caller.user_id)
            .await?
            .ok_or(AppError::Unauthenticated)?;
        let stored =
            serde_json::to_value(&report).map_err(|e| AppError::Internal(e.to_string()))?;
        let report_sha256 = crate::reports::sha256_hex(&attest::canonical_json(&stored));
        let (id, now) = (Uuid::now_v7(), Utc::now());
        let statement = attest::statement(
            &format!("gpumarket:run:{id}"),
            &report_sha256,
            RECEIPT_PREDICATE,
            json!({
                "run_id": id,
                "label": "community",
                "submitter": {"handle": user.name},
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
            submitter_handle: user.name,
            catalog_gpu,
            catalog_model,
            model: report.engine.model.chars().take(200).collect(),
            report: stored.to_string(),
            report_sha256,
            launch_command,
            hardware_notes,
            receipt: receipt_json.to_string(),
            created_at: now,
            withdrawn_at: None,
        };
        let index = self
            .db()
            .insert_community_run(record.clone(), attest::log_leaf(&receipt_json).0)
            .await?;
        Ok(CommunityRun::of(record, Some(index)))
    }

    /// A community run that was not withdrawn.
    pub async fn community_run(&self, id: Uuid) -> Result<CommunityRun, AppError> {
        let record = self
            .db()
            .community_run(id)
            .await?
            .filter(|r| r.withdrawn_at.is_none())
            .ok_or(AppError::NotFound("run"))?;
        let index = self.log_index_of(id).await?;
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

    /// The best total tok/s of community runs per GPU and model (the catalog GPU's name, or
    /// `unknown`; the model the engine served), optionally at one context and concurrency.
    pub async fn community_leaderboard(
        &self,
        context: Option<i64>,
        concurrency: Option<i64>,
    ) -> Result<Vec<CommunityLeaderboardRow>, AppError> {
        let catalogs = catalog::Catalog::get().ok();
        let mut best: Vec<CommunityLeaderboardRow> = Vec::new();
        for run in self.community_runs(None, None, None, 500).await? {
            let Ok(report) = serde_json::from_value::<bench::Report>(run.report.clone()) else {
                continue;
            };
            let gpu_model = run
                .catalog_gpu
                .as_deref()
                .and_then(|id| catalogs.and_then(|c| c.gpu(id)))
                .map_or_else(|| "unknown".to_owned(), |g| g.name.clone());
            for cell in report.decode.iter().filter(|c| {
                c.status == bench::Status::Valid
                    && context.is_none_or(|x| c.context_tokens as i64 == x)
                    && concurrency.is_none_or(|x| c.concurrency as i64 == x)
            }) {
                let Some(total) = cell.total_tok_s else {
                    continue;
                };
                let row = CommunityLeaderboardRow {
                    gpu_model: gpu_model.clone(),
                    model: run.model.clone(),
                    context_tokens: cell.context_tokens as i64,
                    concurrency: cell.concurrency as i64,
                    total_tok_s: total,
                    per_request_tok_s: cell.per_request_tok_s,
                    run_id: run.id,
                };
                match best
                    .iter_mut()
                    .find(|r| r.gpu_model == row.gpu_model && r.model == row.model)
                {
                    Some(current) if current.total_tok_s >= total => {}
                    Some(current) => *current = row,
                    None => best.push(row),
                }
            }
        }
        best.sort_by(|a, b| b.total_tok_s.total_cmp(&a.total_tok_s));
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
