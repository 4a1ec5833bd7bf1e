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
    /// The engine measured; `None` for reports signed before engines were named.
    pub engine: Option<String>,
    pub context_tokens: i64,
    pub concurrency: i64,
    pub total_tok_s: f64,
    pub per_request_tok_s: Option<f64>,
    pub report_id: domain::ReportId,
    pub listing_id: domain::ListingId,
}

impl App {
    /// Best verified figures by GPU model, engine model and engine, optionally at one context
    /// and concurrency; each row names its report.
    pub async fn leaderboard(
        &self,
        context: Option<i64>,
        concurrency: Option<i64>,
    ) -> Result<Vec<LeaderboardRow>, AppError> {
        let cells = self.db().best_cells(context, concurrency, 2000).await?;
        let mut rows: Vec<LeaderboardRow> = Vec::new();
        for (cell, report) in cells {
            let super::ReportSummary {
                gpu_model,
                model,
                engine_name: engine,
                ..
            } = super::ReportSummary::of_stored(&report.summary);
            if rows
                .iter()
                .any(|r| r.gpu_model == gpu_model && r.model == model && r.engine == engine)
            {
                continue; // cells come best first: the first of each triple is its best
            }
            rows.push(LeaderboardRow {
                gpu_model,
                model,
                engine,
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

    /// The organisation's verified fleet, signed like a listing's report: a stored snapshot,
    /// signed and logged when its content changes (not on every read), and at most once per
    /// `org_report_min_secs` — within that period a change shows in the next snapshot, so a
    /// snapshot may be that much behind (its `generated_at` says when it was true), and
    /// edits cannot grow the transparency log faster.
    pub async fn org_report(&self, org: OrgId) -> Result<OrgReport, AppError> {
        let record = self
            .db()
            .org_by_id(org)
            .await?
            .ok_or(AppError::NotFound("organisation"))?;
        let content = self.org_report_content(&record).await?;
        let digest = sha256_hex(&attest::canonical_json(&content));
        // A concurrent change may take the next sequence first: read again and retry.
        for _ in 0..5 {
            let latest = self.db().latest_org_report(org.as_uuid()).await?;
            if let Some(latest) = &latest
                && latest.content_sha256 == digest
            {
                let index = self.db().log_index_of(latest.id).await?;
                return Ok(OrgReport::of(latest.clone(), index));
            }
            let now = Utc::now();
            let period = chrono::Duration::seconds(
                i64::try_from(self.config().reports.org_report_min_secs).unwrap_or(i64::MAX / 1000),
            );
            if let Some(latest) = &latest
                && now - latest.created_at < period
            {
                let index = self.db().log_index_of(latest.id).await?;
                return Ok(OrgReport::of(latest.clone(), index));
            }
            let id = uuid::Uuid::now_v7();
            let mut predicate = content.clone();
            predicate["report_id"] = json!(id);
            predicate["generated_at"] = json!(now.to_rfc3339());
            let statement = attest::statement(
                &format!("gpumarket:org:{}", record.id),
                &sha256_hex(record.id.as_uuid().as_bytes()),
                ORG_PREDICATE,
                predicate.clone(),
            );
            let envelope = attest::sign_statement(self.signer(), &statement);
            let envelope_json =
                serde_json::to_value(&envelope).map_err(|e| AppError::Internal(e.to_string()))?;
            let (leaf, _) = attest::log_leaf(&envelope_json);
            let snapshot = store::OrgReportRecord {
                id,
                org_id: org.as_uuid(),
                sequence: latest.map_or(1, |l| l.sequence + 1),
                content_sha256: digest.clone(),
                report: predicate.to_string(),
                envelope: envelope_json.to_string(),
                key_id: self.signer().key_id().to_owned(),
                created_at: now,
            };
            match self.db().insert_org_report(snapshot.clone(), leaf).await {
                Ok(index) => return Ok(OrgReport::of(snapshot, Some(index))),
                Err(store::StoreError::Conflict(_)) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(AppError::Internal(
            "the organisation report kept changing while it was signed".into(),
        ))
    }

    /// What an organisation report says, without its time: its listings, counts and best
    /// figures.
    async fn org_report_content(&self, record: &store::OrgRecord) -> Result<Value, AppError> {
        let listings = self.db().listings_of_org(record.id).await?;
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
        Ok(json!({
            "org": {"id": record.id, "name": record.name},
            "listings": fleet,
            "counts": {"listings": listings.len(), "verified": verified},
            "best_total_tok_s_by_gpu_model": best_by_gpu,
        }))
    }
}

/// A signed organisation report snapshot.
#[derive(Debug, Clone)]
pub struct OrgReport {
    pub id: uuid::Uuid,
    pub org_id: OrgId,
    pub report: Value,
    pub envelope: Value,
    /// Its leaf in the transparency log.
    pub log_index: Option<u64>,
    pub created_at: chrono::DateTime<Utc>,
}

impl OrgReport {
    fn of(record: store::OrgReportRecord, log_index: Option<u64>) -> Self {
        Self {
            id: record.id,
            org_id: OrgId::from_uuid(record.org_id),
            report: serde_json::from_str(&record.report).unwrap_or(Value::Null),
            envelope: serde_json::from_str(&record.envelope).unwrap_or(Value::Null),
            log_index,
            created_at: record.created_at,
        }
    }
}
