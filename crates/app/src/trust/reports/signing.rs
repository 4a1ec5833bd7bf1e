//! Report signing: a run's report, the listing's claim and the run's facts become the
//! predicate of an in-toto statement, signed as a DSSE envelope, with its per-cell rows.

use attest::{Envelope, KeyPair};
use chrono::Utc;
use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use store::{CellRecord, ListingRecord, NewReport, RunRecord};
use uuid::Uuid;

use super::REPORT_PREDICATE;
use crate::AppError;

/// The figures a listing shows from its latest report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Headline {
    /// The best valid total tok/s of any decode cell.
    pub best_total_tok_s: Option<f64>,
    /// Per-request tok/s of the single stream at the smallest context.
    pub single_stream_tok_s: Option<f64>,
    /// Prompt tok/s at the smallest prefill context.
    pub prefill_tok_s: Option<f64>,
}

impl Headline {
    pub fn of(report: &bench::Report) -> Self {
        let valid = |s: bench::Status| s == bench::Status::Valid;
        Self {
            best_total_tok_s: report
                .decode
                .iter()
                .filter(|c| valid(c.status))
                .filter_map(|c| c.total_tok_s)
                .reduce(f64::max),
            single_stream_tok_s: report
                .decode
                .iter()
                .filter(|c| valid(c.status) && c.concurrency == 1)
                .min_by_key(|c| c.context_tokens)
                .and_then(|c| c.per_request_tok_s),
            prefill_tok_s: report
                .prefill
                .iter()
                .filter(|e| valid(e.status))
                .min_by_key(|e| e.context_tokens)
                .and_then(|e| e.prompt_tok_s),
        }
    }
}

/// A report signed and ready to store.
#[derive(Debug, Clone)]
pub struct SignedReport {
    pub id: Uuid,
    pub run_id: Uuid,
    pub listing_id: Uuid,
    pub org_id: Uuid,
    pub compliant: bool,
    pub key_id: String,
    pub envelope: Envelope,
    pub summary: super::ReportSummary,
    pub headline: Headline,
    pub cells: Vec<CellRecord>,
    /// The listing's hardware and engine as measured.
    pub measured: store::MeasuredClaim,
    /// `verification` or `spot_check` (the run's kind).
    pub kind: String,
    /// What the run cost, when the harness measured it.
    pub cost: Option<bench::report::Cost>,
    /// The run's visibility: a private report's log leaf is its digest.
    pub visibility: String,
}

impl SignedReport {
    /// The row to store, with its transparency-log leaf (see [`attest::log_leaf`]).
    pub fn into_record(self) -> Result<NewReport, AppError> {
        let envelope =
            serde_json::to_value(&self.envelope).map_err(|e| AppError::Internal(e.to_string()))?;
        // A private report's predicate says so: its leaf is the envelope's digest.
        let (log_leaf, log_private) = attest::log_leaf(&envelope);
        Ok(NewReport {
            id: self.id,
            run_id: self.run_id,
            listing_id: self.listing_id,
            org_id: self.org_id,
            compliant: self.compliant,
            key_id: self.key_id,
            envelope: serde_json::to_string(&self.envelope).unwrap_or_default(),
            summary: serde_json::to_string(&self.summary).unwrap_or_default(),
            created_at: Utc::now(),
            cells: self.cells,
            headline: (
                self.headline.best_total_tok_s,
                self.headline.single_stream_tok_s,
            ),
            measured: self.measured,
            kind: self.kind,
            badge: None,
            cost: self.cost.and_then(|cost| serde_json::to_string(&cost).ok()),
            log_leaf,
            log_private,
            engine: self.summary.engine_name.clone(),
            visibility: self.visibility,
        })
    }
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The listing's claim: what verification checks the machine against.
fn claim(listing: &ListingRecord) -> Value {
    json!({
        "listing_id": listing.id,
        "org_id": listing.org_id,
        "gpu_model": listing.gpu_model,
        "gpu_count": listing.gpu_count,
        "vram_gb": listing.vram_gb,
        "cpu_model": listing.cpu_model,
        "ram_gb": listing.ram_gb,
        "region": listing.region,
        "engine": {"model": listing.engine_model},
    })
}

pub(crate) fn sign_run_report(
    key: &KeyPair,
    run: &RunRecord,
    listing: &ListingRecord,
    report: &bench::Report,
) -> Result<SignedReport, AppError> {
    let id = Uuid::now_v7();
    let claim = claim(listing);
    // The engine's facts are signed, its address never: a public report must not hand out
    // the provider's engine.
    let mut public = report.clone();
    public.engine.base_url = None;
    let mut predicate =
        serde_json::to_value(&public).map_err(|e| AppError::Internal(e.to_string()))?;
    predicate["hardware"] = json!({"claimed": claim.clone(), "observed": report.hardware.clone()});
    predicate["verification"] = json!({
        "report_id": id,
        "run_id": run.id,
        "listing_id": listing.id,
        "org_id": listing.org_id,
        "profile": run.profile,
        "kind": run.kind,
        "baseline_report_id": run.baseline_report_id,
        "visibility": run.visibility,
        "attempt": run.attempts,
        "signed_at": Utc::now().to_rfc3339(),
    });
    let subject_digest = sha256_hex(&attest::canonical_json(&claim));
    let statement = attest::statement(
        &format!("gpumarket:listing:{}", listing.id),
        &subject_digest,
        REPORT_PREDICATE,
        predicate,
    );
    let envelope = attest::sign_statement(key, &statement);
    let headline = Headline::of(report);
    let summary = super::ReportSummary {
        compliant: report.compliance.compliant,
        reasons: report.compliance.reasons.clone(),
        headline: headline.clone(),
        model: report.engine.model.clone(),
        engine_name: Some(report.engine.name.clone()),
        engine_version: report.engine.version.clone(),
        engine_fingerprint: report.engine.fingerprint.clone(),
        gpu_model: listing.gpu_model.clone(),
        profile: run.profile.clone(),
        partial: report.partial,
        decode_cells: report.decode.len(),
        prefill_contexts: report.prefill.len(),
        finished_at: report.finished_at.clone(),
        cost: report.cost.clone(),
    };
    let mut cells: Vec<CellRecord> = report
        .decode
        .iter()
        .map(|c| CellRecord {
            report_id: id,
            phase: domain::CellPhase::Decode,
            context_tokens: c.context_tokens as i64,
            concurrency: c.concurrency as i64,
            status: c.status,
            total_tok_s: c.total_tok_s,
            per_request_tok_s: c.per_request_tok_s,
            ttft_ms: c.ttft_ms_median,
            tbt_ms: c.tbt_ms_median,
            prompt_tok_s: None,
            ttft_ms_p99: c.ttft_ms_p99,
            ttft_samples: c.ttft_samples.and_then(|n| i64::try_from(n).ok()),
            itl_ms_p99: c.itl_ms_p99,
            tokens_per_chunk: c.tokens_per_chunk,
            energy_j_per_token: c
                .energy_j_per_token
                .filter(|_| c.energy_status.as_deref() == Some("ok")),
        })
        .collect();
    cells.extend(report.prefill.iter().map(|e| CellRecord {
        report_id: id,
        phase: domain::CellPhase::Prefill,
        context_tokens: e.context_tokens as i64,
        concurrency: 1,
        status: e.status,
        total_tok_s: None,
        per_request_tok_s: None,
        ttft_ms: e.ttft_ms,
        tbt_ms: None,
        prompt_tok_s: e.prompt_tok_s,
        ttft_ms_p99: None,
        ttft_samples: None,
        itl_ms_p99: None,
        tokens_per_chunk: None,
        energy_j_per_token: None,
    }));
    Ok(SignedReport {
        id,
        run_id: run.id,
        listing_id: listing.id,
        org_id: listing.org_id,
        compliant: report.compliance.compliant,
        key_id: key.key_id().to_owned(),
        envelope,
        summary,
        headline,
        cells,
        measured: store::MeasuredClaim::of(listing),
        kind: run.kind.clone(),
        cost: report.cost.clone(),
        visibility: run.visibility.clone(),
    })
}
