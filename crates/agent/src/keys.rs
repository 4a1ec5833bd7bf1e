//! The keys cache OpenSSH's `AuthorizedKeysCommand` is answered from
//! (`gpumarket agent authorized-keys %u`): one file per booking account, with the renter's
//! public keys and the interval they let in, and the clock's offset from the server's. It
//! lives in its own directory beside the state directory (`<state-dir>.keys`, root and the
//! command user's group, 0750; files 0640), so the unprivileged command user reads it and
//! nothing else of the agent. The answer is made from these files alone — never the network —
//! so sshd never waits on the server.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::desired::{DesiredBooking, valid_account, valid_public_key};

/// The options every line of an account on the whole machine carries: nothing but a terminal
/// and forwarding to the machine's own ports.
pub const KEY_OPTIONS: &str = r#"restrict,pty,port-forwarding,permitopen="localhost:*""#;

/// The options every line of a container's entry account carries before its forced command:
/// a terminal, no forwarding of any kind, and nothing run but the command.
pub const ENTER_OPTIONS: &str = "restrict,pty";

/// The forced command of an entry account's keys: this binary's `agent enter` with the
/// agent's state directory (where its socket is found). `None` when a path holds anything
/// but letters, digits and `/._+-`, which could not be quoted safely in an `authorized_keys`
/// line.
pub fn enter_command(exe: &Path, state_dir: &Path) -> Option<String> {
    let safe = |p: &Path| {
        let text = p.to_str()?;
        (!text.is_empty()
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._+-".contains(&b)))
        .then_some(text.to_owned())
    };
    Some(format!(
        "{} agent enter --state-dir {}",
        safe(exe)?,
        safe(state_dir)?
    ))
}

/// The clock file's name (not an account name, so never one's keys).
const CLOCK: &str = "clock";

/// One account's entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeysEntry {
    pub booking_id: String,
    pub starts_at: DateTime<Utc>,
    pub access_until: DateTime<Utc>,
    pub keys: Vec<String>,
    /// An entry account's: every login is forced into the booking's container.
    #[serde(default)]
    pub enter: bool,
}

impl KeysEntry {
    pub fn of(booking: &DesiredBooking) -> Self {
        Self {
            booking_id: booking.booking_id.clone(),
            starts_at: booking.starts_at,
            access_until: booking.access_until,
            keys: booking.ssh_keys.clone(),
            enter: booking.login().is_some_and(|(_, enter)| enter),
        }
    }
}

/// The keys directory of a state directory: its sibling `<name>.keys`.
pub fn keys_dir(state_dir: &Path) -> PathBuf {
    let name = state_dir
        .file_name()
        .map_or_else(|| "gpumarket-agent".into(), |n| n.to_string_lossy());
    state_dir.with_file_name(format!("{name}.keys"))
}

/// The keys cache, written by the agent (root) and read by the command.
#[derive(Debug, Clone)]
pub struct KeysCache {
    dir: PathBuf,
    /// The group that may read it (the command user's); `None`: left as created.
    gid: Option<u32>,
}

impl KeysCache {
    pub fn new(dir: PathBuf, gid: Option<u32>) -> Self {
        Self { dir, gid }
    }

    /// Makes the directory, root and the readers' group, 0750.
    pub fn create(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        self.own(&self.dir, 0o750)
    }

    fn own(&self, path: &Path, mode: u32) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        if let Some(gid) = self.gid {
            rustix::fs::chown(path, None, Some(rustix::fs::Gid::from_raw(gid)))?;
        }
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }

    /// Writes `value` to `name` whole (a temporary file renamed over it): the command reads
    /// the old file or the new one, never half of one.
    fn write(&self, name: &str, value: &impl Serialize) -> std::io::Result<()> {
        let path = self.dir.join(name);
        let temporary = self.dir.join(format!(".{name}.new"));
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(&serde_json::to_vec(value).map_err(std::io::Error::other)?)?;
        file.sync_all()?;
        self.own(&temporary, 0o640)?;
        std::fs::rename(&temporary, &path)
    }

    /// Keeps `entry` as `account`'s, unless it is already so.
    pub fn put(&self, account: &str, entry: &KeysEntry) -> std::io::Result<()> {
        if !valid_account(account) {
            return Err(std::io::Error::other(format!(
                "{account:?} is no booking account"
            )));
        }
        if self.get(account).as_ref() == Some(entry) {
            return Ok(());
        }
        self.write(account, entry)
    }

    /// Forgets `account`'s keys: from now on it is refused.
    pub fn remove(&self, account: &str) -> std::io::Result<()> {
        if !valid_account(account) {
            return Ok(());
        }
        match std::fs::remove_file(self.dir.join(account)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// The accounts it holds keys for.
    pub fn accounts(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|name| valid_account(name))
            .collect()
    }

    pub fn get(&self, account: &str) -> Option<KeysEntry> {
        if !valid_account(account) {
            return None;
        }
        let bytes = std::fs::read(self.dir.join(account)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Keeps the server's clock less this machine's, in seconds.
    pub fn set_offset(&self, offset_secs: i64) -> std::io::Result<()> {
        if self.offset() == offset_secs {
            return Ok(());
        }
        self.write(CLOCK, &offset_secs)
    }

    /// The server's clock less this machine's, in seconds (0 before the first answer).
    pub fn offset(&self) -> i64 {
        std::fs::read(self.dir.join(CLOCK))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(0)
    }

    /// What `AuthorizedKeysCommand` answers for `user` at this machine's `local_now`: the
    /// renter's keys while its booking gives access, each line ending at `access_until` by
    /// this machine's clock; nothing for anyone else, or at any other time. An entry
    /// account's lines force `enter` (from [`enter_command`]; none without one).
    pub fn authorized_keys(
        &self,
        user: &str,
        local_now: DateTime<Utc>,
        enter: Option<&str>,
    ) -> String {
        let Some(entry) = self.get(user) else {
            return String::new();
        };
        let options = match (entry.enter, enter) {
            (false, _) => KEY_OPTIONS.to_owned(),
            (true, Some(command)) => format!("{ENTER_OPTIONS},command=\"{command}\""),
            (true, None) => return String::new(),
        };
        let offset = Duration::seconds(self.offset());
        let now = local_now + offset;
        if now < entry.starts_at || now >= entry.access_until {
            return String::new();
        }
        let expiry = (entry.access_until - offset).format("%Y%m%d%H%M%SZ");
        entry
            .keys
            .iter()
            .filter(|key| valid_public_key(key))
            .map(|key| {
                format!(
                    "expiry-time=\"{expiry}\",{options} {key} gpumarket-booking-{}\n",
                    entry.booking_id
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBXRL8fJqTJ4yC2Ndl8IYyW3+2qgfyqvmFpJ0l6j/Y0n";

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn keys_are_answered_only_while_the_booking_gives_access() {
        let dir = std::env::temp_dir().join(format!("gm-keys-{}", std::process::id()));
        let cache = KeysCache::new(dir.clone(), None);
        cache.create().unwrap();
        let entry = KeysEntry {
            booking_id: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b".into(),
            starts_at: at("2026-12-06T10:00:00Z"),
            access_until: at("2026-12-06T11:00:00Z"),
            keys: vec![KEY.into(), "ssh-ed25519 AAAA\nevil".into()],
            enter: false,
        };
        cache.put("gm-0c1d2e3f4a5b", &entry).unwrap();
        assert_eq!(cache.accounts(), vec!["gm-0c1d2e3f4a5b".to_owned()]);
        let during = cache.authorized_keys("gm-0c1d2e3f4a5b", at("2026-12-06T10:30:00Z"), None);
        assert_eq!(
            during,
            format!(
                "expiry-time=\"20261206110000Z\",{KEY_OPTIONS} {KEY} gpumarket-booking-0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b\n"
            ),
            "one line: the key that is not one is never written"
        );
        for (user, now) in [
            ("gm-0c1d2e3f4a5b", "2026-12-06T09:59:59Z"),
            ("gm-0c1d2e3f4a5b", "2026-12-06T11:00:00Z"),
            ("gm-000000000000", "2026-12-06T10:30:00Z"),
            ("root", "2026-12-06T10:30:00Z"),
            ("../clock", "2026-12-06T10:30:00Z"),
        ] {
            assert_eq!(
                cache.authorized_keys(user, at(now), None),
                "",
                "{user} at {now}"
            );
        }
        // This machine's clock is 90 s behind the server's: access ends 90 s earlier by it.
        cache.set_offset(90).unwrap();
        assert_eq!(
            cache.authorized_keys("gm-0c1d2e3f4a5b", at("2026-12-06T10:58:30Z"), None),
            ""
        );
        assert!(
            cache
                .authorized_keys("gm-0c1d2e3f4a5b", at("2026-12-06T10:58:29Z"), None)
                .starts_with("expiry-time=\"20261206105830Z\"")
        );
        cache.remove("gm-0c1d2e3f4a5b").unwrap();
        assert_eq!(
            cache.authorized_keys("gm-0c1d2e3f4a5b", at("2026-12-06T10:30:00Z"), None),
            ""
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_entry_account_s_keys_force_the_container_and_nothing_else() {
        let dir = std::env::temp_dir().join(format!("gm-enter-keys-{}", std::process::id()));
        let cache = KeysCache::new(dir.clone(), None);
        cache.create().unwrap();
        let entry = KeysEntry {
            booking_id: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b".into(),
            starts_at: at("2026-12-06T10:00:00Z"),
            access_until: at("2026-12-06T11:00:00Z"),
            keys: vec![KEY.into()],
            enter: true,
        };
        cache.put("gm-0c1d2e3f4a5b", &entry).unwrap();
        let command = enter_command(
            Path::new("/usr/local/bin/gpumarket"),
            Path::new("/var/lib/gpumarket-agent"),
        )
        .unwrap();
        assert_eq!(
            cache.authorized_keys(
                "gm-0c1d2e3f4a5b",
                at("2026-12-06T10:30:00Z"),
                Some(&command)
            ),
            format!(
                "expiry-time=\"20261206110000Z\",restrict,pty,command=\"/usr/local/bin/gpumarket agent enter --state-dir /var/lib/gpumarket-agent\" {KEY} gpumarket-booking-0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b\n"
            )
        );
        // Without a command it could force, an entry account lets no one in.
        assert_eq!(
            cache.authorized_keys("gm-0c1d2e3f4a5b", at("2026-12-06T10:30:00Z"), None),
            ""
        );
        for (exe, state) in [
            ("/opt/my bin/gpumarket", "/var/lib/a"),
            ("/usr/bin/gpumarket", "/var/lib/a\" evil"),
            ("/usr/bin/gpumarket", "/var/lib/a;rm"),
            ("", "/var/lib/a"),
        ] {
            assert_eq!(
                enter_command(Path::new(exe), Path::new(state)),
                None,
                "{exe} {state}"
            );
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_keys_directory_is_the_state_directory_s_sibling() {
        assert_eq!(
            keys_dir(Path::new("/var/lib/gpumarket-agent")),
            Path::new("/var/lib/gpumarket-agent.keys")
        );
    }
}
