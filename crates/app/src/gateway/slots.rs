//! Stream slots: how many streams a booking has open (at most its share of the machine),
//! and how many the machine has open across its bookings — each stream's peak of the
//! latter is the load it was served at — counted once for every replica
//! ([`super::counter`]). A replica that crashes leaves leases that expire within
//! `gateway_stream_lease_secs`; one that cannot reach the shared count admits nothing (503),
//! never a stream uncounted.
//!
//! A booking with direct access to the machine (SSH or an HTTPS URL) can load the engine
//! around the gateway: its streams also sample the engine's own `num_requests_running`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use chrono::Utc;
use store::StreamLease;
use uuid::Uuid;

use super::GatewayTarget;
use super::counter::{NotAdmitted, release};
use crate::{App, AppError};

/// The load a request was served at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Load {
    /// The most streams the gateway had open to the machine, across replicas, at any
    /// moment of the request (its own included).
    pub gateway: usize,
    /// The most requests the engine said it ran meanwhile (bookings with direct access).
    pub engine: Option<usize>,
}

/// One open stream of a booking, counted until released (or dropped).
#[derive(Debug)]
pub struct GatewaySlot {
    app: App,
    lease: StreamLease,
    /// The stream's peak, when counted in this process.
    local: Option<Arc<AtomicUsize>>,
    /// Renews the lease, and samples the engine's load when asked.
    keeper: Option<tokio::task::JoinHandle<()>>,
    engine_load: Option<Arc<AtomicUsize>>,
    released: bool,
}

impl App {
    /// A stream slot of the booking: 429 when its share is taken, 503 when the shared count
    /// cannot be reached.
    pub async fn gateway_slot(&self, target: &GatewayTarget) -> Result<GatewaySlot, AppError> {
        let lease = StreamLease {
            id: Uuid::now_v7(),
            booking_id: target.booking_id,
            listing_id: target.listing_id,
            max_streams: target.max_streams as u64,
            expires_at: Utc::now() + self.lease_length(),
        };
        let local = self
            .admit_stream(lease)
            .await
            .map_err(|refusal| match refusal {
                NotAdmitted::Unreachable(e) => {
                    tracing::warn!(error = %e, "the gateway's shared stream count is unavailable");
                    AppError::Unavailable(
                        "the gateway cannot count streams right now; try again shortly".into(),
                    )
                }
                NotAdmitted::Taken => AppError::RateLimited {
                    what: format!(
                        "the booking's share of the machine is {} stream(s) at once",
                        target.max_streams
                    ),
                    retry_after_secs: 1,
                },
            })?;
        let engine_load = target.direct_access.then(|| Arc::new(AtomicUsize::new(0)));
        let shared = local.is_none();
        let keeper = (shared || engine_load.is_some()).then(|| {
            tokio::spawn(keep(
                self.clone(),
                lease,
                shared,
                engine_load.clone().map(|load| (load, target.clone())),
            ))
        });
        Ok(GatewaySlot {
            app: self.clone(),
            lease,
            local,
            keeper,
            engine_load,
            released: false,
        })
    }
}

/// While a stream is open: renews its lease (a third of the way through each), and samples
/// the engine's `num_requests_running` every second when asked.
async fn keep(
    app: App,
    lease: StreamLease,
    shared: bool,
    engine: Option<(Arc<AtomicUsize>, GatewayTarget)>,
) {
    let renew_every = app.lease_length() / 3;
    let mut renewed = tokio::time::Instant::now();
    loop {
        if let Some((load, target)) = &engine
            && let Some(running) = app.engine_running(target).await
        {
            load.fetch_max(running, Ordering::Relaxed);
        }
        if shared && renewed.elapsed() >= renew_every {
            renewed = tokio::time::Instant::now();
            if let Err(e) = app.renew_stream(lease).await {
                tracing::warn!(error = %e, "a gateway stream's lease was not renewed");
            }
        }
        let pause = if engine.is_some() {
            Duration::from_secs(1).min(renew_every)
        } else {
            renew_every
        };
        tokio::time::sleep(pause).await;
    }
}

impl App {
    /// The engine's `num_requests_running` now, read through the outbound rules (bounded).
    async fn engine_running(&self, target: &GatewayTarget) -> Option<usize> {
        let body = self
            .engine_answer(
                target,
                "/metrics",
                None,
                Duration::from_secs(2),
                bench::bounds::METRICS_BODY,
            )
            .await?;
        let snapshot = bench::prom::Snapshot::parse(&String::from_utf8_lossy(&body)).ok()?;
        snapshot.running.map(|n| n.max(0.0).round() as usize)
    }
}

impl GatewaySlot {
    /// Closes the stream; the load it was served at.
    pub async fn release(mut self) -> Load {
        self.released = true;
        if let Some(keeper) = self.keeper.take() {
            keeper.abort();
        }
        let engine = self
            .engine_load
            .as_ref()
            .map(|load| load.load(Ordering::Relaxed))
            .filter(|n| *n > 0);
        let gateway = release(&self.app, &self.lease, self.local.take()).await;
        Load { gateway, engine }
    }
}

impl Drop for GatewaySlot {
    fn drop(&mut self) {
        if self.released {
            return;
        }
        if let Some(keeper) = self.keeper.take() {
            keeper.abort();
        }
        let (app, lease, local) = (self.app.clone(), self.lease, self.local.take());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                release(&app, &lease, local).await;
            });
        }
    }
}
