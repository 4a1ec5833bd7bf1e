//! Signed reports: the harness report, the listing's claim and the run's facts as the
//! predicate of an in-toto statement in a DSSE envelope (`signing.rs`); their per-cell rows;
//! organisation reports and the leaderboard (`leaderboard.rs`). The CSV and SVG renderings
//! live beside the API that serves them.

mod leaderboard;
mod signing;

use attest::PublishedKey;
use chrono::{DateTime, Utc};
use serde_json::Value;
use store::ReportRecord;

use crate::{App, AppError};

pub use leaderboard::LeaderboardRow;
pub(crate) use signing::sign_run_report;
pub use signing::{Headline, SignedReport};

/// The predicate type of a listing's verification report.
pub const REPORT_PREDICATE: &str = "https://gpumarket.dev/attestations/standard-benchmark/v1";
/// The predicate type of an organisation report.
pub const ORG_PREDICATE: &str = "https://gpumarket.dev/attestations/organisation-report/v1";

/// A stored report with its envelope parsed.
#[derive(Debug, Clone)]
pub struct StoredReport {
    pub id: domain::ReportId,
    pub listing_id: domain::ListingId,
    pub run_id: domain::RunId,
    pub org_id: domain::OrgId,
    pub compliant: bool,
    /// The signing key's id.
    pub key_id: String,
    /// The DSSE envelope.
    pub envelope: Value,
    pub summary: Value,
    pub created_at: DateTime<Utc>,
}

impl StoredReport {
    fn of(record: ReportRecord) -> Self {
        Self {
            envelope: serde_json::from_str(&record.envelope).unwrap_or(Value::Null),
            summary: serde_json::from_str(&record.summary).unwrap_or(Value::Null),
            id: record.id.into(),
            listing_id: record.listing_id.into(),
            run_id: record.run_id.into(),
            org_id: record.org_id.into(),
            compliant: record.compliant,
            key_id: record.key_id,
            created_at: record.created_at,
        }
    }
}

/// One row of a stored report: a decode cell or a prefill entry, with its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportCell {
    /// `decode` or `prefill`.
    pub phase: String,
    pub context_tokens: i64,
    pub concurrency: i64,
    /// The standard's status, as the report names it (`valid`, `requests_queued`, ...).
    pub status: String,
    pub total_tok_s: Option<f64>,
    pub per_request_tok_s: Option<f64>,
    pub ttft_ms: Option<f64>,
    pub tbt_ms: Option<f64>,
    pub prompt_tok_s: Option<f64>,
}

impl From<store::CellRecord> for ReportCell {
    fn from(c: store::CellRecord) -> Self {
        Self {
            phase: c.phase,
            context_tokens: c.context_tokens,
            concurrency: c.concurrency,
            status: c.status,
            total_tok_s: c.total_tok_s,
            per_request_tok_s: c.per_request_tok_s,
            ttft_ms: c.ttft_ms,
            tbt_ms: c.tbt_ms,
            prompt_tok_s: c.prompt_tok_s,
        }
    }
}

impl App {
    pub async fn report(&self, id: domain::ReportId) -> Result<StoredReport, AppError> {
        let id = id.as_uuid();
        self.db()
            .report_by_id(id)
            .await?
            .map(StoredReport::of)
            .ok_or(AppError::NotFound("report"))
    }

    pub async fn report_cells(&self, id: domain::ReportId) -> Result<Vec<ReportCell>, AppError> {
        self.report(id).await?;
        Ok(self
            .db()
            .cells_of_report(id.as_uuid())
            .await?
            .into_iter()
            .map(ReportCell::from)
            .collect())
    }

    pub async fn listing_reports(
        &self,
        listing: domain::ListingId,
    ) -> Result<Vec<StoredReport>, AppError> {
        self.listing(listing).await?;
        Ok(self
            .db()
            .reports_of_listing(listing.as_uuid())
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
}
