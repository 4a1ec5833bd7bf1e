//! Badges that mean "still true". A badge lasts `verification_ttl_secs`; at a random moment
//! in every `spot_check_every_secs` the platform measures a verified listing again, unasked
//! and unannounced, on the cells its badge rests on, and compares: an engine that answers
//! with another fingerprint, or figures below `spot_check_min_fraction` of the verified ones,
//! demote the listing (badge withdrawn, the reason and both reports in its history); a
//! passing check renews the badge. The upkeep (expiring badges, starting due checks) runs
//! beside the reconciler.

use chrono::{DateTime, Utc};
use domain::spot_check::{CheckedCell, Verdict};
use serde_json::json;
use store::{Badge, CellRecord, RunRecord};
use uuid::Uuid;

use crate::trust::runs::{event, queued_run, run_kind};
use crate::{App, AppError, Caller};

/// A listing's badge and its history, for the provider's members.
#[derive(Debug, Clone, PartialEq)]
pub struct ListingVerification {
    pub state: domain::BadgeState,
    pub report_id: Option<domain::ReportId>,
    pub verified_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    /// Oldest first.
    pub history: Vec<VerificationCheck>,
}

/// One entry of a listing's verification history.
#[derive(Debug, Clone, PartialEq)]
pub struct VerificationCheck {
    /// `verified`, `spot_check_passed`, `spot_check_inconclusive`, `demoted`, `expired` or
    /// `withdrawn`.
    pub kind: String,
    /// The report this entry is about (the verification, or the spot check's own report).
    pub report_id: Option<domain::ReportId>,
    /// The verification a spot check compared against (or the badge that ended).
    pub baseline_report_id: Option<domain::ReportId>,
    pub reason: Option<String>,
    pub at: DateTime<Utc>,
}

/// The cells of a verification a spot check measures again, with their verified figures.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Baseline {
    pub report: Uuid,
    /// `(context, concurrency, total tok/s)` of each compared cell.
    pub cells: Vec<(u64, u64, f64)>,
    pub fingerprint: Option<String>,
    pub profile: String,
}

/// An inconclusive spot check is made again at a random moment of the next hour (or of the
/// plan's period, when shorter).
const INCONCLUSIVE_RETRY_SECS: f64 = 3600.0;

/// A uniformly random fraction in `[0, 1)`.
pub(crate) fn random_fraction() -> f64 {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        return 0.5;
    }
    (u64::from_le_bytes(bytes) >> 11) as f64 / (1u64 << 53) as f64
}

/// The cells to check from a verification's valid decode cells ([`domain::spot_check::corner_cells`]).
pub(crate) fn cells_to_check(cells: &[CellRecord]) -> Vec<(u64, u64, f64)> {
    let valid: Vec<(u64, u64, f64)> = cells
        .iter()
        .filter(|c| c.phase == domain::CellPhase::Decode && c.status == domain::CellStatus::Valid)
        .filter_map(|c| {
            Some((
                u64::try_from(c.context_tokens).ok()?,
                u64::try_from(c.concurrency).ok()?,
                c.total_tok_s?,
            ))
        })
        .collect();
    domain::spot_check::corner_cells(&valid)
}

/// What a spot check's report says of its baseline.
pub(crate) fn judge(baseline: &Baseline, report: &bench::Report, min_fraction: f64) -> Verdict {
    let cells: Vec<CheckedCell> = report
        .decode
        .iter()
        .map(|c| CheckedCell {
            context: c.context_tokens,
            concurrency: c.concurrency,
            status: c.status,
            reasons: c.reasons.join("; "),
            total_tok_s: c.total_tok_s.unwrap_or(0.0),
        })
        .collect();
    judge_cells(
        baseline,
        report.engine.fingerprint.as_deref(),
        &cells,
        min_fraction,
    )
}

/// [`judge`] from a stored spot-check report: its summary's fingerprint and its cells (a
/// worker that died before judging leaves its successor only these).
pub(crate) fn judge_stored(
    baseline: &Baseline,
    summary: &str,
    cells: &[CellRecord],
    min_fraction: f64,
) -> Verdict {
    let summary: serde_json::Value = serde_json::from_str(summary).unwrap_or_default();
    let cells: Vec<CheckedCell> = cells
        .iter()
        .filter(|c| c.phase == domain::CellPhase::Decode)
        .filter_map(|c| {
            Some(CheckedCell {
                context: u64::try_from(c.context_tokens).ok()?,
                concurrency: u64::try_from(c.concurrency).ok()?,
                status: c.status,
                reasons: String::new(),
                total_tok_s: c.total_tok_s.unwrap_or(0.0),
            })
        })
        .collect();
    judge_cells(
        baseline,
        summary["engine_fingerprint"].as_str(),
        &cells,
        min_fraction,
    )
}

fn judge_cells(
    baseline: &Baseline,
    fingerprint: Option<&str>,
    cells: &[CheckedCell],
    min_fraction: f64,
) -> Verdict {
    domain::spot_check::verdict(
        &baseline.cells,
        baseline.fingerprint.as_deref(),
        fingerprint,
        cells,
        min_fraction,
    )
}

impl App {
    /// A listing's badge state, expiry and history (members of its organisation).
    pub async fn listing_verification(
        &self,
        caller: Caller,
        id: domain::ListingId,
    ) -> Result<ListingVerification, AppError> {
        // History first: a check's entry is written in the transaction that sets the state,
        // so the state read after it is never older than the history answered.
        let history = self.db().verification_checks(id.as_uuid()).await?;
        let listing = self.listing(id).await?;
        self.require_role(caller, listing.org_id, domain::Role::Member)
            .await?;
        let history = history
            .into_iter()
            .map(|c| VerificationCheck {
                kind: c.kind,
                report_id: c.report_id.map(Into::into),
                baseline_report_id: c.baseline_report_id.map(Into::into),
                reason: c.reason,
                at: c.created_at,
            })
            .collect();
        Ok(ListingVerification {
            state: listing.verification_state,
            report_id: listing.latest_report_id,
            verified_at: listing.verified_at,
            expires_at: listing.verification_expires_at,
            history,
        })
    }

    /// A new badge from `now`: its expiry, and its first spot check at a random moment of the
    /// first period (the organisation's plan's).
    pub(crate) fn new_badge(
        &self,
        now: DateTime<Utc>,
        plan: &crate::money::billing::Plan,
    ) -> Badge {
        let ttl =
            chrono::Duration::seconds(self.config().verification.verification_ttl_secs as i64);
        let every = plan.spot_check_every_secs as f64;
        Badge {
            expires_at: now + ttl,
            next_spot_check_at: now
                + chrono::Duration::milliseconds((random_fraction() * every * 1000.0) as i64),
        }
    }

    /// Expires badges whose time is up and starts the spot checks that are due. Idempotent:
    /// any number of replicas may run it.
    pub async fn verification_upkeep(&self) -> Result<(), AppError> {
        let now = Utc::now();
        let ttl =
            chrono::Duration::seconds(self.config().verification.verification_ttl_secs as i64);
        let expired = self.db().expire_badges(now, ttl).await?;
        if !expired.is_empty() {
            tracing::info!(count = expired.len(), "verification badges expired");
        }
        for listing in self.db().due_spot_checks(now, 50).await? {
            let Some(baseline) = listing.latest_report_id else {
                continue;
            };
            let profile = match self.db().report_by_id(baseline).await? {
                Some(report) => self
                    .db()
                    .run_by_id(report.run_id)
                    .await?
                    .map_or_else(|| "quick".to_owned(), |run| run.profile),
                None => continue,
            };
            // The platform asked, not a person.
            let run = queued_run(
                &listing,
                Uuid::nil(),
                (&profile, run_kind::SPOT_CHECK, Some(baseline)),
                store::visibility::PUBLIC,
                now,
            );
            let Some(run) = self.db().start_spot_check(run, now).await? else {
                continue;
            };
            tracing::info!(listing = %listing.id, run = %run.id, "spot check started");
            self.record_event(run.id, event::QUEUED, json!({"run_id": run.id}))
                .await?;
            if let Err(e) = self.dispatcher().dispatch(run.id).await {
                tracing::warn!(run = %run.id, error = %e, "dispatch failed; the reconciler will retry");
            }
        }
        Ok(())
    }

    /// What a spot-check run compares against: its baseline's cells, fingerprint and profile.
    pub(crate) async fn baseline_of(&self, run: &RunRecord) -> Result<Baseline, AppError> {
        let report_id = run
            .baseline_report_id
            .ok_or_else(|| AppError::Internal(format!("spot check {} has no baseline", run.id)))?;
        let report = self
            .db()
            .report_by_id(report_id)
            .await?
            .ok_or(AppError::NotFound("report"))?;
        let summary = crate::trust::reports::ReportSummary::of_stored(&report.summary);
        Ok(Baseline {
            report: report_id,
            cells: cells_to_check(&self.db().cells_of_report(report_id).await?),
            fingerprint: summary.engine_fingerprint,
            profile: run.profile.clone(),
        })
    }

    /// The harness parameters of a spot check: the baseline's profile, only the cells to
    /// check, no prefill, and `max_tokens` varied (with the prompts, which every run seeds
    /// afresh) so that no fixed shape singles a spot check out.
    pub(crate) fn spot_check_params(&self, baseline: &Baseline) -> bench::Parameters {
        let mut params = self.config().verification.params(&baseline.profile);
        let mut contexts: Vec<u64> = baseline.cells.iter().map(|c| c.0).collect();
        let mut concurrency: Vec<u64> = baseline.cells.iter().map(|c| c.1).collect();
        contexts.sort_unstable();
        contexts.dedup();
        concurrency.sort_unstable();
        concurrency.dedup();
        params.contexts = contexts;
        params.concurrency = concurrency;
        params.prefill_contexts = Vec::new();
        let varied = (params.max_output as f64 * (0.75 + 0.25 * random_fraction())) as u64;
        params.max_output = varied.max(16);
        params
    }

    /// Acts on a finished spot check: renews the badge, demotes the listing, or (inconclusive)
    /// checks it again within the hour. `measured` is the report stored for it, `verdict` what
    /// the comparison (or the failure) found.
    pub(crate) async fn conclude_spot_check(
        &self,
        run: &RunRecord,
        baseline: &Baseline,
        measured: Option<Uuid>,
        verdict: Verdict,
    ) -> Result<&'static str, AppError> {
        let now = Utc::now();
        match verdict {
            Verdict::Confirmed => {
                let measured = measured.ok_or_else(|| {
                    AppError::Internal("a passing spot check has a report".to_owned())
                })?;
                let plan = self.plan_of(run.org_id.into()).await?;
                let badge = self.new_badge(now, &plan);
                let every = chrono::Duration::seconds(plan.spot_check_every_secs as i64);
                // The next check: a random moment of the next period.
                let badge = Badge {
                    next_spot_check_at: badge.next_spot_check_at + every,
                    ..badge
                };
                self.db()
                    .renew_badge(run.listing_id, baseline.report, measured, badge, now)
                    .await?;
                Ok("passed")
            }
            Verdict::Inconclusive(reason) => {
                let plan = self.plan_of(run.org_id.into()).await?;
                let soon = (plan.spot_check_every_secs as f64).min(INCONCLUSIVE_RETRY_SECS);
                let next = now
                    + chrono::Duration::milliseconds((random_fraction() * soon * 1000.0) as i64);
                self.db()
                    .spot_check_inconclusive(
                        run.listing_id,
                        (baseline.report, measured),
                        &reason,
                        next,
                        now,
                    )
                    .await?;
                tracing::warn!(listing = %run.listing_id, %reason, "a spot check was inconclusive");
                Ok("inconclusive")
            }
            Verdict::Refuted(reason) => {
                if self
                    .db()
                    .demote(run.listing_id, baseline.report, measured, &reason, now)
                    .await?
                {
                    tracing::warn!(listing = %run.listing_id, %reason, "listing demoted by a spot check");
                }
                Ok("demoted")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(context: i64, concurrency: i64, status: &str, tok_s: f64) -> CellRecord {
        CellRecord {
            report_id: Uuid::nil(),
            phase: domain::CellPhase::Decode,
            context_tokens: context,
            concurrency,
            status: domain::CellStatus::parse(status).unwrap(),
            total_tok_s: Some(tok_s),
            per_request_tok_s: None,
            ttft_ms: None,
            tbt_ms: None,
            prompt_tok_s: None,
            ttft_ms_p99: None,
            ttft_samples: None,
            itl_ms_p99: None,
            tokens_per_chunk: None,
            energy_j_per_token: None,
        }
    }

    #[test]
    fn the_corners_of_the_valid_cells_are_checked() {
        let cells = vec![
            cell(0, 1, "valid", 10.0),
            cell(0, 4, "valid", 30.0),
            cell(0, 16, "valid", 80.0),
            cell(0, 64, "requests_queued", 90.0),
            cell(1024, 1, "valid", 9.0),
            cell(1024, 16, "valid", 70.0),
            cell(8192, 1, "valid", 7.0),
            cell(8192, 16, "over_capacity", 0.0),
        ];
        assert_eq!(
            cells_to_check(&cells),
            vec![(0, 1, 10.0), (0, 16, 80.0), (8192, 1, 7.0)],
            "8192 x 16 was not valid, so it is not compared"
        );
        assert!(cells_to_check(&[cell(0, 1, "invalid", 1.0)]).is_empty());
    }
}
