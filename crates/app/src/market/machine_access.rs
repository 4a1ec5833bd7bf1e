//! What the provider's agent must grant on its machine, and what it says it did. The agent
//! asks for its listing's *desired state* — the bookings to provision now and in the next
//! minutes, each with its renter's SSH public keys and the one moment its access ends — by a
//! long-poll that answers at once when the state's `version` changes (woken through the
//! pub/sub the event streams use; every few seconds it looks again, so a lost wake-up only
//! delays). Its heartbeats keep a last-seen time in Redis or the process, and reach the
//! database only when what it says changes, or once a minute.
//!
//! The state also names the runs whose GPU samples the agent is to upload
//! (`telemetry_wanted`, `trust::energy`).
//!
//! An agent's key reads its own listings' desired state and nothing else of a renter than the
//! public keys it must install.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::time::Duration;

use chrono::{DateTime, Utc};
use domain::agent::booking_account;
use serde::Serialize;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::{App, AppError, Caller};

/// How far ahead the desired state looks: bookings starting within it are provisioned.
pub const LOOKAHEAD_SECS: i64 = 600;
/// The longest a long-poll waits.
pub const MAX_WAIT_SECS: u64 = 30;
/// While a long-poll waits, it looks again this often whatever wakes it.
const RECHECK: Duration = Duration::from_secs(5);

/// One booking the machine is to serve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DesiredBooking {
    pub booking_id: Uuid,
    /// The booking's Unix account (`gm-` + 12 hex) when it rents the whole machine with
    /// direct access; `None`: it reaches the machine through the gateway only.
    pub account: Option<String>,
    pub gpu_count: i32,
    /// When access begins (its start, or the end of a maintenance window over it).
    pub starts_at: DateTime<Utc>,
    /// The one moment access ends: the booking's end, or a maintenance window's start. A
    /// cancellation removes the booking from the state.
    pub access_until: DateTime<Utc>,
    /// The renter's SSH public keys (`algorithm base64`), for an account or an entry account
    /// only.
    pub ssh_keys: Vec<String>,
    /// The container to run on the booking's GPUs (then it gets no account), with the limits
    /// fixed when it was booked.
    pub container: Option<domain::container::KeptContainer>,
    /// A container booking's entry account when it has direct access: every SSH login to it
    /// is forced into the container. A field of its own, so an agent from before it (which
    /// would make `account` a shell on the machine) ignores it.
    pub entry_account: Option<String>,
}

/// The whole desired state of a listing's machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesiredState {
    pub listing_id: Uuid,
    /// Changes whenever anything below does.
    pub version: String,
    pub bookings: Vec<DesiredBooking>,
    /// The runs whose GPU samples the agent is asked to upload (each asked only once the
    /// run has measured).
    pub telemetry_wanted: Vec<crate::trust::energy::TelemetryWanted>,
    /// The containers' logs renters asked for, which the agent is to answer.
    pub logs_wanted: Vec<crate::market::container_logs::LogsWanted>,
}

/// When a booking of `[starts_at, ends_at)` gives access, cut by its machine's maintenance
/// `windows` (`[start, end)` each): from its start — or the end of a window over it — to its
/// end or the next window's start. `None` when no access is left after `now`.
fn access_interval(
    (starts_at, ends_at): (DateTime<Utc>, DateTime<Utc>),
    windows: &[(DateTime<Utc>, DateTime<Utc>)],
    now: DateTime<Utc>,
) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let mut windows: Vec<_> = windows.iter().filter(|(_, end)| *end > now).collect();
    windows.sort();
    let mut from = starts_at;
    for (start, end) in &windows {
        if *start <= from.max(now) && from.max(now) < *end {
            from = *end;
        }
    }
    let until = windows
        .iter()
        .map(|(start, _)| *start)
        .filter(|start| *start > from)
        .fold(ends_at, DateTime::min);
    (from < until && now < until).then_some((from, until))
}

impl App {
    /// The desired state of `listing_id`'s machine, once its `version` differs from `known`
    /// or `wait` has passed (at most [`MAX_WAIT_SECS`]). Only the listing's agent asks.
    pub async fn agent_desired(
        &self,
        caller: Caller,
        listing_id: Uuid,
        known: Option<&str>,
        wait: Duration,
    ) -> Result<DesiredState, AppError> {
        self.require_agent_key(caller, listing_id).await?;
        let deadline = tokio::time::Instant::now() + wait.min(Duration::from_secs(MAX_WAIT_SECS));
        // Subscribed before the first look, so a change between the two still wakes it.
        let mut wakes = self.notifier().subscribe(listing_id).await;
        loop {
            let state = self.desired_state(listing_id).await?;
            let now = tokio::time::Instant::now();
            if known != Some(state.version.as_str()) || now >= deadline {
                return Ok(state);
            }
            wakes.wait(RECHECK.min(deadline - now)).await;
        }
    }

    /// The desired state as it stands.
    async fn desired_state(&self, listing_id: Uuid) -> Result<DesiredState, AppError> {
        let listing = self.listing_record(listing_id).await?;
        let now = Utc::now();
        let bookings = self
            .db()
            .bookings_with_access(
                listing_id,
                now,
                now + chrono::Duration::seconds(LOOKAHEAD_SECS),
            )
            .await?;
        let windows: Vec<_> = self
            .db()
            .maintenance_windows(listing_id, now)
            .await?
            .into_iter()
            .map(|w| (w.starts_at, w.ends_at))
            .collect();
        let mut keys: HashMap<Uuid, Vec<String>> = HashMap::new();
        let mut desired = Vec::new();
        for booking in bookings {
            let Some((starts_at, access_until)) =
                access_interval((booking.starts_at, booking.ends_at), &windows, now)
            else {
                continue;
            };
            let container = crate::records::stored_container(booking.container.as_deref());
            // A container holds its booking's GPUs; a whole-machine booking without one gets
            // an account.
            let whole = booking.gpu_count >= listing.gpu_count
                && booking.direct_access
                && container.is_none();
            // A container booking with direct access is entered over SSH, whatever its share.
            let entry = booking.direct_access && container.is_some();
            let ssh_keys = match (whole || entry, keys.entry(booking.renter_id)) {
                (false, _) => Vec::new(),
                (true, Entry::Occupied(known)) => known.get().clone(),
                (true, Entry::Vacant(slot)) => {
                    let theirs = self.db().ssh_keys_of(booking.renter_id).await?;
                    slot.insert(theirs.into_iter().map(|k| k.public_key).collect())
                        .clone()
                }
            };
            desired.push(DesiredBooking {
                booking_id: booking.id,
                account: whole.then(|| booking_account(booking.id)),
                gpu_count: booking.gpu_count,
                starts_at,
                access_until,
                ssh_keys,
                container,
                entry_account: entry.then(|| booking_account(booking.id)),
            });
        }
        let telemetry_wanted = self.telemetry_wanted(listing_id).await?;
        let logs_wanted = self.logs_wanted(listing_id).await?;
        let canonical = serde_json::to_vec(&(&desired, &telemetry_wanted, &logs_wanted))
            .map_err(|e| AppError::Internal(e.to_string()))?;
        Ok(DesiredState {
            listing_id,
            version: hex::encode(&Sha256::digest(&canonical)[..8]),
            bookings: desired,
            telemetry_wanted,
            logs_wanted,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(minute: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + minute * 60, 0).unwrap()
    }

    #[test]
    fn maintenance_windows_cut_a_booking_s_access() {
        let booking = (at(10), at(70));
        let window = |from, to| (at(from), at(to));
        assert_eq!(access_interval(booking, &[], at(0)), Some((at(10), at(70))));
        // A window in the middle ends access at its start; once it is over, access resumes.
        assert_eq!(
            access_interval(booking, &[window(30, 40)], at(0)),
            Some((at(10), at(30)))
        );
        assert_eq!(
            access_interval(booking, &[window(30, 40)], at(35)),
            Some((at(40), at(70)))
        );
        assert_eq!(
            access_interval(booking, &[window(30, 40)], at(45)),
            Some((at(10), at(70)))
        );
        // Windows over the start, one after the other, move it past both.
        assert_eq!(
            access_interval(booking, &[window(15, 25), window(5, 15)], at(0)),
            Some((at(25), at(70)))
        );
        // A window over the whole of it, or its end passed: nothing.
        assert_eq!(access_interval(booking, &[window(0, 80)], at(0)), None);
        assert_eq!(access_interval(booking, &[], at(70)), None);
    }
}
