//! Failed sign-ins back off per (account, network): each failure doubles the wait before the
//! next try, 1 s to 15 min, and a success ends it. The wait is answered (429 with
//! `Retry-After`) before a password is hashed, so guessing costs the guesser time, not the
//! server CPU. A try takes its pair's turn atomically before it is hashed (its wait counts
//! as a first failure's until the outcome is known), so parallel guesses from one network
//! get one hash a second, not one each. The state is shared through Redis when configured (every replica sees one
//! back-off), in memory when embedded; a pair's failures are forgotten after a day without
//! one.

use std::time::{Duration, Instant};

use crate::{App, AppError};

const FIRST_WAIT_MS: u64 = 1000;
const MAX_WAIT_MS: u64 = 15 * 60 * 1000;
/// A pair's failures are forgotten this long after its last.
const MEMORY: Duration = Duration::from_secs(24 * 3600);

/// The wait after the `failures`th failure in a row.
fn wait_after(failures: u32) -> u64 {
    let doublings = failures.saturating_sub(1).min(20);
    (FIRST_WAIT_MS << doublings).min(MAX_WAIT_MS)
}

/// Pair → (failures in a row, no try before).
pub(crate) type LocalBackoff = moka::sync::Cache<String, (u32, Instant)>;

pub(crate) fn local_backoff() -> LocalBackoff {
    moka::sync::Cache::builder()
        .max_capacity(100_000)
        .time_to_live(MEMORY)
        .build()
}

/// `begin`: `{1, ms to wait}`, or `{0, 0}` and the pair waits a first failure's time until
/// the try's outcome; `fail`: counts a failure, `{failures, ms to wait}`; `clear`: forgets
/// the pair. On Redis's clock, so every replica agrees.
const SCRIPT: &str = r"
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local op = ARGV[1]
if op == 'clear' then
  redis.call('DEL', KEYS[1])
  return {0, 0}
end
if op == 'begin' then
  local until_ms = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
  if now < until_ms then return {1, until_ms - now} end
  redis.call('HSET', KEYS[1], 'until', string.format('%d', now + tonumber(ARGV[2])))
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
  return {0, 0}
end
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
local wait = math.min(tonumber(ARGV[2]) * 2 ^ (math.min(n, 21) - 1), tonumber(ARGV[3]))
redis.call('HSET', KEYS[1], 'until', string.format('%d', now + wait))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return {n, wait}
";

impl App {
    async fn backoff_script(&self, pair: &str, op: &str) -> Option<(i64, i64)> {
        let redis = self.redis()?;
        let key = format!("{}:login-backoff:{pair}", self.config().redis.namespace);
        let args = [
            op,
            &FIRST_WAIT_MS.to_string(),
            &MAX_WAIT_MS.to_string(),
            &MEMORY.as_millis().to_string(),
        ];
        match redis.script(SCRIPT, &key, &args).await {
            Ok(answer) => Some(answer),
            Err(e) => {
                // Limits fail open: availability first (`/readyz` reports Redis down).
                tracing::warn!(error = %e, "the shared login back-off is unavailable");
                Some((0, 0))
            }
        }
    }

    /// Takes `pair`'s (an account's and a network's) turn to try a password, or 429 while it
    /// waits after a failed sign-in or another try under way.
    pub(crate) async fn login_backoff_wait(&self, pair: &str) -> Result<(), AppError> {
        let wait_ms = match self.backoff_script(pair, "begin").await {
            Some((_, wait_ms)) => u64::try_from(wait_ms).unwrap_or(0),
            None => {
                let now = Instant::now();
                let mut wait = 0;
                // Looked at and taken in one step, so two tries cannot both pass.
                self.inner
                    .identity
                    .login_backoff
                    .entry(pair.to_owned())
                    .and_upsert_with(|entry| match entry.map(moka::Entry::into_value) {
                        Some((failures, until)) if until > now => {
                            wait = until.duration_since(now).as_millis() as u64;
                            (failures, until)
                        }
                        other => (
                            other.map_or(0, |(failures, _)| failures),
                            now + Duration::from_millis(FIRST_WAIT_MS),
                        ),
                    });
                wait
            }
        };
        if wait_ms == 0 {
            return Ok(());
        }
        Err(AppError::RateLimited {
            what: "this account failed to sign in from your network just now; each failure \
                   doubles the wait (up to 15 minutes) until a success"
                .to_owned(),
            retry_after_secs: wait_ms.div_ceil(1000).max(1),
        })
    }

    /// Counts a failed sign-in of `pair`: its next try waits twice as long as the last.
    pub(crate) async fn login_backoff_failed(&self, pair: &str) {
        if self.backoff_script(pair, "fail").await.is_some() {
            return;
        }
        let backoff = &self.inner.identity.login_backoff;
        let failures = backoff.get(pair).map_or(0, |(n, _)| n) + 1;
        let until = Instant::now() + Duration::from_millis(wait_after(failures));
        backoff.insert(pair.to_owned(), (failures, until));
    }

    /// A success (or a new password) ends `pair`'s back-off.
    pub(crate) async fn login_backoff_clear(&self, pair: &str) {
        if self.backoff_script(pair, "clear").await.is_none() {
            self.inner.identity.login_backoff.invalidate(pair);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failure_doubles_the_wait_up_to_fifteen_minutes() {
        let waits: Vec<u64> = (1..=12).map(wait_after).collect();
        assert_eq!(&waits[..4], &[1000, 2000, 4000, 8000]);
        assert_eq!(waits[9], 512_000);
        assert_eq!(waits[10], MAX_WAIT_MS);
        assert_eq!(wait_after(u32::MAX), MAX_WAIT_MS);
    }
}
