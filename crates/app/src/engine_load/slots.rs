//! Stream slots: how many streams a booking has open (at most its share of the machine),
//! and how many the engine has open across its bookings and every listing naming it — each stream's peak of the
//! latter is the load it was served at — counted once for every replica
//! ([`super::counter`]); a booking's slot is taken by the gateway (`App::gateway_slot`). A replica that crashes leaves leases that expire within
//! `gateway_stream_lease_secs`; one that cannot reach the shared count admits nothing (503),
//! never a stream uncounted.
//!
//! The load is only ever the gateway's own count: never the engine's `/metrics`, which the
//! provider controls. A booking with direct access (which could load the engine around the
//! gateway) carries no guarantee, and a bucket overlapping one is not judged.

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use chrono::Utc;
use store::StreamLease;
use uuid::Uuid;

use super::counter::{NotAdmitted, release};
use crate::App;

/// The load a request was served at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Load {
    /// The most streams the gateway had open to the machine, across replicas, at any
    /// moment of the request (its own included).
    pub gateway: usize,
}

/// One open stream of a booking, counted until released (or dropped).
#[derive(Debug)]
pub struct GatewaySlot {
    app: App,
    lease: StreamLease,
    /// The stream's peak, when counted in this process.
    local: Option<Arc<AtomicUsize>>,
    /// Renews the lease.
    keeper: Option<tokio::task::JoinHandle<()>>,
    released: bool,
}

impl App {
    /// A stream the platform itself opens to `listing`'s engine (a liveness probe, a
    /// verification's or spot check's requests, under `owner`: the probe's listing or the
    /// run): counted in the engine's load like a renter's, so a request served beside it is
    /// judged at the load it really ran at. `None` when the shared count cannot be reached
    /// (the stream then goes uncounted, and says so in the log).
    pub(crate) async fn platform_slot(
        &self,
        listing: &store::ListingRecord,
        owner: Uuid,
    ) -> Option<GatewaySlot> {
        let lease = StreamLease {
            id: Uuid::now_v7(),
            booking_id: owner,
            listing_id: listing.id,
            machine: crate::engine_origin::engine_key(&listing.engine_base_url),
            // The platform's own streams are never refused a place.
            max_streams: u64::from(u32::MAX),
            expires_at: Utc::now() + self.lease_length(),
        };
        match self.slot(lease).await {
            Ok(slot) => Some(slot),
            Err(NotAdmitted::Unreachable(e)) => {
                tracing::warn!(listing = %listing.id, error = %e, "a platform stream could not be counted in the engine's load");
                None
            }
            Err(NotAdmitted::Taken) => None,
        }
    }

    /// A slot under `lease`, counted across replicas (renewed while it is held).
    pub(crate) async fn slot(&self, lease: StreamLease) -> Result<GatewaySlot, NotAdmitted> {
        let local = self.admit_stream(lease).await?;
        let keeper = local
            .is_none()
            .then(|| tokio::spawn(keep(self.clone(), lease)));
        Ok(GatewaySlot {
            app: self.clone(),
            lease,
            local,
            keeper,
            released: false,
        })
    }
}

/// The streams a verification or spot check has open to an engine, as its progress tells
/// them: one while it checks, prefills or waits between cells, a cell's concurrency while the
/// cell runs.
pub(crate) struct PlatformLoad {
    app: App,
    listing: store::ListingRecord,
    run: Uuid,
    held: Vec<GatewaySlot>,
}

impl PlatformLoad {
    pub(crate) fn new(app: App, listing: store::ListingRecord, run: Uuid) -> Self {
        Self {
            app,
            listing,
            run,
            held: Vec::new(),
        }
    }

    /// Holds `streams` streams from now on.
    pub(crate) async fn hold(&mut self, streams: usize) {
        while self.held.len() > streams {
            if let Some(slot) = self.held.pop() {
                slot.release().await;
            }
        }
        while self.held.len() < streams {
            match self.app.platform_slot(&self.listing, self.run).await {
                Some(slot) => self.held.push(slot),
                None => break,
            }
        }
    }
}

/// While a stream counted for every replica is open: renews its lease a third of the way
/// through each.
async fn keep(app: App, lease: StreamLease) {
    let renew_every = app.lease_length() / 3;
    loop {
        tokio::time::sleep(renew_every).await;
        if let Err(e) = app.renew_stream(lease).await {
            tracing::warn!(error = %e, "a gateway stream's lease was not renewed");
        }
    }
}

impl GatewaySlot {
    /// Closes the stream; the load it was served at.
    pub async fn release(mut self) -> Load {
        self.released = true;
        if let Some(keeper) = self.keeper.take() {
            keeper.abort();
        }
        let gateway = release(&self.app, &self.lease, self.local.take()).await;
        Load { gateway }
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
