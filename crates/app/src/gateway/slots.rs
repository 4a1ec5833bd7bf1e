//! Stream slots: how many streams a booking has open (at most its share of the machine),
//! and how many the machine has open across its bookings — each stream's peak of the
//! latter is the load it was served at. Counted in this process (embedded, one replica).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use uuid::Uuid;

use super::GatewayTarget;
use crate::{App, AppError};

/// The streams open to one machine (listing): each one's peak, the most streams open to the
/// machine at once while it was.
type MachineStreams = Arc<Mutex<HashMap<Uuid, Vec<Arc<AtomicUsize>>>>>;

/// Streams open now, per booking and per machine.
#[derive(Debug, Default)]
pub(crate) struct Slots {
    open: Arc<Mutex<HashMap<Uuid, usize>>>,
    machines: MachineStreams,
}

/// One open stream of a booking; given back when dropped.
#[derive(Debug)]
pub struct GatewaySlot {
    slots: Arc<Mutex<HashMap<Uuid, usize>>>,
    machines: MachineStreams,
    booking: Uuid,
    listing: Uuid,
    peak: Arc<AtomicUsize>,
}

impl GatewaySlot {
    /// The most streams the gateway had open to the machine (any booking's, this one
    /// included) at any moment since this one opened: the load it was served at.
    pub fn load(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }
}

impl Drop for GatewaySlot {
    fn drop(&mut self) {
        let mut open = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.booking) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.booking);
            }
        }
        drop(open);
        let mut machines = self.machines.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(streams) = machines.get_mut(&self.listing) {
            streams.retain(|peak| !Arc::ptr_eq(peak, &self.peak));
            if streams.is_empty() {
                machines.remove(&self.listing);
            }
        }
    }
}

impl App {
    /// A stream slot of the booking, or 429 when its share is taken.
    pub fn gateway_slot(&self, target: &GatewayTarget) -> Result<GatewaySlot, AppError> {
        let slots = &self.inner.gateway.slots;
        {
            let mut open = slots.open.lock().unwrap_or_else(PoisonError::into_inner);
            let n = open.entry(target.booking_id).or_insert(0);
            if *n >= target.max_streams {
                return Err(AppError::RateLimited {
                    what: format!(
                        "the booking's share of the machine is {} stream(s) at once",
                        target.max_streams
                    ),
                    retry_after_secs: 1,
                });
            }
            *n += 1;
        }
        let peak = Arc::new(AtomicUsize::new(0));
        {
            let mut open = slots
                .machines
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let streams = open.entry(target.listing_id).or_default();
            streams.push(Arc::clone(&peak));
            let now_open = streams.len();
            for stream in streams.iter() {
                stream.fetch_max(now_open, Ordering::Relaxed);
            }
        }
        Ok(GatewaySlot {
            slots: Arc::clone(&slots.open),
            machines: Arc::clone(&slots.machines),
            booking: target.booking_id,
            listing: target.listing_id,
            peak,
        })
    }
}
