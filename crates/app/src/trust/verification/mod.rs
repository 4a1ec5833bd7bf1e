//! Verification: a member requests a run, the database records it (the source of truth) and
//! the dispatcher delivers it; a worker claims it with a lease, runs the standard matrix
//! against the listing's engine, and attaches a signed report exactly once.

mod execution;

use std::time::Duration;

use chrono::{DateTime, Utc};
use domain::quota::RollingDay;
use domain::{OrgId, Role};
use serde_json::{Value, json};
use store::{RunRecord, StoreError, run_status, visibility};
use uuid::Uuid;

pub use self::execution::Outcome;
use crate::trust::preflight;
use crate::trust::runs::failure::{CANCELLED, LISTING_CHANGED};
use crate::trust::runs::{event, queued_run, run_kind};
use crate::{App, AppError, Caller};

/// One event of a run's log, in order (`seq`), for its live stream.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEvent {
    pub seq: i32,
    pub kind: String,
    /// JSON text.
    pub data: String,
}

/// Follows a run's event log from a position: what is new, and a wake-up when more comes
/// (pub/sub where there is Redis, else in process), so a follower never polls blindly.
#[derive(Debug)]
pub struct RunFollower {
    app: App,
    run: Uuid,
    after: i32,
    subscription: queue::Subscription,
    finished: bool,
    /// This stream's place among the client's and the process's open streams.
    _slot: crate::limits::StreamSlot,
}

impl RunFollower {
    /// The events after the last one handed out (none when nothing is new).
    pub async fn new_events(&mut self) -> Result<Vec<RunEvent>, AppError> {
        let log = self.app.db().events_after(self.run, self.after).await?;
        Ok(log
            .into_iter()
            .map(|e| {
                self.after = e.seq;
                let data = if e.kind == event::FINISHED {
                    self.finished = true;
                    public_finish(&e.data)
                } else {
                    e.data
                };
                RunEvent {
                    seq: e.seq,
                    kind: e.kind,
                    data,
                }
            })
            .collect())
    }

    /// Whether the run's final event was handed out.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Waits until more may have come, at most `wait`.
    pub async fn wait(&mut self, wait: Duration) {
        self.subscription.wait(wait).await;
    }
}

/// A `run_finished` event as the public sees it: its reason only when it is a failure code
/// (events logged before codes existed carried the detail, which could quote the engine or
/// name its address).
fn public_finish(data: &str) -> String {
    let Ok(mut value) = serde_json::from_str::<Value>(data) else {
        return "{}".to_owned();
    };
    let is_code = |reason: &str| {
        !reason.is_empty()
            && reason.len() <= 40
            && reason.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
    };
    if let Some(reason) = value.get("reason").and_then(Value::as_str)
        && !is_code(reason)
    {
        value["reason"] = Value::String("engine_error".to_owned());
    }
    value.to_string()
}

/// A verification run as `app` hands it out.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub id: domain::RunId,
    pub listing_id: domain::ListingId,
    pub org_id: OrgId,
    /// `quick` or `standard`.
    pub profile: String,
    pub status: domain::RunStatus,
    pub attempts: i32,
    /// Why it failed or was cancelled, as a stable code (public).
    pub failure_code: Option<String>,
    /// The detail behind the code (the provider's members only: it may quote the engine).
    pub failure_reason: Option<String>,
    pub report_id: Option<domain::ReportId>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// `public`, or `private` (Pro: its report is shown to the organisation and share links
    /// only, and sets no badge).
    pub visibility: String,
}

impl TryFrom<RunRecord> for Run {
    type Error = AppError;

    fn try_from(r: RunRecord) -> Result<Self, AppError> {
        Ok(Self {
            status: *r.status,
            id: r.id.into(),
            listing_id: r.listing_id.into(),
            org_id: r.org_id.into(),
            profile: r.profile,
            attempts: r.attempts,
            failure_code: r.failure_code,
            failure_reason: r.failure_reason,
            report_id: r.report_id.map(Into::into),
            created_at: r.created_at,
            started_at: r.started_at,
            finished_at: r.finished_at,
            visibility: r.visibility,
        })
    }
}

impl App {
    /// Records a run for the listing and dispatches it. Members of the listing's
    /// organisation may ask.
    pub async fn request_verification(
        &self,
        caller: Caller,
        listing: domain::ListingId,
        profile: &str,
        visibility: &str,
    ) -> Result<Run, AppError> {
        crate::trust::runs::check_profile(profile)?;
        if ![visibility::PUBLIC, visibility::PRIVATE].contains(&visibility) {
            return Err(domain::ValidationError::new(
                "visibility",
                "must be `public` or `private`",
            )
            .into());
        }
        let listing_id = listing.as_uuid();
        let listing = self.listing_record(listing_id).await?;
        self.require_role(caller, OrgId::from_uuid(listing.org_id), Role::Member)
            .await?;
        self.require_hardware_as_claimed(&listing, true).await?;
        if visibility == visibility::PRIVATE
            && !self.plan_of(listing.org_id.into()).await?.private_reports
        {
            return Err(AppError::PlanRequired(
                "private reports are part of the Pro plan (POST /v1/orgs/{id}/billing/checkout)"
                    .into(),
            ));
        }
        // One open run per listing: asking again gives the run already under way — unless it
        // would publish what was asked to be private, or the reverse.
        let under_way = |open: RunRecord| {
            if open.visibility != visibility {
                return Err(AppError::RunInProgress(format!(
                    "a {} run of this listing is under way; ask for a {visibility} one when it ends",
                    open.visibility
                )));
            }
            Run::try_from(open)
        };
        if let Some(open) = self.db().open_run_of_listing(listing_id).await? {
            return under_way(open);
        }
        let now = Utc::now();
        let plan = self.plan_of(listing.org_id.into()).await?;
        let quota = RollingDay::new(plan.verification_runs_per_day as usize);
        // An organisation past its budget is refused before its engine is asked anything
        // (the run's insert below decides it for good, under the organisation's lock).
        self.db()
            .verification_budget_left(listing.org_id, quota, now)
            .await?
            .map_err(|over| crate::trust::runs::over_daily_runs(&plan, over, now))?;
        // The engine's preflight, before any engine time is queued: a run it would fail is
        // refused with what failed and what to do.
        let params = self.config().verification.params(profile);
        let checks = self
            .engine_checks(&listing, &params, preflight::Patience::REQUEST)
            .await?;
        self.keep_preflight(&listing, None, preflight::kind::REQUEST, &checks)
            .await?;
        if !preflight::passed(&checks) {
            return Err(AppError::PreflightFailed(checks));
        }
        let inserted = self
            .db()
            .insert_run_within(
                queued_run(
                    &listing,
                    caller.user_id.as_uuid(),
                    (profile, run_kind::VERIFICATION, None),
                    visibility,
                    now,
                ),
                quota,
            )
            .await
            .map(|within| {
                within.map_err(|over| crate::trust::runs::over_daily_runs(&plan, over, now))
            });
        let run = match inserted {
            Ok(Ok(run)) => run,
            Ok(Err(over_quota)) => return Err(over_quota),
            // A racing request opened one first (the database allows one): that is the run.
            Err(StoreError::Conflict(_)) => {
                return match self.db().open_run_of_listing(listing_id).await? {
                    Some(open) => under_way(open),
                    None => Err(AppError::Internal(
                        "a run conflicted with an open run that is gone".to_owned(),
                    )),
                };
            }
            Err(e) => return Err(e.into()),
        };
        self.record_event(
            run.id,
            event::QUEUED,
            json!({"run_id": run.id, "profile": profile}),
        )
        .await?;
        // The run is stored; a lost dispatch is repaired by the reconciler.
        if let Err(e) = self.dispatcher().dispatch(run.id).await {
            tracing::warn!(run = %run.id, error = %e, "dispatch failed; the reconciler will retry");
        }
        Run::try_from(run)
    }

    /// Cancels a queued or running run; members of its organisation may.
    pub async fn cancel_verification(
        &self,
        caller: Caller,
        id: domain::RunId,
    ) -> Result<Run, AppError> {
        let id = id.as_uuid();
        let run = self.run_record(id).await?;
        self.require_role(caller, domain::OrgId::from_uuid(run.org_id), Role::Member)
            .await?;
        if run.kind == run_kind::SPOT_CHECK {
            // A provider cannot call off the platform's check of its own listing.
            return Err(AppError::Forbidden(
                "spot checks are the platform's; only it can stop one".to_owned(),
            ));
        }
        if !self
            .db()
            .cancel_run(
                id,
                (CANCELLED, "cancelled by a member of the organisation"),
                Utc::now(),
            )
            .await?
        {
            let now = self.run_record(id).await?;
            return Err(AppError::RunFinished(now.status.to_string()));
        }
        self.record_event(
            id,
            event::FINISHED,
            json!({"run_id": id, "status": run_status::CANCELLED, "reason": CANCELLED}),
        )
        .await?;
        self.run(id.into()).await
    }

    /// Cancels a listing's queued and running runs (its claim changed), telling their
    /// followers.
    pub(crate) async fn cancel_runs_of(&self, listing: Uuid, reason: &str) -> Result<(), AppError> {
        for id in self
            .db()
            .cancel_runs_of_listing(listing, (LISTING_CHANGED, reason), Utc::now())
            .await?
        {
            self.record_event(
                id,
                event::FINISHED,
                json!({"run_id": id, "status": run_status::CANCELLED, "reason": LISTING_CHANGED}),
            )
            .await?;
        }
        Ok(())
    }

    /// Follows a run's events after `after` (0: from the start). Anyone may follow, from
    /// `client` within `event_streams_per_client` streams at once (and the process within
    /// `event_streams_total`).
    pub async fn follow_run(
        &self,
        id: domain::RunId,
        after: i32,
        client: ipnet::IpNet,
        viewer: Option<Caller>,
    ) -> Result<RunFollower, AppError> {
        let run = self.run_record(id.as_uuid()).await?;
        self.run_shown_to(&run, viewer).await?;
        let config = self.config();
        let slot = self.inner.streams.take(
            client,
            config.limits.event_streams_per_client as usize,
            config.limits.event_streams_total as usize,
        )?;
        let subscription = self.notifier().subscribe(run.id).await;
        Ok(RunFollower {
            app: self.clone(),
            run: run.id,
            after,
            subscription,
            finished: false,
            _slot: slot,
        })
    }

    /// The next run a worker should take, waiting up to `wait`.
    pub async fn next_run(
        &self,
        worker: &str,
        wait: Duration,
    ) -> Result<Option<domain::RunId>, AppError> {
        Ok(self.dispatcher().next(worker, wait).await?.map(Into::into))
    }

    /// A private run exists only for its organisation's members.
    async fn run_shown_to(&self, run: &RunRecord, viewer: Option<Caller>) -> Result<(), AppError> {
        if run.visibility == visibility::PRIVATE
            && !self.is_member(viewer, run.org_id.into()).await?
        {
            return Err(AppError::NotFound("run"));
        }
        Ok(())
    }

    pub async fn run(&self, id: domain::RunId) -> Result<Run, AppError> {
        Run::try_from(self.run_record(id.as_uuid()).await?)
    }

    /// The run as `viewer` may see it: anyone sees its failure code, only the members of its
    /// organisation the detail.
    pub async fn run_seen_by(
        &self,
        id: domain::RunId,
        viewer: Option<Caller>,
    ) -> Result<Run, AppError> {
        let record = self.run_record(id.as_uuid()).await?;
        self.run_shown_to(&record, viewer).await?;
        let mut run = Run::try_from(record)?;
        if !self.is_member(viewer, run.org_id).await? {
            run.failure_reason = None;
        }
        Ok(run)
    }

    async fn run_record(&self, id: Uuid) -> Result<RunRecord, AppError> {
        self.db()
            .run_by_id(id)
            .await?
            .ok_or(AppError::NotFound("verification run"))
    }

    pub(crate) async fn record_event(
        &self,
        run: Uuid,
        kind: &str,
        data: Value,
    ) -> Result<i32, AppError> {
        let seq = self.db().append_event(run, kind, data.to_string()).await?;
        self.notifier().notify(run).await;
        Ok(seq)
    }

    /// Re-dispatches runs the queue may have lost: queued for more than `stale`, or running
    /// on an expired lease. Returns how many.
    pub async fn reconcile(&self, stale: Duration) -> Result<usize, AppError> {
        let now = Utc::now();
        let stale_before = now - chrono::Duration::from_std(stale).unwrap_or_default();
        let runs = self.db().runs_needing_dispatch(stale_before, now).await?;
        for run in &runs {
            self.dispatcher().dispatch(*run).await?;
        }
        if !runs.is_empty() {
            tracing::info!(count = runs.len(), "reconciler re-dispatched runs");
        }
        Ok(runs.len())
    }
}

/// The 429 of an organisation that asked for its plan's verification runs in the last 24
/// hours: it may ask again when one more fits.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_event_shows_the_public_only_its_code() {
        let coded =
            public_finish(r#"{"run_id":"r","status":"failed","reason":"engine_unreachable"}"#);
        assert!(coded.contains("engine_unreachable"));
        let old = public_finish(
            r#"{"run_id":"r","status":"failed","reason":"GET http://10.0.0.5:8000/v1/models: refused"}"#,
        );
        assert!(!old.contains("10.0.0.5"), "{old}");
        assert!(old.contains("engine_error"));
        assert_eq!(public_finish("not json"), "{}");
    }
}
