//! A run's life cycle, shared by every use case that starts or reads runs (verification, spot
//! checks, reports): what a run is for, the events in its log, the codes it fails with, and a
//! new queued run.

use chrono::{DateTime, Utc};
use store::RunRecord;
use uuid::Uuid;

use crate::AppError;

/// Event kinds in a run's log (and on its SSE stream).
pub mod event {
    pub const QUEUED: &str = "run_queued";
    pub const STARTED: &str = "run_started";
    /// The run's shape, once its engine is read: `{prefill, decode, decode_to_run}` (prefill
    /// contexts, decode cells, and how many of those fit the engine and will run).
    pub const PLANNED: &str = "run_planned";
    pub const CELL_STARTED: &str = "cell_started";
    pub const CELL_FINISHED: &str = "cell_finished";
    pub const PREFILL_FINISHED: &str = "prefill_finished";
    pub const FINISHED: &str = store::RUN_FINISHED;
}

/// What a run is for: a verification the provider asked for, or an unannounced spot check
/// of a verified listing.
pub mod run_kind {
    pub const VERIFICATION: &str = "verification";
    pub const SPOT_CHECK: &str = "spot_check";
}

/// Why a run failed or was cancelled: the stable codes public views show (beside these, the
/// harness's own: `engine_unreachable`, `engine_unsupported` (once `engine_not_vllm`),
/// `engine_model_missing`, `engine_mismatch`, `engine_error`, `address_not_allowed`,
/// `setup_failed`).
pub mod failure {
    pub const CANCELLED: &str = "cancelled";
    pub const LISTING_CHANGED: &str = "listing_changed";
    pub const DEADLINE_EXCEEDED: &str = "deadline_exceeded";
    /// A check of the run's preflight failed at its start: nothing was measured.
    pub const PREFLIGHT_FAILED: &str = "preflight_failed";
}

/// A new queued run of the listing: `(profile, kind, baseline report)`, asked for by
/// `requested_by` (nil: the platform).
pub(crate) fn queued_run(
    listing: &store::ListingRecord,
    requested_by: Uuid,
    (profile, kind, baseline): (&str, &str, Option<Uuid>),
    visibility: &str,
    now: DateTime<Utc>,
) -> RunRecord {
    RunRecord {
        id: Uuid::now_v7(),
        listing_id: listing.id,
        org_id: listing.org_id,
        requested_by,
        profile: profile.to_owned(),
        status: domain::RunStatus::Queued.into(),
        attempts: 0,
        lease_owner: None,
        lease_expires_at: None,
        failure_reason: None,
        failure_code: None,
        report_id: None,
        created_at: now,
        started_at: None,
        finished_at: None,
        kind: kind.to_owned(),
        baseline_report_id: baseline,
        visibility: visibility.to_owned(),
    }
}

/// The profiles a run may use.
pub const PROFILES: &[&str] = &["quick", "standard"];

/// 422 unless `profile` is one a run may use.
pub(crate) fn check_profile(profile: &str) -> Result<(), AppError> {
    if PROFILES.contains(&profile) {
        Ok(())
    } else {
        Err(domain::ValidationError::new("profile", "must be `quick` or `standard`").into())
    }
}

/// 429 for an organisation that spent its daily verification budget (`over`), saying when
/// one more fits.
pub(crate) fn over_daily_runs(
    plan: &crate::money::billing::Plan,
    over: store::OverDailyQuota,
    now: DateTime<Utc>,
) -> AppError {
    let quota = plan.verification_runs_per_day;
    AppError::RateLimited {
        what: format!(
            "the organisation spent {} of its verification budget (runs and preflights) in \
             the last 24 hours (its {} plan allows {quota}; verification_runs_per_org_per_day)",
            over.counted, plan.name
        ),
        retry_after_secs: (over.frees_at - now).num_seconds().max(1) as u64,
    }
}
