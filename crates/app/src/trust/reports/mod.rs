//! Signed reports: the harness report, the listing's claim and the run's facts as the
//! predicate of an in-toto statement in a DSSE envelope (`signing.rs`); their per-cell rows;
//! organisation reports and the leaderboard (`leaderboard.rs`). The CSV and SVG renderings
//! live beside the API that serves them.

mod figures;
mod leaderboard;
mod signing;

use attest::{Envelope, PublishedKey};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use store::ReportRecord;

use crate::{App, AppError, Caller};

pub use leaderboard::{LeaderboardRow, OrgReport};

/// The harness's report model, as reports carry it (for the pages that draw them).
pub mod model {
    pub use bench::params::{PrefillMode, WindowRule};
    pub use bench::{DecodeCell, PrefillEntry, Report, Status};
}
pub use signing::{Headline, SignedReport};
pub(crate) use signing::{sha256_hex, sign_run_report};
/// The filters of [`App::public_reports`].
pub use store::PublicReportQuery;

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
    /// The DSSE envelope; `None` when withheld (or unreadable).
    pub envelope: Option<Envelope>,
    /// The envelope was signed before engine addresses were left out of reports, so only
    /// the listing's organisation is shown it; everyone else gets the summary.
    pub envelope_withheld: bool,
    pub summary: ReportSummary,
    pub created_at: DateTime<Utc>,
    /// Its leaf's index in the transparency log.
    pub log_index: Option<u64>,
    /// `public`, or `private`: shown to the organisation's members and share links only.
    pub visibility: String,
    /// The machine's agent reported the claimed hardware when the report was made (the
    /// machine's word, beside the signed report); `false`: as claimed.
    pub hardware_confirmed: bool,
}

/// A share link of a private report: the token is shown once, here (`{:?}` redacts it).
#[derive(Clone)]
pub struct ShareLink {
    pub id: uuid::Uuid,
    pub url: String,
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

impl std::fmt::Debug for ShareLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShareLink")
            .field("id", &self.id)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

/// A live share link as listed: never its token.
#[derive(Debug, Clone)]
pub struct SharedLink {
    pub id: uuid::Uuid,
    /// The token's first characters (none on links made before they were kept).
    pub prefix: Option<String>,
    pub created_by: domain::UserId,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// Characters of a share link's token kept to tell links apart (`gms_` and 8 more).
const SHARE_PREFIX_CHARS: usize = 12;

/// How long a share link lasts unless asked otherwise, and at most.
pub const SHARE_TTL_SECS: u64 = 7 * 24 * 3600;
pub const SHARE_TTL_MAX_SECS: u64 = 90 * 24 * 3600;

/// What a report says of itself without opening its envelope, as stored beside it (fields
/// added over time are empty on older reports).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReportSummary {
    pub compliant: bool,
    /// Why it is not compliant.
    pub reasons: Vec<String>,
    pub headline: Headline,
    /// The engine's served model.
    pub model: String,
    /// The engine measured (`engine.name`: `vllm`, `llamacpp`, …); `None` in summaries stored
    /// before engines were named.
    #[serde(default)]
    pub engine_name: Option<String>,
    pub engine_version: Option<String>,
    pub engine_fingerprint: Option<String>,
    /// The listing's GPU model as claimed.
    pub gpu_model: String,
    pub profile: String,
    pub partial: bool,
    pub decode_cells: usize,
    pub prefill_contexts: usize,
    pub finished_at: String,
    pub cost: Option<bench::report::Cost>,
}

impl ReportSummary {
    /// The summary stored as text; an unreadable one is empty rather than an error (pages
    /// and the leaderboard show what they can).
    pub(crate) fn of_stored(text: &str) -> Self {
        serde_json::from_str(text).unwrap_or_default()
    }
}

/// The listing's claim a report verifies: what the machine was said to be.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClaimedHardware {
    pub gpu_model: Option<String>,
    pub gpu_count: Option<i64>,
    pub vram_gb: Option<i64>,
    pub cpu_model: Option<String>,
    pub ram_gb: Option<i64>,
    pub region: Option<String>,
}

/// What a listing's report signs, as the pages read it: the harness's report and the
/// listing's claim (the run's facts stay in the envelope).
#[derive(Debug, Clone)]
pub struct SignedPredicate {
    /// The harness's report; `None` when it no longer reads as today's model.
    pub report: Option<model::Report>,
    pub claimed: ClaimedHardware,
}

/// The predicate of the statement a DSSE envelope signs, as JSON.
pub(crate) fn predicate_of(envelope: &Envelope) -> Option<Value> {
    let mut statement: Value = serde_json::from_slice(&envelope.payload_bytes().ok()?).ok()?;
    Some(statement.get_mut("predicate")?.take())
}

/// The context the engine served when a stored envelope's report measured it
/// (`engine.max_model_len`); `None` when the envelope does not say.
pub(crate) fn served_context(envelope: &str) -> Option<u64> {
    let envelope = serde_json::from_str::<Envelope>(envelope).ok()?;
    predicate_of(&envelope)?["engine"]["max_model_len"].as_u64()
}

impl StoredReport {
    /// The signed statement's predicate, typed: the harness's report and the listing's claim
    /// (`hardware.claimed`). `None` when withheld.
    pub fn predicate(&self) -> Option<SignedPredicate> {
        let mut predicate = predicate_of(self.envelope.as_ref()?)?;
        let claimed =
            serde_json::from_value(predicate["hardware"]["claimed"].take()).unwrap_or_default();
        Some(SignedPredicate {
            report: serde_json::from_value(predicate).ok(),
            claimed,
        })
    }

    /// The first signature, base64, as the page shows it.
    pub fn signature(&self) -> Option<&str> {
        let envelope = self.envelope.as_ref()?;
        envelope.signatures.first().map(|s| s.sig.as_str())
    }

    pub(crate) fn of(record: ReportRecord) -> Self {
        Self {
            envelope: serde_json::from_str(&record.envelope).ok(),
            envelope_withheld: false,
            summary: ReportSummary::of_stored(&record.summary),
            id: record.id.into(),
            listing_id: record.listing_id.into(),
            run_id: record.run_id.into(),
            org_id: record.org_id.into(),
            compliant: record.compliant,
            kind: record.kind,
            key_id: record.key_id,
            created_at: record.created_at,
            log_index: None,
            visibility: record.visibility,
            hardware_confirmed: record.hardware_confirmed,
        }
    }
}

/// One row of a stored report: a decode cell or a prefill entry, with its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportCell {
    pub phase: domain::CellPhase,
    pub context_tokens: i64,
    pub concurrency: i64,
    /// The standard's status.
    pub status: domain::CellStatus,
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
        self.report_for(id, viewer, None).await
    }

    /// The report as `viewer`, or the holder of the share link `share`, may see it: a
    /// private one exists only for its organisation's members and live share links.
    pub async fn report_for(
        &self,
        id: domain::ReportId,
        viewer: Option<Caller>,
        share: Option<&str>,
    ) -> Result<StoredReport, AppError> {
        let report = self
            .db()
            .report_by_id(id.as_uuid())
            .await?
            .map(StoredReport::of)
            .ok_or(AppError::NotFound("report"))?;
        self.may_see(&report, viewer, share).await?;
        let mut report = self.shown_to(report, viewer).await?;
        report.log_index = self.db().log_index_of(id.as_uuid()).await?;
        Ok(report)
    }

    /// Refuses (as not found) a private report to anyone but its organisation's members and
    /// the holders of a share link that is neither revoked nor expired.
    pub(crate) async fn may_see(
        &self,
        report: &StoredReport,
        viewer: Option<Caller>,
        share: Option<&str>,
    ) -> Result<(), AppError> {
        if report.visibility != store::visibility::PRIVATE
            || self.is_member(viewer, report.org_id).await?
        {
            return Ok(());
        }
        if let Some(token) = share
            && let Some(link) = self
                .db()
                .share_of(report.id.as_uuid(), &crate::secrets::digest(token))
                .await?
            && link.revoked_at.is_none()
            && link.expires_at > Utc::now()
        {
            return Ok(());
        }
        Err(AppError::NotFound("report"))
    }

    /// A share link of the report, for members of its organisation; it lasts `ttl_secs`
    /// (default 7 days, at most 90).
    pub async fn share_report(
        &self,
        caller: Caller,
        id: domain::ReportId,
        ttl_secs: Option<u64>,
    ) -> Result<ShareLink, AppError> {
        let report = self.report(id, Some(caller)).await?;
        self.require_role(caller, report.org_id, domain::Role::Member)
            .await?;
        let ttl = ttl_secs.unwrap_or(SHARE_TTL_SECS);
        if !(60..=SHARE_TTL_MAX_SECS).contains(&ttl) {
            return Err(domain::ValidationError::new(
                "expires_in_secs",
                format!("must be between 60 and {SHARE_TTL_MAX_SECS}"),
            )
            .into());
        }
        let token = crate::secrets::random_secret("gms_")?;
        let now = Utc::now();
        let expires_at = now + chrono::Duration::seconds(ttl as i64);
        let link = uuid::Uuid::now_v7();
        self.db()
            .insert_share(store::ShareRecord {
                id: link,
                report_id: id.as_uuid(),
                token_hash: crate::secrets::digest(&token),
                created_by: caller.user_id.as_uuid(),
                created_at: now,
                expires_at,
                revoked_at: None,
                prefix: Some(token.chars().take(SHARE_PREFIX_CHARS).collect()),
            })
            .await?;
        let base = self.config().server.public_url.trim_end_matches('/');
        Ok(ShareLink {
            id: link,
            url: format!("{base}/reports/{id}?share={token}"),
            token,
            expires_at,
        })
    }

    /// The report's live share links (members of its organisation).
    pub async fn shares(
        &self,
        caller: Caller,
        id: domain::ReportId,
    ) -> Result<Vec<SharedLink>, AppError> {
        let report = self.report(id, Some(caller)).await?;
        self.require_role(caller, report.org_id, domain::Role::Member)
            .await?;
        Ok(self
            .db()
            .live_shares(id.as_uuid(), Utc::now())
            .await?
            .into_iter()
            .map(|s| SharedLink {
                id: s.id,
                prefix: s.prefix,
                created_by: s.created_by.into(),
                created_at: s.created_at,
                expires_at: s.expires_at,
            })
            .collect())
    }

    /// Revokes a share link of the report, named by its id or its token (members of its
    /// organisation).
    pub async fn revoke_share(
        &self,
        caller: Caller,
        id: domain::ReportId,
        link: &str,
    ) -> Result<(), AppError> {
        let report = self.report(id, Some(caller)).await?;
        self.require_role(caller, report.org_id, domain::Role::Member)
            .await?;
        let hash = crate::secrets::digest(link);
        let key = match link.parse::<uuid::Uuid>() {
            Ok(share) => store::ShareKey::Id(share),
            Err(_) => store::ShareKey::TokenHash(&hash),
        };
        if !self
            .db()
            .revoke_share(id.as_uuid(), key, Utc::now())
            .await?
        {
            return Err(AppError::NotFound("share link"));
        }
        Ok(())
    }

    /// The report as `viewer` may see it: an envelope that names the engine's address (signed
    /// before addresses were left out) only for the members of the listing's organisation.
    async fn shown_to(
        &self,
        mut report: StoredReport,
        viewer: Option<Caller>,
    ) -> Result<StoredReport, AppError> {
        let names_engine = report.envelope.as_ref().is_some_and(|envelope| {
            serde_json::to_value(envelope).is_ok_and(|json| attest::names_engine_address(&json))
        });
        if names_engine && !self.is_member(viewer, report.org_id).await? {
            report.envelope = None;
            report.envelope_withheld = true;
        }
        Ok(report)
    }

    pub async fn report_cells(
        &self,
        id: domain::ReportId,
        viewer: Option<Caller>,
        share: Option<&str>,
    ) -> Result<Vec<ReportCell>, AppError> {
        self.report_for(id, viewer, share).await?;
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
        check_kind(kind)?;
        let org = self.listing(listing).await?.org_id;
        let members = self.is_member(viewer, org).await?;
        let mut shown = Vec::new();
        for record in self
            .db()
            .reports_of_listing(
                listing.as_uuid(),
                kind,
                before.map(|id| id.as_uuid()),
                limit,
                members,
            )
            .await?
        {
            shown.push(self.shown_to(StoredReport::of(record), viewer).await?);
        }
        self.with_log_indexes(shown).await
    }

    /// Every public report, newest first, a page after the report `before`; only those of
    /// the catalog `model` and `gpu` their listing claimed when they were made, and of
    /// `kind` (`verification` or `spot_check`), when given. Public: private reports are
    /// never listed, and an envelope that names an engine is withheld as for anyone.
    pub async fn public_reports(
        &self,
        query: PublicReportQuery<'_>,
        limit: u64,
    ) -> Result<Vec<StoredReport>, AppError> {
        check_kind(query.kind)?;
        let mut shown = Vec::new();
        for record in self.db().public_reports(query, limit).await? {
            shown.push(self.shown_to(StoredReport::of(record), None).await?);
        }
        self.with_log_indexes(shown).await
    }

    /// Each report with its leaf's index in the transparency log.
    async fn with_log_indexes(
        &self,
        mut reports: Vec<StoredReport>,
    ) -> Result<Vec<StoredReport>, AppError> {
        let ids: Vec<uuid::Uuid> = reports.iter().map(|r| r.id.as_uuid()).collect();
        let indexes = self.db().log_indexes_of(&ids).await?;
        for report in &mut reports {
            report.log_index = indexes.get(&report.id.as_uuid()).copied();
        }
        Ok(reports)
    }

    /// Every published key, active and retired.
    pub async fn signing_keys(&self) -> Result<Vec<PublishedKey>, AppError> {
        published_keys(self.db()).await
    }
}

/// Every signing key `db` holds, as published (active and retired).
pub async fn published_keys(db: &store::Db) -> Result<Vec<PublishedKey>, AppError> {
    Ok(db
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

/// A report kind filter: `verification` or `spot_check`.
fn check_kind(kind: Option<&str>) -> Result<(), AppError> {
    match kind {
        Some(kind)
            if ![
                crate::trust::runs::run_kind::VERIFICATION,
                crate::trust::runs::run_kind::SPOT_CHECK,
            ]
            .contains(&kind) =>
        {
            Err(
                domain::ValidationError::new("kind", "must be `verification` or `spot_check`")
                    .into(),
            )
        }
        _ => Ok(()),
    }
}
