//! Limits that keep one client from taking what others need: request rates by class (GCRA,
//! in memory or shared through Redis), failed logins, and live event streams per client
//! address and per process. (Quotas on runs and pending bookings live with their use cases.)

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::{App, AppError};

/// The budget subject of a request carrying `bearer`: a digest of the credential (valid or
/// not — a forged one spends its own budget and is refused anyway), never the credential.
pub fn credential_subject(bearer: &str) -> String {
    let digest = crate::secrets::digest(bearer);
    format!("key:{}", &digest[..32.min(digest.len())])
}

/// What a request is, for its rate limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RateClass {
    /// Register, login, refresh, logout: by client address.
    Auth,
    /// Creating, changing, deleting.
    Writes,
    /// Reading.
    Reads,
    /// `GET /v1/listings`.
    Search,
    /// Opening a live event stream.
    Events,
    /// A booking's gateway (`/v1/gateway/…`).
    Gateway,
    /// Failed logins from one network, whatever the account.
    FailedLoginsPerAddress,
    /// Failed logins of one account, from every network together (an hour's window).
    FailedLoginsPerAccount,
    /// Confirmation mail to one address (an hour's window).
    MailsPerAddress,
    /// Password-reset mail to one address, which anyone may ask for (an hour's window).
    ResetMailsPerAddress,
}

impl RateClass {
    /// Every class.
    pub const ALL: [Self; 10] = [
        Self::Auth,
        Self::Writes,
        Self::Reads,
        Self::Search,
        Self::Events,
        Self::Gateway,
        Self::FailedLoginsPerAddress,
        Self::FailedLoginsPerAccount,
        Self::MailsPerAddress,
        Self::ResetMailsPerAddress,
    ];

    /// The class of a name ([`RateClass::name`]).
    pub fn of_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|class| class.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Auth => "auth",
            Self::Writes => "writes",
            Self::Reads => "reads",
            Self::Search => "search",
            Self::Events => "events",
            Self::Gateway => "gateway",
            Self::FailedLoginsPerAddress => "failed_logins_per_address",
            Self::FailedLoginsPerAccount => "failed_logins_per_account",
            Self::MailsPerAddress => "mails_per_address",
            Self::ResetMailsPerAddress => "reset_mails_per_address",
        }
    }

    /// The window its limit counts over, seconds.
    pub fn window_secs(self) -> u32 {
        match self {
            Self::FailedLoginsPerAccount | Self::MailsPerAddress | Self::ResetMailsPerAddress => {
                3600
            }
            _ => 60,
        }
    }
}

/// The state of a subject's budget after a request: what the `RateLimit` headers say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateState {
    pub class: RateClass,
    /// Requests per window.
    pub limit: u32,
    /// Window, seconds.
    pub window: u32,
    pub remaining: u32,
    /// Seconds until the budget is whole again.
    pub reset: u64,
}

/// GCRA (the generic cell rate algorithm): `limit` requests per `window`, bursts up to
/// `limit`. `tat` is the theoretical arrival time, in milliseconds on a monotonic clock.
/// Returns the new `tat` when allowed, or how long to wait.
fn gcra(tat: Option<f64>, now: f64, limit: u32, window_ms: f64, consume: bool) -> Result<f64, f64> {
    let interval = window_ms / f64::from(limit.max(1));
    let tolerance = window_ms - interval;
    let tat = tat.unwrap_or(now).max(now);
    let allow_at = tat - tolerance;
    if now < allow_at {
        return Err(allow_at - now);
    }
    Ok(if consume { tat + interval } else { tat })
}

/// Rate budgets kept in this process.
#[derive(Debug)]
pub(crate) struct LocalBudgets {
    epoch: Instant,
    tats: Mutex<HashMap<String, f64>>,
}

impl Default for LocalBudgets {
    fn default() -> Self {
        Self {
            epoch: Instant::now(),
            tats: Mutex::new(HashMap::new()),
        }
    }
}

impl LocalBudgets {
    fn check(&self, key: &str, limit: u32, window_ms: f64, consume: bool) -> Result<f64, f64> {
        let now = self.epoch.elapsed().as_secs_f64() * 1000.0;
        let mut tats = self.tats.lock().unwrap_or_else(|e| e.into_inner());
        if tats.len() > 100_000 {
            // Budgets whole again carry no information.
            tats.retain(|_, tat| *tat > now);
        }
        let new = gcra(tats.get(key).copied(), now, limit, window_ms, consume)?;
        tats.insert(key.to_owned(), new);
        Ok(new - now)
    }
}

/// The same GCRA in Redis, on Redis's clock, so every replica spends one budget. Returns
/// `{allowed (1/0), ms until whole again or until allowed}`.
const GCRA_SCRIPT: &str = r"
local now_parts = redis.call('TIME')
local now = now_parts[1] * 1000 + now_parts[2] / 1000
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local consume = ARGV[3] == '1'
local interval = window / limit
local tolerance = window - interval
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local allow_at = tat - tolerance
if now < allow_at then
  return {0, math.ceil(allow_at - now)}
end
if consume then
  tat = tat + interval
  redis.call('SET', KEYS[1], tostring(tat), 'PX', math.ceil(tat - now) + 1000)
end
return {1, math.ceil(tat - now)}
";

impl App {
    /// The limit of `class` per its window (a minute, or an hour for the account-wide cap
    /// on failed logins), from the configuration.
    pub fn per_minute(&self, class: RateClass) -> u32 {
        let c = self.config();
        match class {
            RateClass::Auth => c.limits.rate_limit_auth_per_minute,
            RateClass::Writes => c.limits.rate_limit_writes_per_minute,
            RateClass::Reads => c.limits.rate_limit_reads_per_minute,
            RateClass::Search => c.limits.rate_limit_search_per_minute,
            RateClass::Events => c.limits.rate_limit_events_per_minute,
            RateClass::Gateway => c.limits.rate_limit_gateway_per_minute,
            RateClass::FailedLoginsPerAddress => c.limits.failed_logins_per_address_per_minute,
            RateClass::FailedLoginsPerAccount => c.limits.login_failures_per_account_per_hour,
            RateClass::MailsPerAddress => c.mail.mails_per_address_per_hour,
            RateClass::ResetMailsPerAddress => c.mail.reset_mails_per_address_per_hour,
        }
    }

    /// The requests a minute `class` allows at `scale` times its limit, as enforced: `None`
    /// when limits are off or the class's limit is 0 (unlimited).
    pub fn enforced_per_minute(&self, class: RateClass, scale: u32) -> Option<u32> {
        let limit = self.per_minute(class).saturating_mul(scale.max(1));
        (self.config().limits.rate_limits && limit > 0).then_some(limit)
    }

    /// Spends one request of `subject`'s budget in `class` (`consume`), or only looks
    /// whether one is left. With Redis every replica shares the budget; when Redis does not
    /// answer, the request is let through (limits fail open: availability first, and
    /// `/readyz` reports Redis down).
    pub async fn rate(
        &self,
        class: RateClass,
        subject: &str,
        consume: bool,
    ) -> Result<RateState, AppError> {
        self.rate_scaled(class, subject, consume, 1).await
    }

    /// [`App::rate`] with `scale` times the class's limit: the ceiling a client address has
    /// across all the credentials it presents (so inventing credentials buys no budget).
    pub async fn rate_scaled(
        &self,
        class: RateClass,
        subject: &str,
        consume: bool,
        scale: u32,
    ) -> Result<RateState, AppError> {
        let limit = self.per_minute(class).saturating_mul(scale.max(1));
        let window = class.window_secs();
        let window_ms = f64::from(window) * 1000.0;
        let state = |ms_to_whole: f64| {
            let interval = window_ms / f64::from(limit.max(1));
            let used = (ms_to_whole / interval).ceil() as u32;
            RateState {
                class,
                limit,
                window,
                remaining: limit.saturating_sub(used),
                reset: (ms_to_whole / 1000.0).ceil() as u64,
            }
        };
        if self.enforced_per_minute(class, scale).is_none() {
            return Ok(state(0.0));
        }
        let key = format!("{}:{scale}:{subject}", class.name());
        let verdict = match self.redis() {
            Some(redis) => match redis
                .script(
                    GCRA_SCRIPT,
                    &format!("{}:rate:{key}", self.config().redis.namespace),
                    &[
                        &limit.to_string(),
                        &(u64::from(window) * 1000).to_string(),
                        if consume { "1" } else { "0" },
                    ],
                )
                .await
            {
                Ok((1, ms)) => Ok(ms as f64),
                Ok((_, wait)) => Err(wait as f64),
                Err(e) => {
                    tracing::warn!(error = %e, "the shared rate limit is unavailable; letting the request through");
                    Ok(0.0)
                }
            },
            None => self.inner.budgets.check(&key, limit, window_ms, consume),
        };
        match verdict {
            Ok(ms_to_whole) => Ok(state(ms_to_whole)),
            Err(wait_ms) => Err(AppError::RateLimited {
                what: format!(
                    "more than {limit} {} requests {}; slow down",
                    class.name().replace('_', " "),
                    if window == 60 { "a minute" } else { "an hour" }
                ),
                retry_after_secs: (wait_ms / 1000.0).ceil().max(1.0) as u64,
            }),
        }
    }
}

/// `trusted_proxies` as configured: addresses or CIDR ranges, comma-separated.
pub(crate) fn parse_proxies(raw: &str) -> Result<Vec<ipnet::IpNet>, String> {
    raw.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<ipnet::IpNet>()
                .or_else(|_| s.parse::<IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| format!("trusted_proxies: {s:?} is not an address or a CIDR range"))
        })
        .collect()
}

/// The network an address counts as: an IPv4 address itself (also written as IPv6), an
/// IPv6 address's `/prefix_len` — one subscriber commonly holds a whole /64, 2^64 addresses.
pub(crate) fn network_of(ip: IpAddr, ipv6_prefix_len: u8) -> ipnet::IpNet {
    match ip.to_canonical() {
        IpAddr::V4(v4) => ipnet::Ipv4Net::from(v4).into(),
        IpAddr::V6(v6) => ipnet::Ipv6Net::new(v6, ipv6_prefix_len.min(128))
            .map_or_else(|_| ipnet::Ipv6Net::from(v6), |net| net.trunc())
            .into(),
    }
}

/// The client behind `peer`: the peer itself unless it is a trusted proxy; then the
/// right-most `X-Forwarded-For` entry that is not one (entries further left could be forged
/// by the client).
pub(crate) fn client_address(
    trusted: &[ipnet::IpNet],
    peer: IpAddr,
    forwarded_for: Option<&str>,
) -> IpAddr {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    forwarded_for
        .into_iter()
        .flat_map(|header| header.rsplit(','))
        .filter_map(|entry| entry.trim().parse::<IpAddr>().ok())
        .find(|ip| !is_trusted(ip))
        .unwrap_or(peer)
}

/// Live event streams open now, per client network and in all.
#[derive(Debug, Default)]
pub(crate) struct StreamSlots {
    open: Mutex<(HashMap<ipnet::IpNet, usize>, usize)>,
}

/// One open stream's place; given back when dropped (the client went away, or the stream
/// ended).
#[derive(Debug)]
pub struct StreamSlot {
    slots: Arc<StreamSlots>,
    client: ipnet::IpNet,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|e| e.into_inner());
        let (per_client, total) = &mut *open;
        if let Some(n) = per_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                per_client.remove(&self.client);
            }
        }
        *total = total.saturating_sub(1);
    }
}

impl StreamSlots {
    /// A place for one more stream of `client`, within `per_client` and `total`.
    pub(crate) fn take(
        self: &Arc<Self>,
        client: ipnet::IpNet,
        per_client: usize,
        total: usize,
    ) -> Result<StreamSlot, AppError> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let (by_client, all) = &mut *open;
        let mine = by_client.get(&client).copied().unwrap_or(0);
        if mine >= per_client {
            return Err(AppError::RateLimited {
                what: format!(
                    "{mine} live event streams are open from this network (event_streams_per_client)"
                ),
                retry_after_secs: 5,
            });
        }
        if *all >= total {
            return Err(AppError::RateLimited {
                what: "this server has as many live event streams open as it takes \
                       (event_streams_total)"
                    .to_owned(),
                retry_after_secs: 5,
            });
        }
        *by_client.entry(client).or_default() += 1;
        *all += 1;
        Ok(StreamSlot {
            slots: Arc::clone(self),
            client,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcra_allows_a_burst_then_one_per_interval() {
        // 3 a minute: three at once, then one every 20 s.
        let mut tat = None;
        for _ in 0..3 {
            tat = Some(gcra(tat, 0.0, 3, 60_000.0, true).unwrap());
        }
        let wait = gcra(tat, 0.0, 3, 60_000.0, true).unwrap_err();
        assert!((wait - 20_000.0).abs() < 1e-6, "{wait}");
        assert!(gcra(tat, 20_000.0, 3, 60_000.0, true).is_ok());
        // Looking does not spend.
        assert_eq!(gcra(Some(5.0), 10.0, 3, 60_000.0, false), Ok(10.0));
        let local = LocalBudgets::default();
        assert!(local.check("k", 1, 60_000.0, true).is_ok());
        assert!(local.check("k", 1, 60_000.0, true).is_err());
        assert!(local.check("other", 1, 60_000.0, true).is_ok());
    }

    #[test]
    fn forwarded_for_counts_only_from_trusted_proxies() {
        let trusted = parse_proxies("10.0.0.0/8, 192.168.1.1").unwrap();
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        // Not from a proxy: the header is whatever the client wrote.
        assert_eq!(
            client_address(&trusted, ip("8.8.8.8"), Some("1.2.3.4")),
            ip("8.8.8.8")
        );
        // Through two trusted proxies: the right-most untrusted entry.
        assert_eq!(
            client_address(
                &trusted,
                ip("10.1.1.1"),
                Some("6.6.6.6, 5.5.5.5, 192.168.1.1")
            ),
            ip("5.5.5.5")
        );
        assert_eq!(
            client_address(&trusted, ip("10.1.1.1"), None),
            ip("10.1.1.1")
        );
        assert!(parse_proxies("nonsense").is_err());
        // IPv6 counts by network; IPv4, also written as IPv6, by address.
        assert_eq!(
            network_of(ip("2001:db8:1:2:aaaa::1"), 64),
            network_of(ip("2001:db8:1:2:ffff::9"), 64)
        );
        assert_eq!(
            network_of(ip("2001:db8:1:2:aaaa::1"), 64).to_string(),
            "2001:db8:1:2::/64"
        );
        assert_ne!(
            network_of(ip("2001:db8:1:2::1"), 64),
            network_of(ip("2001:db8:1:3::1"), 64)
        );
        assert_eq!(
            network_of(ip("::ffff:192.0.2.7"), 64).to_string(),
            "192.0.2.7/32"
        );
        assert_ne!(
            network_of(ip("192.0.2.7"), 64),
            network_of(ip("192.0.2.8"), 64)
        );
        assert_eq!(
            network_of(ip("2001:db8::1"), 128).to_string(),
            "2001:db8::1/128"
        );
        assert!(parse_proxies("").unwrap().is_empty());
    }

    #[test]
    fn slots_are_capped_per_client_and_in_all_and_given_back() {
        let slots = Arc::new(StreamSlots::default());
        let a = network_of("10.0.0.1".parse().unwrap(), 64);
        let b = network_of("10.0.0.2".parse().unwrap(), 64);
        let first = slots.take(a, 2, 3).unwrap();
        let _second = slots.take(a, 2, 3).unwrap();
        assert!(matches!(
            slots.take(a, 2, 3),
            Err(AppError::RateLimited { .. })
        ));
        let _third = slots.take(b, 2, 3).unwrap();
        assert!(slots.take(b, 2, 3).is_err(), "the process is full");
        drop(first);
        assert!(
            slots.take(a, 2, 3).is_ok(),
            "a closed stream gives its place back"
        );
    }
}
