//! Signed reports: the harness report, the listing's claim and the run's facts as the
//! predicate of an in-toto statement in a DSSE envelope; their per-cell rows; organisation
//! reports, the leaderboard, and the matrix as CSV and SVG.

use std::fmt::Write;

use attest::{Envelope, KeyPair, PublishedKey};
use chrono::Utc;
use domain::OrgId;
use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use store::{CellRecord, ListingRecord, NewReport, ReportRecord, RunRecord};
use uuid::Uuid;

use crate::{App, AppError};

/// The predicate type of a listing's verification report.
pub const REPORT_PREDICATE: &str = "https://gpumarket.dev/attestations/standard-benchmark/v1";
/// The predicate type of an organisation report.
pub const ORG_PREDICATE: &str = "https://gpumarket.dev/attestations/organisation-report/v1";

/// The figures a listing shows from its latest report.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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
    pub summary: Value,
    pub headline: Headline,
    pub cells: Vec<CellRecord>,
}

impl SignedReport {
    pub fn into_record(self) -> NewReport {
        NewReport {
            id: self.id,
            run_id: self.run_id,
            listing_id: self.listing_id,
            org_id: self.org_id,
            compliant: self.compliant,
            key_id: self.key_id,
            envelope: serde_json::to_string(&self.envelope).unwrap_or_default(),
            summary: self.summary.to_string(),
            created_at: Utc::now(),
            cells: self.cells,
            headline: (
                self.headline.best_total_tok_s,
                self.headline.single_stream_tok_s,
            ),
        }
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
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
        "engine": {"base_url": listing.engine_base_url, "model": listing.engine_model},
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
    let mut predicate =
        serde_json::to_value(report).map_err(|e| AppError::Internal(e.to_string()))?;
    predicate["hardware"] = json!({"claimed": claim.clone(), "observed": report.hardware.clone()});
    predicate["verification"] = json!({
        "report_id": id,
        "run_id": run.id,
        "listing_id": listing.id,
        "org_id": listing.org_id,
        "profile": run.profile,
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
    let summary = json!({
        "compliant": report.compliance.compliant,
        "reasons": report.compliance.reasons,
        "headline": headline,
        "model": report.engine.model,
        "engine_version": report.engine.version,
        "gpu_model": listing.gpu_model,
        "profile": run.profile,
        "partial": report.partial,
        "decode_cells": report.decode.len(),
        "prefill_contexts": report.prefill.len(),
        "finished_at": report.finished_at,
    });
    let mut cells: Vec<CellRecord> = report
        .decode
        .iter()
        .map(|c| CellRecord {
            report_id: id,
            phase: "decode".to_owned(),
            context_tokens: c.context_tokens as i64,
            concurrency: c.concurrency as i64,
            status: status_name(c.status),
            total_tok_s: c.total_tok_s,
            per_request_tok_s: c.per_request_tok_s,
            ttft_ms: c.ttft_ms_median,
            tbt_ms: c.tbt_ms_median,
            prompt_tok_s: None,
        })
        .collect();
    cells.extend(report.prefill.iter().map(|e| CellRecord {
        report_id: id,
        phase: "prefill".to_owned(),
        context_tokens: e.context_tokens as i64,
        concurrency: 1,
        status: status_name(e.status),
        total_tok_s: None,
        per_request_tok_s: None,
        ttft_ms: e.ttft_ms,
        tbt_ms: None,
        prompt_tok_s: e.prompt_tok_s,
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
    })
}

fn status_name(status: bench::Status) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A stored report with its envelope parsed.
#[derive(Debug, Clone)]
pub struct StoredReport {
    pub record: ReportRecord,
    pub envelope: Value,
    pub summary: Value,
}

impl StoredReport {
    fn of(record: ReportRecord) -> Self {
        let envelope = serde_json::from_str(&record.envelope).unwrap_or(Value::Null);
        let summary = serde_json::from_str(&record.summary).unwrap_or(Value::Null);
        Self {
            record,
            envelope,
            summary,
        }
    }
}

/// A row of the leaderboard.
#[derive(Debug, Clone, Serialize)]
pub struct LeaderboardRow {
    pub gpu_model: String,
    pub model: String,
    pub context_tokens: i64,
    pub concurrency: i64,
    pub total_tok_s: f64,
    pub per_request_tok_s: Option<f64>,
    pub report_id: Uuid,
    pub listing_id: Uuid,
}

impl App {
    pub async fn report(&self, id: Uuid) -> Result<StoredReport, AppError> {
        self.db()
            .report_by_id(id)
            .await?
            .map(StoredReport::of)
            .ok_or(AppError::NotFound("report"))
    }

    pub async fn report_cells(&self, id: Uuid) -> Result<Vec<CellRecord>, AppError> {
        self.report(id).await?;
        Ok(self.db().cells_of_report(id).await?)
    }

    pub async fn listing_reports(&self, listing: Uuid) -> Result<Vec<StoredReport>, AppError> {
        self.listing(listing).await?;
        Ok(self
            .db()
            .reports_of_listing(listing)
            .await?
            .into_iter()
            .map(StoredReport::of)
            .collect())
    }

    /// Every published key, active and retired.
    pub async fn signing_keys(&self) -> Result<Vec<PublishedKey>, AppError> {
        Ok(self
            .db()
            .signing_keys()
            .await?
            .into_iter()
            .map(|k| PublishedKey {
                key_id: k.key_id,
                algorithm: "ed25519".to_owned(),
                public_key: k.public_key,
                created_at: k.created_at.to_rfc3339(),
                retired_at: k.retired_at.map(|t| t.to_rfc3339()),
            })
            .collect())
    }

    /// Best verified figures by GPU model and engine model, optionally at one context and
    /// concurrency; each row names its report.
    pub async fn leaderboard(
        &self,
        context: Option<i64>,
        concurrency: Option<i64>,
    ) -> Result<Vec<LeaderboardRow>, AppError> {
        let cells = self.db().best_cells(context, concurrency, 2000).await?;
        let mut rows: Vec<LeaderboardRow> = Vec::new();
        for (cell, report) in cells {
            let summary: Value = serde_json::from_str(&report.summary).unwrap_or(Value::Null);
            let gpu_model = summary["gpu_model"].as_str().unwrap_or_default().to_owned();
            let model = summary["model"].as_str().unwrap_or_default().to_owned();
            if rows
                .iter()
                .any(|r| r.gpu_model == gpu_model && r.model == model)
            {
                continue; // cells come best first: the first of each pair is its best
            }
            rows.push(LeaderboardRow {
                gpu_model,
                model,
                context_tokens: cell.context_tokens,
                concurrency: cell.concurrency,
                total_tok_s: cell.total_tok_s.unwrap_or_default(),
                per_request_tok_s: cell.per_request_tok_s,
                report_id: report.id,
                listing_id: report.listing_id,
            });
        }
        Ok(rows)
    }

    /// The organisation's verified fleet, signed like a listing's report.
    pub async fn org_report(&self, org: OrgId) -> Result<Value, AppError> {
        let record = self
            .db()
            .org_by_id(org)
            .await?
            .ok_or(AppError::NotFound("organisation"))?;
        let listings = self.db().listings_of_org(org).await?;
        let mut fleet = Vec::new();
        let mut best_by_gpu: std::collections::BTreeMap<String, f64> =
            std::collections::BTreeMap::new();
        for listing in &listings {
            let best = listing.headline_total_tok_s;
            if let Some(best) = best {
                let entry = best_by_gpu.entry(listing.gpu_model.clone()).or_insert(best);
                *entry = entry.max(best);
            }
            fleet.push(json!({
                "listing_id": listing.id,
                "title": listing.title,
                "gpu_model": listing.gpu_model,
                "gpu_count": listing.gpu_count,
                "verified": listing.latest_report_id.is_some(),
                "latest_report_id": listing.latest_report_id,
                "verified_at": listing.verified_at.map(|t| t.to_rfc3339()),
                "headline": {"best_total_tok_s": listing.headline_total_tok_s, "single_stream_tok_s": listing.headline_per_request_tok_s},
            }));
        }
        let verified = listings
            .iter()
            .filter(|l| l.latest_report_id.is_some())
            .count();
        let predicate = json!({
            "org": {"id": record.id, "name": record.name},
            "listings": fleet,
            "counts": {"listings": listings.len(), "verified": verified},
            "best_total_tok_s_by_gpu_model": best_by_gpu,
            "generated_at": Utc::now().to_rfc3339(),
        });
        let statement = attest::statement(
            &format!("gpumarket:org:{}", record.id),
            &sha256_hex(record.id.as_uuid().as_bytes()),
            ORG_PREDICATE,
            predicate.clone(),
        );
        let envelope = attest::sign_statement(self.signer(), &statement);
        Ok(json!({"org_id": record.id, "report": predicate, "envelope": envelope}))
    }
}

/// The decode matrix of a stored report as CSV (one row per cell).
pub fn matrix_csv(cells: &[CellRecord]) -> String {
    let mut out = String::from(
        "phase,context_tokens,concurrency,status,total_tok_s,per_request_tok_s,ttft_ms,tbt_ms,prompt_tok_s\n",
    );
    let num = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_default();
    for c in cells {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{}",
            c.phase,
            c.context_tokens,
            c.concurrency,
            c.status,
            num(c.total_tok_s),
            num(c.per_request_tok_s),
            num(c.ttft_ms),
            num(c.tbt_ms),
            num(c.prompt_tok_s)
        );
    }
    out
}

/// The decode matrix as an SVG heatmap: rows = contexts, columns = concurrency, colour =
/// total tok/s (darker is faster), status words in cells that did not run validly.
pub fn matrix_svg(cells: &[CellRecord]) -> String {
    let decode: Vec<&CellRecord> = cells.iter().filter(|c| c.phase == "decode").collect();
    let mut contexts: Vec<i64> = decode.iter().map(|c| c.context_tokens).collect();
    contexts.sort_unstable();
    contexts.dedup();
    let mut levels: Vec<i64> = decode.iter().map(|c| c.concurrency).collect();
    levels.sort_unstable();
    levels.dedup();
    let best = decode
        .iter()
        .filter_map(|c| c.total_tok_s)
        .fold(0.0f64, f64::max);
    let (cw, ch, left, top) = (96, 40, 80, 40);
    let width = left + cw * levels.len() + 10;
    let height = top + ch * contexts.len() + 10;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n"
    );
    let _ = writeln!(
        svg,
        "<text x=\"4\" y=\"16\">context \\ streams (total tok/s)</text>"
    );
    for (i, level) in levels.iter().enumerate() {
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{level}</text>",
            left + i * cw + cw / 2,
            top - 8
        );
    }
    for (r, context) in contexts.iter().enumerate() {
        let y = top + r * ch;
        let label = if *context >= 1024 && context % 1024 == 0 {
            format!("{}K", context / 1024)
        } else {
            context.to_string()
        };
        let _ = writeln!(svg, "<text x=\"4\" y=\"{}\">{label}</text>", y + ch / 2 + 4);
        for (i, level) in levels.iter().enumerate() {
            let x = left + i * cw;
            let cell = decode
                .iter()
                .find(|c| c.context_tokens == *context && c.concurrency == *level);
            let (fill, text) = match cell {
                Some(c) if c.status == "valid" || c.status == "requests_queued" => {
                    let total = c.total_tok_s.unwrap_or_default();
                    let share = if best > 0.0 { total / best } else { 0.0 };
                    let light = 92.0 - 55.0 * share;
                    let mark = if c.status == "valid" { "" } else { " (queued)" };
                    (
                        format!("hsl(210,70%,{light:.0}%)"),
                        format!("{total:.1}{mark}"),
                    )
                }
                Some(c) => ("#eeeeee".to_owned(), c.status.replace('_', " ")),
                None => ("#ffffff".to_owned(), String::new()),
            };
            let _ = writeln!(
                svg,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{cw}\" height=\"{ch}\" fill=\"{fill}\" stroke=\"#ffffff\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{text}</text>",
                x + cw / 2,
                y + ch / 2 + 4
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}
