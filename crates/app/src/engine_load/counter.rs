//! Where a gateway stream is counted, for every replica: with Redis in leased sorted sets
//! (one Lua script admits, on Redis's clock, raising every open stream's peak), else on
//! PostgreSQL in leased rows under an advisory lock on the engine; in this process only when
//! embedded on SQLite. Streams are counted per engine ([`crate::engine_origin::engine_key`]): every listing
//! naming the same engine counts together. Each returns, when a stream closes, its peak: the most streams open to the
//! machine at once while it was.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::Utc;
use store::StreamLease;
use uuid::Uuid;

use crate::{App, AppError};

/// Why a stream was not counted in.
#[derive(Debug)]
pub(crate) enum NotAdmitted {
    /// The booking has its share of streams open.
    Taken,
    /// The shared count cannot be reached.
    Unreachable(AppError),
}

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

/// How many streams of a booking are open: KEYS the booking's set.
const OPEN: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {1, redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')}
";

/// Closes a stream; answers {1, its peak}.
const RELEASE: &str = r"
local peak = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '1')
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return {1, peak}
";

impl App {
    pub(crate) fn lease_length(&self) -> Duration {
        Duration::from_secs(self.config().gateway.stream_lease_secs.max(1))
    }

    /// The Redis keys of a booking's streams on a machine: one hash slot per machine.
    fn stream_keys(&self, lease: &StreamLease) -> [String; 3] {
        let ns = &self.config().redis.namespace;
        let machine = lease.machine;
        [
            self.booking_streams_key(machine, lease.booking_id),
            format!("{ns}:gw:{{{machine}}}:open"),
            format!("{ns}:gw:{{{machine}}}:peaks"),
        ]
    }

    /// The Redis key of `booking`'s streams open on `machine`.
    fn booking_streams_key(&self, machine: Uuid, booking: Uuid) -> String {
        let ns = &self.config().redis.namespace;
        format!("{ns}:gw:{{{machine}}}:booking:{booking}")
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

    /// Counts a stream in: its peak when counted in this process (`None` when shared).
    pub(super) async fn admit_stream(
        &self,
        lease: StreamLease,
    ) -> Result<Option<Arc<AtomicUsize>>, NotAdmitted> {
        match &self.inner.engines.counter {
            Counter::Local(slots) => slots.admit(&lease).map(Some).ok_or(NotAdmitted::Taken),
            Counter::Redis => {
                let answer = self
                    .redis_streams(ADMIT, &lease)
                    .await
                    .map_err(NotAdmitted::Unreachable)?;
                match answer.first() {
                    Some(1) => Ok(None),
                    _ => Err(NotAdmitted::Taken),
                }
            }
            Counter::Postgres => match self.db().admit_gateway_stream(lease, Utc::now()).await {
                Ok(Some(_)) => Ok(None),
                Ok(None) => Err(NotAdmitted::Taken),
                Err(e) => Err(NotAdmitted::Unreachable(e.into())),
            },
        }
    }

    /// How many streams `booking` (of `listing`) has open now, wherever they are counted: a
    /// booking with one open is not idle.
    pub(crate) async fn open_streams(
        &self,
        booking: &store::BookingRecord,
        listing: &store::ListingRecord,
    ) -> Result<usize, AppError> {
        match &self.inner.engines.counter {
            Counter::Local(slots) => Ok(slots
                .open
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&booking.id)
                .copied()
                .unwrap_or(0)),
            Counter::Redis => {
                let redis = self
                    .redis()
                    .ok_or_else(|| AppError::Internal("no Redis".into()))?;
                let machine = crate::engine_origin::engine_key(&listing.engine_base_url);
                let key = self.booking_streams_key(machine, booking.id);
                let answer: Vec<i64> = redis.eval(OPEN, &[&key], &[]).await?;
                Ok(answer
                    .get(1)
                    .copied()
                    .and_then(|n| usize::try_from(n).ok())
                    .unwrap_or(0))
            }
            Counter::Postgres => Ok(usize::try_from(
                self.db()
                    .open_gateway_streams(booking.id, Utc::now())
                    .await?,
            )
            .unwrap_or(usize::MAX)),
        }
    }

    /// Extends a shared stream's lease.
    pub(super) async fn renew_stream(&self, lease: StreamLease) -> Result<(), AppError> {
        let lease = StreamLease {
            expires_at: Utc::now() + self.lease_length(),
            ..lease
        };
        match self.inner.engines.counter {
            Counter::Redis => self.redis_streams(RENEW, &lease).await.map(|_| ()),
            _ => self
                .db()
                .renew_gateway_stream(lease)
                .await
                .map_err(Into::into),
        }
    }
}

/// Gives a stream back; its peak.
pub(super) async fn release(
    app: &App,
    lease: &StreamLease,
    local: Option<Arc<AtomicUsize>>,
) -> usize {
    let peak = match (&app.inner.engines.counter, local) {
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
        let streams = machines.entry(lease.machine).or_default();
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
        if let Some(streams) = machines.get_mut(&lease.machine) {
            streams.retain(|p| !Arc::ptr_eq(p, peak));
            if streams.is_empty() {
                machines.remove(&lease.machine);
            }
        }
        peak.load(Ordering::Relaxed).max(1)
    }
}
