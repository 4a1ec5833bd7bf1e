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

use crate::{App, AppError, Caller};

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
    /// `verification`, or `spot_check` (an unannounced re-measurement; never a headline).
    pub kind: String,
    /// The signing key's id.
    pub key_id: String,
    /// The DSSE envelope; `Null` when withheld.
    pub envelope: Value,
    /// The envelope was signed before engine addresses were left out of reports, so only
    /// the listing's organisation is shown it; everyone else gets the summary.
    pub envelope_withheld: bool,
    pub summary: Value,
    pub created_at: DateTime<Utc>,
}

impl StoredReport {
    fn of(record: ReportRecord) -> Self {
        Self {
            envelope: serde_json::from_str(&record.envelope).unwrap_or(Value::Null),
            envelope_withheld: false,
            summary: serde_json::from_str(&record.summary).unwrap_or(Value::Null),
            id: record.id.into(),
            listing_id: record.listing_id.into(),
            run_id: record.run_id.into(),
            org_id: record.org_id.into(),
            compliant: record.compliant,
            kind: record.kind,
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
    pub async fn report(
        &self,
        id: domain::ReportId,
        viewer: Option<Caller>,
    ) -> Result<StoredReport, AppError> {
        let report = self
            .db()
            .report_by_id(id.as_uuid())
            .await?
            .map(StoredReport::of)
            .ok_or(AppError::NotFound("report"))?;
        self.shown_to(report, viewer).await
    }

    /// The report as `viewer` may see it: an envelope that names the engine's address (signed
    /// before addresses were left out) only for the members of the listing's organisation.
    async fn shown_to(
        &self,
        mut report: StoredReport,
        viewer: Option<Caller>,
    ) -> Result<StoredReport, AppError> {
        if names_engine_address(&report.envelope) && !self.is_member(viewer, report.org_id).await? {
            report.envelope = Value::Null;
            report.envelope_withheld = true;
        }
        Ok(report)
    }

    pub async fn report_cells(&self, id: domain::ReportId) -> Result<Vec<ReportCell>, AppError> {
        self.report(id, None).await?;
        Ok(self
            .db()
            .cells_of_report(id.as_uuid())
            .await?
            .into_iter()
            .map(ReportCell::from)
            .collect())
    }

    /// A page of a listing's reports, newest first, after `before`; only those of `kind`
    /// (`verification` or `spot_check`) when given.
    pub async fn listing_reports(
        &self,
        listing: domain::ListingId,
        viewer: Option<Caller>,
        kind: Option<&str>,
        before: Option<domain::ReportId>,
        limit: u64,
    ) -> Result<Vec<StoredReport>, AppError> {
        if let Some(kind) = kind
            && ![
                crate::verification::run_kind::VERIFICATION,
                crate::verification::run_kind::SPOT_CHECK,
            ]
            .contains(&kind)
        {
            return Err(domain::ValidationError::new(
                "kind",
                "must be `verification` or `spot_check`",
            )
            .into());
        }
        self.listing(listing).await?;
        let mut shown = Vec::new();
        for record in self
            .db()
            .reports_of_listing(
                listing.as_uuid(),
                kind,
                before.map(|id| id.as_uuid()),
                limit,
            )
            .await?
        {
            shown.push(self.shown_to(StoredReport::of(record), viewer).await?);
        }
        Ok(shown)
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

/// Whether a stored envelope's statement carries an engine address (reports signed before
/// addresses were left out put it in the claim and in the engine's facts).
fn names_engine_address(envelope: &Value) -> bool {
    use base64::Engine as _;
    let Some(payload) = envelope.get("payload").and_then(Value::as_str) else {
        return false;
    };
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(payload) else {
        return false;
    };
    let Ok(statement) = serde_json::from_slice::<Value>(&bytes) else {
        return false;
    };
    let predicate = &statement["predicate"];
    !predicate["engine"]["base_url"].is_null()
        || !predicate["hardware"]["claimed"]["engine"]["base_url"].is_null()
}
