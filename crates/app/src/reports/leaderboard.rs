//! The leaderboard (best verified figures by GPU and model) and organisation reports.

use chrono::Utc;
use domain::OrgId;
use serde::Serialize;
use serde_json::{Value, json};

use super::ORG_PREDICATE;
use super::signing::sha256_hex;
use crate::{App, AppError};

/// A row of the leaderboard.
#[derive(Debug, Clone, Serialize)]
pub struct LeaderboardRow {
    pub gpu_model: String,
    pub model: String,
    pub context_tokens: i64,
    pub concurrency: i64,
    pub total_tok_s: f64,
    pub per_request_tok_s: Option<f64>,
    pub report_id: domain::ReportId,
    pub listing_id: domain::ListingId,
}

impl App {
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
                report_id: report.id.into(),
                listing_id: report.listing_id.into(),
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
