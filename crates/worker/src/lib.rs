//! The verification worker: takes run ids from the dispatcher, claims each in the database
//! with a lease, runs it, and attaches its signed report. Beside it the reconciler
//! re-dispatches runs the queue lost. Both stop when `shutdown` turns true; a run in
//! progress is then given back to the queue. The checkpointer signs the transparency log's
//! checkpoints.

use std::time::Duration;

use app::App;
use app::trust::verification::Outcome;
use tokio::sync::watch;

/// Runs this process is executing now (a gauge, for `worker_listen`'s `/metrics`).
const RUNS_IN_PROGRESS: &str = "gpumarket_worker_runs_in_progress";
/// Runs this process finished, by outcome: `reported`, `failed`, `released` (handed back at
/// shutdown), `lost_lease`, `taken` (another worker had it), `error`.
const RUNS_METRIC: &str = "gpumarket_worker_runs_total";

/// How long one wait for a delivery lasts before the loop checks for shutdown.
const POLL: Duration = Duration::from_secs(2);

/// A name unique to this process and worker, for leases and consumer groups.
pub fn worker_name(index: usize) -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "local".to_owned());
    format!(
        "{host}-{}-{index}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Runs the worker loop until `shutdown`.
pub async fn run(app: App, name: String, mut shutdown: watch::Receiver<bool>) {
    let lease = Duration::from_secs(app.config().verification.worker_lease_secs);
    tracing::info!(worker = %name, lease_s = lease.as_secs(), "verification worker started");
    loop {
        if *shutdown.borrow() {
            break;
        }
        let next = tokio::select! {
            next = app.next_run(&name, POLL) => next,
            _ = shutdown.wait_for(|s| *s) => break,
        };
        let run = match next {
            Ok(Some(run)) => run,
            Ok(None) => continue,
            Err(e) => {
                tracing::warn!(worker = %name, error = %e, "the queue failed; retrying");
                tokio::time::sleep(POLL).await;
                continue;
            }
        };
        metrics::gauge!(RUNS_IN_PROGRESS).increment(1);
        let outcome = app.execute_run(run, &name, lease, shutdown.clone()).await;
        metrics::gauge!(RUNS_IN_PROGRESS).decrement(1);
        let label = match outcome {
            Ok(None) => {
                tracing::debug!(%run, "run already taken or done");
                "taken"
            }
            Ok(Some(Outcome::Reported(report))) => {
                tracing::info!(%run, %report, "run verified");
                "reported"
            }
            Ok(Some(Outcome::Failed { code, reason })) => {
                tracing::warn!(%run, code, %reason, "run failed");
                "failed"
            }
            Ok(Some(Outcome::Released)) => {
                tracing::info!(%run, "run released at shutdown");
                "released"
            }
            Ok(Some(Outcome::LostLease)) => {
                tracing::warn!(%run, "lease lost; another worker owns the run");
                "lost_lease"
            }
            Err(e) => {
                tracing::error!(%run, error = %e, "executing a run failed");
                "error"
            }
        };
        metrics::counter!(RUNS_METRIC, "outcome" => label).increment(1);
    }
    tracing::info!(worker = %name, "verification worker stopped");
}

/// Every `reconcile_interval_secs` until `shutdown`: re-dispatches lost runs, expires badges
/// and starts due spot checks, and sweeps bookings along with the clock (expired holds
/// released, started bookings active, ended ones completed), judges and settles
/// performance guarantees, and signs the uptime statements of periods that ended. All are
/// idempotent, so any number of replicas may run this.
pub async fn reconcile(app: App, mut shutdown: watch::Receiver<bool>) {
    // Once at start: reports stored before their cells kept what judging reads.
    match app.fill_cell_figures().await {
        Ok(0) => {}
        Ok(n) => tracing::info!(reports = n, "report cells' judging figures filled"),
        Err(e) => tracing::warn!(error = %e, "filling report cells' judging figures failed"),
    }
    let interval = Duration::from_secs(app.config().verification.reconcile_interval_secs);
    // A queued run is "lost" when it has waited this long without being claimed.
    let stale = interval * 3;
    loop {
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            _ = shutdown.wait_for(|s| *s) => return,
        }
        if let Err(e) = app.reconcile(stale).await {
            tracing::warn!(error = %e, "reconciling runs failed");
        }
        if let Err(e) = app.verification_upkeep().await {
            tracing::warn!(error = %e, "expiring badges or starting spot checks failed");
        }
        match app.sweep_bookings().await {
            Ok(sweep) if !sweep.is_empty() => tracing::info!(
                expired = sweep.expired,
                activated = sweep.activated,
                completed = sweep.completed,
                plans_released = sweep.plans_released,
                maintenance_cancelled = sweep.maintenance_cancelled,
                interruptions_given_back = sweep.interruptions_given_back,
                "bookings swept"
            ),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "sweeping bookings failed"),
        }
        if let Err(e) = app.guarantee_upkeep().await {
            tracing::warn!(error = %e, "judging performance guarantees failed");
        }
        match app.sign_uptime_statements().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(statements = n, "uptime statements signed"),
            Err(e) => tracing::warn!(error = %e, "signing uptime statements failed"),
        }
    }
}

/// Probes listed machines' engines until `shutdown`: every tick (a quarter of the probe
/// period, at most a second) claims the probes due and records what they find. Any number
/// of replicas may run this: a probe is claimed in the database once a period.
pub async fn liveness(app: App, mut shutdown: watch::Receiver<bool>) {
    let period = app.config().liveness.period();
    let tick = app::trust::liveness::tick(period);
    tracing::info!(every_s = period.as_secs(), "liveness prober started");
    loop {
        if let Err(e) = app.probe_due().await {
            tracing::warn!(error = %e, "probing machines failed");
        }
        tokio::select! {
            () = tokio::time::sleep(tick) => {}
            _ = shutdown.wait_for(|s| *s) => return,
        }
    }
}

/// How often a webhook worker deletes what is 30 days old.
const WEBHOOK_PRUNE_EVERY: Duration = Duration::from_secs(60);

/// Delivers webhooks: fans new events out to their endpoints and sends what is due, every
/// `webhook_poll_ms` and whenever a send ends, with up to `CLAIMS_PER_PASS` sends under way
/// (a slow receiver holds one of them, never the others). Several workers may run this: each
/// attempt is claimed once. At shutdown, sends under way finish (each within its timeout).
pub async fn webhooks(app: App, mut shutdown: watch::Receiver<bool>) {
    let poll = Duration::from_millis(app.config().webhooks.webhook_poll_ms);
    let room = app::operations::webhooks::CLAIMS_PER_PASS;
    let mut sending = tokio::task::JoinSet::new();
    let mut pruned: Option<std::time::Instant> = None;
    loop {
        while sending.try_join_next().is_some() {}
        let free = room - sending.len();
        let mut claimed = 0;
        if free > 0 {
            match app.due_webhooks(free).await {
                Ok(claims) => {
                    claimed = claims.len();
                    for claim in claims {
                        let app = app.clone();
                        sending.spawn(async move {
                            if let Err(e) = app.deliver_webhook(claim).await {
                                tracing::warn!(error = %e, "recording a webhook attempt failed");
                            }
                        });
                    }
                }
                Err(e) => tracing::warn!(error = %e, "delivering webhooks failed"),
            }
        }
        if pruned.is_none_or(|at| at.elapsed() >= WEBHOOK_PRUNE_EVERY) {
            if let Err(e) = app.prune_webhooks().await {
                tracing::warn!(error = %e, "pruning old webhook events failed");
            }
            if let Err(e) = app.prune_audit().await {
                tracing::warn!(error = %e, "pruning the audit trails' old rows failed");
            }
            pruned = Some(std::time::Instant::now());
        }
        if *shutdown.borrow() {
            break;
        }
        // Every free place taken: more may be due at once.
        if free > 0 && claimed == free {
            continue;
        }
        tokio::select! {
            () = tokio::time::sleep(poll) => {}
            _ = sending.join_next(), if !sending.is_empty() => {}
            _ = shutdown.wait_for(|s| *s) => break,
        }
    }
    while sending.join_next().await.is_some() {}
}

/// Signs a checkpoint of the transparency log whenever it grew and the latest is
/// `log_checkpoint_secs` old (several replicas may run this: one checkpoint per size wins).
pub async fn checkpoints(app: App, mut shutdown: watch::Receiver<bool>) {
    let interval = Duration::from_secs(app.config().reports.log_checkpoint_secs.max(1));
    loop {
        if let Err(e) = app.checkpoint_log().await {
            tracing::warn!(error = %e, "signing a log checkpoint failed");
        }
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            _ = shutdown.wait_for(|s| *s) => return,
        }
    }
}
