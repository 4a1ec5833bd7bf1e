//! A worker's side of a run, in three steps: claim it (finishing at once a run whose report an
//! earlier attempt attached), measure it under a [`RunLease`], and conclude it (the report
//! signed and attached, or the failure kept, the spot check judged, the run finished). The
//! lease is what makes the run this worker's: renewed a third of the way through, and given
//! up — the harness stopped — on shutdown, cancellation, a lost lease or the deadline.

use std::time::Duration;

use chrono::{DateTime, Utc};
use domain::spot_check::Verdict;
use serde_json::{Value, json};
use store::{RunRecord, StoreError};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::trust::preflight::{self, Patience};
use crate::trust::reports;
use crate::trust::runs::failure::{DEADLINE_EXCEEDED, PREFLIGHT_FAILED};
use crate::trust::runs::{event, run_kind};
use crate::trust::spot_checks::Baseline;
use crate::{App, AppError};

/// How often a running run looks whether it was cancelled: a cancel stops it within this
/// and the harness's own stop (well under 2 s).
const CANCEL_POLL: Duration = Duration::from_millis(500);

/// How a worker's run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A report was attached (or had been already, by an earlier attempt).
    Reported(Uuid),
    /// The run failed; the code and the reason are kept on it.
    Failed { code: &'static str, reason: String },
    /// Given back to the queue (the worker is shutting down).
    Released,
    /// Another worker owns the run now (the lease ran out); nothing was written.
    LostLease,
}

/// Why a lease was given up, or that it is still held once the harness stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LeaseEnd {
    /// Still this worker's, renewed just now: the result may be written.
    Held { overdue: bool },
    /// The worker is shutting down: the run goes back to the queue.
    Shutdown,
    /// Cancelled or taken over: nothing may be written.
    Lost,
}

/// A worker's claim on a run while the harness measures: a task renews it every third of
/// `lease` (looking every [`CANCEL_POLL`] whether it is still held) and trips `stop` — which
/// the harness watches — on shutdown, at the run's deadline, or when the run stopped being
/// this worker's (cancelled, or taken over after a stall).
struct RunLease {
    run: Uuid,
    worker: String,
    lease: Duration,
    stop: watch::Receiver<bool>,
    lost: watch::Receiver<bool>,
    overdue: watch::Receiver<bool>,
    shutdown: watch::Receiver<bool>,
    renewer: JoinHandle<()>,
}

impl RunLease {
    fn hold(
        app: &App,
        run: Uuid,
        worker: &str,
        lease: Duration,
        shutdown: watch::Receiver<bool>,
    ) -> Self {
        let (stop_tx, stop) = watch::channel(false);
        let (lost_tx, lost) = watch::channel(false);
        let (overdue_tx, overdue) = watch::channel(false);
        let deadline = tokio::time::Instant::now()
            + Duration::from_secs(app.config().verification.verification_deadline_secs);
        let renewer = {
            let app = app.clone();
            let worker = worker.to_owned();
            let mut shutdown = shutdown.clone();
            tokio::spawn(async move {
                let mut renewed_at = tokio::time::Instant::now();
                // The lease as last written: a database error is not a lost lease while it
                // still runs (a busy moment must not cost the run).
                let mut held_until = renewed_at + lease;
                loop {
                    tokio::select! {
                        () = tokio::time::sleep(CANCEL_POLL) => {}
                        _ = shutdown.wait_for(|s| *s) => { let _ = stop_tx.send(true); return; }
                        () = tokio::time::sleep_until(deadline) => {
                            let _ = overdue_tx.send(true);
                            let _ = stop_tx.send(true);
                            return;
                        }
                    }
                    let still_ours = if renewed_at.elapsed() >= lease / 3 {
                        let now = tokio::time::Instant::now();
                        let renewed = app
                            .db()
                            .renew_lease(run, &worker, lease_until(Utc::now(), lease))
                            .await;
                        if matches!(renewed, Ok(true)) {
                            (renewed_at, held_until) = (now, now + lease);
                        }
                        renewed
                    } else {
                        app.db().holds_lease(run, &worker).await
                    };
                    let lost = match still_ours {
                        Ok(ours) => !ours,
                        Err(e) => {
                            tracing::warn!(run = %run, error = %e, "could not check the run's lease");
                            tokio::time::Instant::now() + 2 * CANCEL_POLL >= held_until
                        }
                    };
                    if lost {
                        let _ = lost_tx.send(true);
                        let _ = stop_tx.send(true);
                        return;
                    }
                }
            })
        };
        Self {
            run,
            worker: worker.to_owned(),
            lease,
            stop,
            lost,
            overdue,
            shutdown,
            renewer,
        }
    }

    /// What the harness watches: true when it must stop.
    fn stop_signal(&self) -> watch::Receiver<bool> {
        self.stop.clone()
    }

    /// Stops renewing and watching, the moment the harness has returned: the deadline or a
    /// lease check can no longer overturn a measurement that finished (while its last
    /// progress events are still being written).
    fn stop_watching(&self) {
        self.renewer.abort();
    }

    /// Says whether the run is still this worker's — renewed once more now, so a run
    /// cancelled or taken over while it measured gets nothing written.
    async fn end(self, app: &App) -> Result<LeaseEnd, AppError> {
        self.renewer.abort();
        if *self.lost.borrow() {
            return Ok(LeaseEnd::Lost);
        }
        if *self.shutdown.borrow() {
            return Ok(LeaseEnd::Shutdown);
        }
        let held = app
            .db()
            .renew_lease(self.run, &self.worker, lease_until(Utc::now(), self.lease))
            .await?;
        Ok(if held {
            LeaseEnd::Held {
                overdue: *self.overdue.borrow(),
            }
        } else {
            LeaseEnd::Lost
        })
    }
}

/// What measuring a claimed run gave: the harness's report or why there is none (a failure's
/// code and detail), how its lease ended, the spot check's baseline when the run is one, and
/// its preflight's checks.
struct Measured {
    result: Result<bench::Report, (&'static str, String)>,
    lease: LeaseEnd,
    listing: store::ListingRecord,
    spot_check: Option<Baseline>,
    preflight: Vec<preflight::Check>,
}

impl App {
    /// Claims and executes one run as `worker`. `shutdown` turning true gives the run back.
    pub async fn execute_run(
        &self,
        run: domain::RunId,
        worker: &str,
        lease: Duration,
        shutdown: watch::Receiver<bool>,
    ) -> Result<Option<Outcome>, AppError> {
        let now = Utc::now();
        let Some(run) = self
            .db()
            .claim_run(run.as_uuid(), worker, lease_until(now, lease), now)
            .await?
        else {
            return Ok(None); // someone else has it, or it is done
        };
        if let Some(outcome) = self.finish_reported(&run, worker).await? {
            return Ok(Some(outcome));
        }
        let measured = self.measure(&run, worker, lease, shutdown).await?;
        self.conclude(&run, worker, measured).await.map(Some)
    }

    /// A claimed run whose report an earlier attempt attached before it died: finished from
    /// the stored report (its spot check judged, when that attempt did not get to it).
    async fn finish_reported(
        &self,
        run: &RunRecord,
        worker: &str,
    ) -> Result<Option<Outcome>, AppError> {
        let Some(existing) = self.db().report_by_run(run.id).await? else {
            return Ok(None);
        };
        if run.kind == run_kind::SPOT_CHECK && !self.db().report_was_judged(existing.id).await? {
            let baseline = self.baseline_of(run).await?;
            let found = crate::trust::spot_checks::judge_stored(
                &baseline,
                &existing.summary,
                &self.db().cells_of_report(existing.id).await?,
                self.config().verification.spot_check_min_fraction,
            );
            let verdict = self
                .conclude_spot_check(run, &baseline, Some(existing.id), found)
                .await?;
            tracing::info!(run = %run.id, verdict, "a spot check judged after its worker died");
        }
        self.db()
            .finish_run(
                run.id,
                worker,
                domain::RunStatus::Succeeded,
                Some(existing.id),
                None,
                Utc::now(),
            )
            .await?;
        Ok(Some(Outcome::Reported(existing.id)))
    }

    /// Runs the harness against the listing's engine under a lease, its progress recorded as
    /// the run's events.
    async fn measure(
        &self,
        run: &RunRecord,
        worker: &str,
        lease: Duration,
        shutdown: watch::Receiver<bool>,
    ) -> Result<Measured, AppError> {
        let listing = self.listing_record(run.listing_id).await?;
        self.record_event(
            run.id,
            event::STARTED,
            // Events are public: the worker that runs it (a host name) stays in the logs.
            json!({"run_id": run.id, "attempt": run.attempts}),
        )
        .await?;
        let held = RunLease::hold(self, run.id, worker, lease, shutdown);
        let spot_check = if run.kind == run_kind::SPOT_CHECK {
            Some(self.baseline_of(run).await?)
        } else {
            None
        };
        let (progress_tx, mut progress_rx) = mpsc::unbounded_channel();
        let forwarder = {
            let app = self.clone();
            let run_id = run.id;
            // The run's own streams count in the engine's load while they run (a renter's
            // request beside a spot check is judged at the load it ran at).
            let mut load =
                crate::engine_load::PlatformLoad::new(self.clone(), listing.clone(), run.id);
            tokio::spawn(async move {
                load.hold(1).await;
                while let Some(progress) = progress_rx.recv().await {
                    match &progress {
                        bench::Progress::CellStarted { concurrency, .. } => {
                            load.hold(usize::try_from(*concurrency).unwrap_or(1)).await;
                        }
                        bench::Progress::CellFinished(_) => load.hold(1).await,
                        _ => {}
                    }
                    if let Some((kind, data)) = progress_event(&progress)
                        && let Err(e) = app.record_event(run_id, kind, data).await
                    {
                        tracing::warn!(run = %run_id, error = %e, "could not record a progress event");
                    }
                }
                load.hold(0).await;
            })
        };
        let mut params = match (&spot_check, run.profile.as_str()) {
            (Some(baseline), _) => self.spot_check_params(baseline),
            (None, profile) => self.config().verification.params(profile),
        };
        // Fresh prompts for every attempt: a rerun on the same engine must not find the last
        // run's prompts in its prefix cache (prefill is measured cold). The seed is recorded.
        let (high, low) = run.id.as_u64_pair();
        params.prompt_seed = high ^ low ^ (run.attempts as u64).rotate_left(32);
        // The engine's preflight again: what changed since the request fails the run here,
        // before any engine time (a spot check's failure is a failed check). A cancel, the
        // deadline or a shutdown stops it as it stops the harness.
        let mut stop = held.stop_signal();
        let started = Utc::now();
        let checks = tokio::select! {
            checks = self.engine_checks(&listing, &params, Patience::RUN) => Some(checks?),
            _ = stop.wait_for(|stop| *stop) => None,
        };
        let failed = match &checks {
            None => Some((
                bench::BenchError::Stopped.code(),
                bench::BenchError::Stopped.to_string(),
            )),
            Some(checks) if !preflight::passed(checks) => {
                Some((PREFLIGHT_FAILED, preflight::failures(checks)))
            }
            Some(_) => None,
        };
        let checks = checks.unwrap_or_default();
        if let Some(failure) = failed {
            held.stop_watching();
            return Ok(Measured {
                result: Err(failure),
                lease: held.end(self).await?,
                listing,
                spot_check,
                preflight: checks,
            });
        }
        let options = bench::Options {
            base_url: listing.engine_base_url.clone(),
            model: Some(listing.engine_model.clone()),
            api_key: self
                .engine_key_of(&listing)?
                .map(|key| key.expose().to_owned().into()),
            params,
            outbound: self.outbound_policy(),
            require_dialect: true,
            expect_engine: listing.engine_name.clone(),
        };
        // On this runtime. A runtime of its own (two more threads) was tried on a noisy
        // two-core VM and did not help: the slowed-engine guarantee test's spot check was
        // judged client_bound (lag p99 5.4-6.3 ms) in 4 of 6 runs with it, and in 2 of 6 here.
        let mut result = bench::run(options, Some(progress_tx), held.stop_signal())
            .await
            .map_err(|e| (e.code(), e.to_string()));
        // The agent's samples are asked for only now the run has measured (still under the
        // lease: a cancel or a lost lease skips them).
        if let Ok(report) = &mut result
            && !*held.stop_signal().borrow()
            && let Err(e) = self.add_energy(run, &listing, started, report).await
        {
            tracing::warn!(run = %run.id, error = %e, "the run's energy could not be read");
        }
        held.stop_watching();
        let _ = forwarder.await;
        Ok(Measured {
            result,
            lease: held.end(self).await?,
            listing,
            spot_check,
            preflight: checks,
        })
    }

    /// Writes what the measurement decided, when the run is still this worker's: the run
    /// released to the queue on shutdown; else its report attached (and a spot check judged)
    /// or its failure kept, and the run finished with a public `finished` event.
    async fn conclude(
        &self,
        run: &RunRecord,
        worker: &str,
        measured: Measured,
    ) -> Result<Outcome, AppError> {
        let Measured {
            result,
            lease,
            listing,
            spot_check,
            preflight,
        } = measured;
        let overdue = match lease {
            LeaseEnd::Lost => return Ok(Outcome::LostLease),
            LeaseEnd::Shutdown => return self.release(run, worker).await,
            LeaseEnd::Held { overdue } => overdue,
        };
        let failure = match &result {
            _ if overdue => Some((
                DEADLINE_EXCEEDED,
                format!(
                    "the run did not finish within verification_deadline_secs ({} s)",
                    self.config().verification.verification_deadline_secs
                ),
            )),
            Err((code, reason)) => Some((*code, reason.clone())),
            Ok(_) => None,
        };
        let min_fraction = self.config().verification.spot_check_min_fraction;
        // What a spot check among these runs found (a run that could not measure refutes its
        // baseline always).
        let (outcome, found) = match (failure, result) {
            (Some((code, reason)), _) => {
                let why = format!("the spot check could not measure the engine ({code})");
                (Outcome::Failed { code, reason }, Verdict::Refuted(why))
            }
            (None, Err(_)) => unreachable!("an error always has a failure code"),
            (None, Ok(report)) => {
                let report_id = self.attach_report(run, &listing, &report).await?;
                let found = spot_check.as_ref().map_or(Verdict::Confirmed, |baseline| {
                    crate::trust::spot_checks::judge(baseline, &report, min_fraction)
                });
                (Outcome::Reported(report_id), found)
            }
        };
        let spot_check_verdict = match &spot_check {
            Some(baseline) => {
                let report_id = match outcome {
                    Outcome::Reported(id) => Some(id),
                    _ => None,
                };
                Some(
                    self.conclude_spot_check(run, baseline, report_id, found)
                        .await?,
                )
            }
            None => None,
        };
        // The run ends after its spot check's verdict is kept: a worker dying in between
        // leaves a run the next one finishes from the stored report (`finish_reported`).
        let (status, report, failure, data) = match &outcome {
            Outcome::Reported(id) => (
                domain::RunStatus::Succeeded,
                Some(*id),
                None,
                json!({"run_id": run.id, "status": "succeeded", "report_id": id, "spot_check": spot_check_verdict}),
            ),
            // Public: the code, never the detail (it may quote the engine).
            Outcome::Failed { code, reason } => (
                domain::RunStatus::Failed,
                None,
                Some((*code, reason.as_str())),
                json!({"run_id": run.id, "status": "failed", "reason": code}),
            ),
            Outcome::Released | Outcome::LostLease => {
                unreachable!("a run that is no longer this worker's returned before")
            }
        };
        self.db()
            .finish_run(run.id, worker, status, report, failure, Utc::now())
            .await?;
        // Kept once the run ended (a spot check's preflight is not seen before the check
        // is), and never at the cost of the run's end.
        if !preflight.is_empty()
            && let Err(e) = self
                .keep_preflight(&listing, Some(run.id), preflight::kind::RUN, &preflight)
                .await
        {
            tracing::warn!(run = %run.id, error = %e, "a run's preflight could not be kept");
        }
        self.record_event(run.id, event::FINISHED, data).await?;
        Ok(outcome)
    }

    /// Gives a run back on shutdown: queued again and handed to the next worker now, not when
    /// the reconciler finds it waiting (a lost delivery is still found then; a duplicate
    /// claims nothing).
    async fn release(&self, run: &RunRecord, worker: &str) -> Result<Outcome, AppError> {
        self.db().release_run(run.id, worker).await?;
        self.record_event(
            run.id,
            event::QUEUED,
            json!({"run_id": run.id, "reason": "worker shut down; run released"}),
        )
        .await?;
        if let Err(e) = self.dispatcher().dispatch(run.id).await {
            tracing::warn!(run = %run.id, error = %e, "a released run was not dispatched again");
        }
        Ok(Outcome::Released)
    }

    /// Signs and stores the report; attaching twice for one run yields the first report.
    async fn attach_report(
        &self,
        run: &RunRecord,
        listing: &store::ListingRecord,
        report: &bench::Report,
    ) -> Result<Uuid, AppError> {
        let report = crate::trust::physics::check_roofline(listing, report);
        let signed = reports::sign_run_report(self.signer(), run, listing, &report)?;
        let id = signed.id;
        let mut record = signed.into_record()?;
        if run.kind == run_kind::VERIFICATION {
            let plan = self.plan_of(listing.org_id.into()).await?;
            record.badge = Some(self.new_badge(record.created_at, &plan));
        }
        match self.db().insert_report(record).await {
            Ok(_) => Ok(id),
            Err(StoreError::Conflict(_)) => {
                let existing = self.db().report_by_run(run.id).await?.ok_or_else(|| {
                    AppError::Internal(format!(
                        "run {} has a report conflict but no report",
                        run.id
                    ))
                })?;
                Ok(existing.id)
            }
            Err(e) => Err(e.into()),
        }
    }
}

fn lease_until(now: DateTime<Utc>, lease: Duration) -> DateTime<Utc> {
    now + chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::seconds(30))
}

/// The log entry for a progress event; live throughput is not logged.
fn progress_event(progress: &bench::Progress) -> Option<(&'static str, Value)> {
    match progress {
        bench::Progress::CellStarted {
            context_tokens,
            concurrency,
        } => Some((
            event::CELL_STARTED,
            json!({"context_tokens": context_tokens, "concurrency": concurrency}),
        )),
        bench::Progress::CellFinished(cell) => {
            Some((event::CELL_FINISHED, serde_json::to_value(cell).ok()?))
        }
        bench::Progress::PrefillFinished(entry) => {
            Some((event::PREFILL_FINISHED, serde_json::to_value(entry).ok()?))
        }
        bench::Progress::Plan {
            prefill,
            decode,
            decode_to_run,
        } => Some((
            event::PLANNED,
            json!({"prefill": prefill, "decode": decode, "decode_to_run": decode_to_run}),
        )),
        bench::Progress::Phase(_) | bench::Progress::Live { .. } => None,
    }
}
