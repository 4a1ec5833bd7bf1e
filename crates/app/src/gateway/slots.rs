//! Stream slots: how many streams a booking has open (at most its share of the machine),
//! and how many the machine has open across its bookings — each stream's peak of the
//! latter is the load it was served at. Counted once for every replica: with Redis in
//! leased sorted sets (one Lua script admits, on Redis's clock), else on PostgreSQL in
//! leased rows; in this process only when embedded on SQLite. A replica that crashes leaves
//! leases that expire within `gateway_stream_lease_secs`; one that cannot reach the shared
//! count admits nothing (503), never a stream uncounted.
//!
//! A booking with direct access to the machine (SSH or an HTTPS URL) can load the engine
//! around the gateway: its streams also sample the engine's own `num_requests_running`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::Utc;
use store::StreamLease;
use uuid::Uuid;

use super::GatewayTarget;
use crate::{App, AppError};

/// Where streams are counted.
#[derive(Debug)]
pub(crate) enum Counter {
    Local(LocalSlots),
    Redis,
    Postgres,
}

/// Streams open in this process, per booking and per machine (embedded).
#[derive(Debug, Default)]
pub(crate) struct LocalSlots {
    open: Mutex<HashMap<Uuid, usize>>,
    machines: Mutex<HashMap<Uuid, Vec<Arc<AtomicUsize>>>>,
}

/// Admits a stream: KEYS booking set, machine set, peaks hash; ARGV stream id, the booking's
/// share, lease ms. Answers {admitted, streams open to the machine}.
const ADMIT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
if #gone > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  redis.call('HDEL', KEYS[3], unpack(gone))
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return {0, redis.call('ZCARD', KEYS[2])}
end
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('ZADD', KEYS[2], now + lease, ARGV[1])
local open = redis.call('ZCARD', KEYS[2])
for _, stream in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if tonumber(redis.call('HGET', KEYS[3], stream) or '0') < open then
    redis.call('HSET', KEYS[3], stream, open)
  end
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], lease * 6) end
return {1, open}
";

/// Renews a stream's lease (adding it back if it had expired: it is still open).
const RENEW: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('ZADD', KEYS[2], now + lease, ARGV[1])
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 0 then redis.call('HSET', KEYS[3], ARGV[1], 1) end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], lease * 6) end
return {1, 0}
";

/// Closes a stream; answers {1, its peak}.
const RELEASE: &str = r"
local peak = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '1')
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return {1, peak}
";

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
    fn lease_length(&self) -> Duration {
        Duration::from_secs(self.config().gateway_stream_lease_secs.max(1))
    }

    /// The Redis keys of a booking's streams on a machine: one hash slot per machine.
    fn stream_keys(&self, lease: &StreamLease) -> [String; 3] {
        let ns = &self.config().redis_namespace;
        let machine = lease.listing_id;
        [
            format!("{ns}:gw:{{{machine}}}:booking:{}", lease.booking_id),
            format!("{ns}:gw:{{{machine}}}:open"),
            format!("{ns}:gw:{{{machine}}}:peaks"),
        ]
    }

    async fn redis_streams(&self, script: &str, lease: &StreamLease) -> Result<Vec<i64>, AppError> {
        let redis = self
            .redis()
            .ok_or_else(|| AppError::Internal("no Redis".into()))?;
        let keys = self.stream_keys(lease);
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let lease_ms = self.lease_length().as_millis().to_string();
        let id = lease.id.to_string();
        let share = lease.max_streams.to_string();
        let args: Vec<&str> = if script == ADMIT {
            vec![&id, &share, &lease_ms]
        } else {
            vec![&id, &lease_ms]
        };
        Ok(redis.eval(script, &keys, &args).await?)
    }

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
        let unavailable = |e: AppError| {
            tracing::warn!(error = %e, "the gateway's shared stream count is unavailable");
            AppError::Unavailable(
                "the gateway cannot count streams right now; try again shortly".into(),
            )
        };
        let taken = || AppError::RateLimited {
            what: format!(
                "the booking's share of the machine is {} stream(s) at once",
                target.max_streams
            ),
            retry_after_secs: 1,
        };
        let mut local = None;
        match &self.inner.gateway.counter {
            Counter::Local(slots) => local = Some(slots.admit(&lease).ok_or_else(taken)?),
            Counter::Redis => {
                let answer = self
                    .redis_streams(ADMIT, &lease)
                    .await
                    .map_err(unavailable)?;
                if answer.first() != Some(&1) {
                    return Err(taken());
                }
            }
            Counter::Postgres => {
                self.db()
                    .admit_gateway_stream(lease, Utc::now())
                    .await
                    .map_err(|e| unavailable(e.into()))?
                    .ok_or_else(taken)?;
            }
        }
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
            let lease = StreamLease {
                expires_at: Utc::now() + app.lease_length(),
                ..lease
            };
            let renewal = match app.inner.gateway.counter {
                Counter::Redis => app.redis_streams(RENEW, &lease).await.map(|_| ()),
                _ => app
                    .db()
                    .renew_gateway_stream(lease)
                    .await
                    .map_err(Into::into),
            };
            if let Err(e) = renewal {
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
        let url =
            outbound::engine_url(&target.engine_base_url, "/metrics", self.engine_policy()).ok()?;
        let mut request = self
            .gateway_client()
            .get(url)
            .timeout(Duration::from_secs(2));
        if let Some(key) = &target.engine_api_key {
            request = request.bearer_auth(key);
        }
        let mut response = request.send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        let body = bench::bounds::read_body(&mut response, bench::bounds::METRICS_BODY)
            .await
            .ok()?
            .ok()?;
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

/// Gives a stream back; its peak.
async fn release(app: &App, lease: &StreamLease, local: Option<Arc<AtomicUsize>>) -> usize {
    let peak = match (&app.inner.gateway.counter, local) {
        (Counter::Local(slots), Some(peak)) => Ok(slots.release(lease, &peak)),
        (Counter::Redis, _) => app
            .redis_streams(RELEASE, lease)
            .await
            .map(|answer| answer.get(1).copied().unwrap_or(1).max(1) as usize),
        (_, _) => app
            .db()
            .release_gateway_stream(lease.id)
            .await
            .map(|peak| peak.unwrap_or(1) as usize)
            .map_err(Into::into),
    };
    peak.unwrap_or_else(|e| {
        // Its lease runs out instead.
        tracing::warn!(error = %e, "a gateway stream was not given back");
        1
    })
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

impl LocalSlots {
    /// Counts a stream in; its peak, or `None` when the booking's share is taken.
    fn admit(&self, lease: &StreamLease) -> Option<Arc<AtomicUsize>> {
        {
            let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
            let n = open.entry(lease.booking_id).or_insert(0);
            if *n as u64 >= lease.max_streams {
                return None;
            }
            *n += 1;
        }
        let peak = Arc::new(AtomicUsize::new(0));
        let mut machines = self.machines.lock().unwrap_or_else(PoisonError::into_inner);
        let streams = machines.entry(lease.listing_id).or_default();
        streams.push(Arc::clone(&peak));
        let now_open = streams.len();
        for stream in streams.iter() {
            stream.fetch_max(now_open, Ordering::Relaxed);
        }
        Some(peak)
    }

    /// Counts a stream out; its peak.
    fn release(&self, lease: &StreamLease, peak: &Arc<AtomicUsize>) -> usize {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&lease.booking_id) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&lease.booking_id);
            }
        }
        drop(open);
        let mut machines = self.machines.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(streams) = machines.get_mut(&lease.listing_id) {
            streams.retain(|p| !Arc::ptr_eq(p, peak));
            if streams.is_empty() {
                machines.remove(&lease.listing_id);
            }
        }
        peak.load(Ordering::Relaxed).max(1)
    }
}
