//! The machine's desired state as the server answers it
//! (`GET /v1/listings/{id}/agent/desired`), checked before anything is done by it: the agent
//! runs as root, so an account name or a key that is not exactly what it must be is refused,
//! whoever sent it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The most bookings one answer may name.
pub const MAX_BOOKINGS: usize = 1024;
/// The most keys one booking may carry (an account keeps at most 10).
const MAX_KEYS: usize = 16;
/// The longest public key line (RSA 16384 bits is about 2.8 kB of base64).
const MAX_KEY_LEN: usize = 4096;

/// One booking the machine serves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesiredBooking {
    pub booking_id: String,
    /// Its Unix account; `None`: the gateway only.
    pub account: Option<String>,
    pub gpu_count: i32,
    pub starts_at: DateTime<Utc>,
    pub access_until: DateTime<Utc>,
    #[serde(default)]
    pub ssh_keys: Vec<String>,
    /// The container to run on the booking's GPUs (absent from servers before containers).
    #[serde(default)]
    pub container: Option<domain::container::KeptContainer>,
    /// A container booking's entry account: every login to it is forced into the container
    /// (absent from servers before SSH into containers).
    #[serde(default)]
    pub entry_account: Option<String>,
}

impl DesiredBooking {
    /// The account the booking's renter logs in as, and whether it enters the container:
    /// its own account on the whole machine, or its container's entry account.
    pub fn login(&self) -> Option<(&str, bool)> {
        match (&self.account, &self.entry_account) {
            (Some(account), _) => Some((account, false)),
            (None, Some(entry)) => Some((entry, true)),
            (None, None) => None,
        }
    }
}

/// A run whose GPU samples the server asks for (only once the run has measured).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WantedTelemetry {
    pub run_id: String,
    /// The window, by the server's clock.
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

/// The most runs one answer may ask samples for (and logs requests it may carry).
const MAX_WANTED: usize = 64;

/// A container's logs a renter asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WantedLogs {
    pub request_id: String,
    pub booking_id: String,
    /// The last lines to send (1 to 5000).
    pub tail: u32,
}

/// The whole desired state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Desired {
    pub listing_id: String,
    pub version: String,
    pub bookings: Vec<DesiredBooking>,
    /// Absent from servers before energy per token.
    #[serde(default)]
    pub telemetry_wanted: Vec<WantedTelemetry>,
    /// Absent from servers before containers.
    #[serde(default)]
    pub logs_wanted: Vec<WantedLogs>,
}

/// Whether `name` is a booking's account: `gm-` and 12 lower-case hex digits.
pub fn valid_account(name: &str) -> bool {
    name.strip_prefix("gm-").is_some_and(|hex| {
        hex.len() == 12 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// Whether `key` is one public key line as the server keeps them (`algorithm base64`): an
/// algorithm name and base64, nothing that could carry options or a second line.
pub fn valid_public_key(key: &str) -> bool {
    let Some((algorithm, data)) = key.split_once(' ') else {
        return false;
    };
    key.len() <= MAX_KEY_LEN
        && !algorithm.is_empty()
        && algorithm
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-@.".contains(&b))
        && !data.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
}

/// Whether `id` is a UUID as text (hex and hyphens, 36 characters).
fn valid_id(id: &str) -> bool {
    id.len() == 36 && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

impl Desired {
    /// Checks an answer: every account named as the booking it belongs to, every key a key.
    pub fn check(&self) -> Result<(), String> {
        if self.bookings.len() > MAX_BOOKINGS {
            return Err(format!("more than {MAX_BOOKINGS} bookings"));
        }
        for booking in &self.bookings {
            if !valid_id(&booking.booking_id) {
                return Err("a booking id that is not one".into());
            }
            let hex: String = booking.booking_id.chars().filter(|c| *c != '-').collect();
            for account in [&booking.account, &booking.entry_account]
                .into_iter()
                .flatten()
            {
                if !valid_account(account) || !hex.ends_with(&account[3..]) {
                    return Err(format!(
                        "booking {}: an account that is not its own",
                        booking.booking_id
                    ));
                }
            }
            if booking.entry_account.is_some()
                && (booking.container.is_none() || booking.account.is_some())
            {
                return Err(format!(
                    "booking {}: an entry account without a container, or beside an account",
                    booking.booking_id
                ));
            }
            if let Some(container) = &booking.container {
                container.check().map_err(|e| {
                    format!(
                        "booking {}: a container that is not one ({}: {})",
                        booking.booking_id, e.field, e.message
                    )
                })?;
            }
            if booking.ssh_keys.len() > MAX_KEYS
                || !booking.ssh_keys.iter().all(|k| valid_public_key(k))
            {
                return Err(format!(
                    "booking {}: keys that are not public keys",
                    booking.booking_id
                ));
            }
        }
        if self.telemetry_wanted.len() > MAX_WANTED {
            return Err(format!("samples asked for more than {MAX_WANTED} runs"));
        }
        for wanted in &self.telemetry_wanted {
            if !valid_id(&wanted.run_id) || wanted.until <= wanted.from {
                return Err("samples asked for a run that is not one".into());
            }
        }
        if self.logs_wanted.len() > MAX_WANTED {
            return Err(format!("more than {MAX_WANTED} logs requests"));
        }
        for wanted in &self.logs_wanted {
            if !valid_id(&wanted.request_id)
                || !valid_id(&wanted.booking_id)
                || !(1..=5000).contains(&wanted.tail)
            {
                return Err("a logs request that is not one".into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn booking(account: &str, key: &str) -> Desired {
        Desired {
            listing_id: "l".into(),
            version: "v".into(),
            bookings: vec![DesiredBooking {
                booking_id: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b".into(),
                account: Some(account.into()),
                gpu_count: 1,
                starts_at: DateTime::UNIX_EPOCH,
                access_until: DateTime::UNIX_EPOCH,
                ssh_keys: vec![key.into()],
                container: None,
                entry_account: None,
            }],
            telemetry_wanted: Vec::new(),
            logs_wanted: Vec::new(),
        }
    }

    #[test]
    fn an_answer_naming_another_account_or_a_key_with_options_is_refused() {
        let key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBXRL8fJqTJ4yC2Ndl8IYyW3";
        assert_eq!(booking("gm-0c1d2e3f4a5b", key).check(), Ok(()));
        assert!(booking("root", key).check().is_err());
        assert!(booking("gm-000000000000", key).check().is_err());
        for bad in [
            "command=\"sh\" ssh-ed25519 AAAA",
            "ssh-ed25519 AAAA\nssh-rsa BBBB",
            "ssh-ed25519",
            "ssh-ed25519 AAAA comment",
        ] {
            assert!(booking("gm-0c1d2e3f4a5b", bad).check().is_err(), "{bad:?}");
        }
        // An entry account is its booking's own, and only for a container.
        let mut entry = booking("gm-0c1d2e3f4a5b", key);
        let b = &mut entry.bookings[0];
        (b.account, b.entry_account) = (None, Some("gm-0c1d2e3f4a5b".into()));
        assert!(
            entry.check().is_err(),
            "an entry account without a container"
        );
        entry.bookings[0].container = Some(domain::container::KeptContainer {
            ask: domain::container::BookingContainer {
                image: "busybox:1".into(),
                command: None,
                env: Vec::new(),
            },
            nano_cpus: 1_000_000_000,
            memory_bytes: 1 << 30,
            writable_root: false,
        });
        assert_eq!(entry.check(), Ok(()));
        assert_eq!(entry.bookings[0].login(), Some(("gm-0c1d2e3f4a5b", true)));
        entry.bookings[0].entry_account = Some("gm-000000000000".into());
        assert!(entry.check().is_err(), "another booking's entry account");
    }
}
