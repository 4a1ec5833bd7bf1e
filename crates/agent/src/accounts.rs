//! Booking accounts on the machine: a whole-machine booking's Unix account is made shortly
//! before its start (`useradd`), and at `access_until` every process of its uid is asked to
//! end, killed after the grace, and its home and every file it owns in `/tmp`, `/var/tmp` and
//! `/dev/shm` removed with it (`userdel`). The agent only ever removes accounts it made (kept
//! in its state directory): an account of that name it did not make is left alone and
//! reported as a conflict. Uids are never given again within 30 days.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::desired::valid_account;

/// How long before its start an account is made.
pub const PROVISION_LEAD_SECS: i64 = 120;
/// How long a uid rests before it is given again.
pub const UID_REST_DAYS: i64 = 30;
/// Where a leaving account's files are looked for, besides its home.
pub const SHARED_DIRS: [&str; 3] = ["/tmp", "/var/tmp", "/dev/shm"];
/// How deep into them.
const MAX_DEPTH: usize = 16;

/// The state of an account the agent made (the heartbeat's word for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccountState {
    Ready,
    Ending,
    Removed,
    Conflict,
    Failed,
}

/// An account the agent made, or meant to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub booking_id: String,
    pub uid: Option<u32>,
    pub state: AccountState,
    /// When its processes were first asked to end.
    pub ending_since: Option<DateTime<Utc>>,
    /// When it reached its last state (`removed`, `conflict`): kept an hour for the heartbeat.
    pub settled_at: Option<DateTime<Utc>>,
}

/// What the agent keeps in its state directory (0700).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentState {
    pub accounts: BTreeMap<String, Account>,
    /// Uids given up, and until when they rest.
    pub resting_uids: BTreeMap<u32, DateTime<Utc>>,
}

impl AgentState {
    const FILE: &'static str = "state.json";

    pub fn load(state_dir: &Path) -> std::io::Result<Self> {
        match std::fs::read(state_dir.join(Self::FILE)) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(std::io::Error::other),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(e),
        }
    }

    pub fn save(&self, state_dir: &Path) -> std::io::Result<()> {
        let temporary = state_dir.join(".state.json.new");
        std::fs::write(
            &temporary,
            serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?,
        )?;
        std::fs::rename(temporary, state_dir.join(Self::FILE))
    }
}

/// How the machine's accounts are made and removed.
#[derive(Debug, Clone)]
pub struct Machine {
    /// Where homes are made (`/home`).
    pub home_base: PathBuf,
    /// The uids given to booking accounts.
    pub uid_min: u32,
    pub uid_max: u32,
    /// How long processes get to end after `access_until` before they are killed.
    pub grace: Duration,
    /// Where the GPUs are read (`nvidia-smi` is asked for GPU compute processes too).
    pub gpu_tools: crate::facts::GpuTools,
    /// The passwd file read for names and uids in use.
    pub passwd: PathBuf,
}

/// A passwd entry's name and uid.
fn passwd_entries(passwd: &Path) -> Vec<(String, u32)> {
    std::fs::read_to_string(passwd)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let mut fields = line.split(':');
            let name = fields.next()?.to_owned();
            let uid = fields.nth(1)?.parse().ok()?;
            Some((name, uid))
        })
        .collect()
}

/// The gid of group `name` in `group_file`.
pub fn group_id(group_file: &Path, name: &str) -> Option<u32> {
    std::fs::read_to_string(group_file)
        .ok()?
        .lines()
        .find_map(|line| {
            let mut fields = line.split(':');
            (fields.next()? == name).then_some(())?;
            fields.nth(1)?.parse().ok()
        })
}

/// Runs a tool to its end, saying what failed.
async fn run(program: &str, args: &[&str]) -> Result<(), String> {
    let output = tokio::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .map_err(|e| format!("{program}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{program} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// The processes whose real, effective, saved or file-system uid is `uid`.
pub fn processes_of(uid: u32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/status"))
                .ok()
                .and_then(|status| {
                    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
                    Some(
                        line.split_whitespace()
                            .skip(1)
                            .any(|u| u.parse::<u32>() == Ok(uid)),
                    )
                })
                .unwrap_or(false)
        })
        .collect()
}

fn signal(pids: &[i32], signal: rustix::process::Signal) {
    for pid in pids {
        if let Some(pid) = rustix::process::Pid::from_raw(*pid) {
            let _ = rustix::process::kill_process(pid, signal);
        }
    }
}

/// Removes what `uid` owns under `dir` (never following a link), to [`MAX_DEPTH`].
fn remove_owned(dir: &Path, uid: u32, depth: usize) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.uid() == uid {
            let removed = if meta.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            if let Err(e) = removed {
                tracing::warn!(path = %path.display(), error = %e, "could not remove a leaving account's file");
            }
        } else if meta.is_dir() && depth < MAX_DEPTH {
            remove_owned(&path, uid, depth + 1);
        }
    }
}

impl Machine {
    /// A free uid: in range, not in passwd, not resting.
    fn free_uid(&self, state: &AgentState) -> Option<u32> {
        let used: std::collections::HashSet<u32> = passwd_entries(&self.passwd)
            .into_iter()
            .map(|(_, uid)| uid)
            .chain(state.resting_uids.keys().copied())
            .chain(state.accounts.values().filter_map(|a| a.uid))
            .collect();
        (self.uid_min..=self.uid_max).find(|uid| !used.contains(uid))
    }

    /// Makes `name` for `booking_id`, unless an account of that name exists already (then it
    /// is a conflict: the agent never adopts an account it did not make).
    pub async fn make(&self, state: &mut AgentState, name: &str, booking_id: &str) {
        if !valid_account(name) || state.accounts.contains_key(name) {
            return;
        }
        let now = Utc::now();
        let mut account = Account {
            booking_id: booking_id.to_owned(),
            uid: None,
            state: AccountState::Failed,
            ending_since: None,
            settled_at: None,
        };
        if passwd_entries(&self.passwd).iter().any(|(n, _)| n == name) {
            tracing::error!(
                account = name,
                "an account of this name exists that the agent did not make: left alone"
            );
            account.state = AccountState::Conflict;
            account.settled_at = Some(now);
        } else if let Some(uid) = self.free_uid(state) {
            let home = self.home_base.join(name);
            let made = run(
                "useradd",
                &[
                    "--create-home",
                    "--home-dir",
                    &home.to_string_lossy(),
                    "--uid",
                    &uid.to_string(),
                    "--user-group",
                    // No password, but not locked: sshd without PAM refuses locked accounts
                    // (`!`), and keys are the only way in.
                    "--password",
                    "*",
                    "--shell",
                    "/bin/bash",
                    "--comment",
                    &format!("gpumarket booking {booking_id}"),
                    name,
                ],
            )
            .await;
            match made {
                Ok(()) => {
                    tracing::info!(account = name, uid, "booking account made");
                    account.uid = Some(uid);
                    account.state = AccountState::Ready;
                }
                Err(e) => {
                    tracing::error!(account = name, error = %e, "could not make a booking account")
                }
            }
        } else {
            tracing::error!(account = name, "no free uid in the agent's range");
        }
        state.accounts.insert(name.to_owned(), account);
    }

    /// Ends `name`'s access: its processes asked to end at once, killed after the grace,
    /// then its files and the account removed. Called until it answers `true` (removed).
    pub async fn end(&self, state: &mut AgentState, name: &str, now: DateTime<Utc>) -> bool {
        let Some(account) = state.accounts.get_mut(name) else {
            return true;
        };
        let Some(uid) = account.uid else {
            // Never made (a conflict, or a failure): nothing of ours to remove.
            account.settled_at.get_or_insert(now);
            return true;
        };
        if matches!(account.state, AccountState::Removed) {
            return true;
        }
        let since = *account.ending_since.get_or_insert(now);
        if account.state != AccountState::Ending {
            account.state = AccountState::Ending;
            tracing::info!(
                account = name,
                "access ended: asking the account's processes to end"
            );
            signal(&processes_of(uid), rustix::process::Signal::TERM);
            // sshd's session for it: its processes lose their terminal.
            signal(&processes_of(uid), rustix::process::Signal::HUP);
        }
        let grace = chrono::Duration::from_std(self.grace).unwrap_or_default();
        let left = processes_of(uid);
        if !left.is_empty() && now < since + grace {
            return false;
        }
        signal(&left, rustix::process::Signal::KILL);
        self.kill_gpu_processes(uid).await;
        for _ in 0..50 {
            if processes_of(uid).is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for dir in SHARED_DIRS {
            remove_owned(Path::new(dir), uid, 0);
        }
        match run("userdel", &["--remove", name]).await {
            Ok(()) => {}
            // userdel says so when the mail spool was never made; the account is gone.
            Err(e) if !passwd_entries(&self.passwd).iter().any(|(n, _)| n == name) => {
                tracing::debug!(account = name, error = %e, "userdel");
            }
            Err(e) => {
                tracing::error!(account = name, error = %e, "could not remove a booking account");
                account.state = AccountState::Failed;
                return false;
            }
        }
        let home = self.home_base.join(name);
        if home.exists() {
            let _ = std::fs::remove_dir_all(&home);
        }
        tracing::info!(
            account = name,
            uid,
            "booking account removed, with its files"
        );
        account.state = AccountState::Removed;
        account.settled_at = Some(now);
        state
            .resting_uids
            .insert(uid, now + chrono::Duration::days(UID_REST_DAYS));
        true
    }

    /// Kills the GPU compute processes of `uid` that `nvidia-smi --query-compute-apps`
    /// lists (no GPU, no tool: nothing to do).
    async fn kill_gpu_processes(&self, uid: u32) {
        let Ok(output) = tokio::process::Command::new(&self.gpu_tools.nvidia_smi)
            .args(["--query-compute-apps=pid", "--format=csv,noheader,nounits"])
            .stdin(std::process::Stdio::null())
            .output()
            .await
        else {
            return;
        };
        let mine = processes_of(uid);
        let gpu: Vec<i32> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .filter(|pid| mine.contains(pid))
            .collect();
        if !gpu.is_empty() {
            tracing::warn!(uid, pids = ?gpu, "killing the account's GPU processes");
            signal(&gpu, rustix::process::Signal::KILL);
        }
    }

    /// Forgets settled accounts after an hour and uids whose rest is over.
    pub fn prune(state: &mut AgentState, now: DateTime<Utc>) {
        state.accounts.retain(|_, a| {
            a.settled_at
                .is_none_or(|at| now - at < chrono::Duration::hours(1))
        });
        state.resting_uids.retain(|_, until| *until > now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uids_in_use_or_resting_are_not_given() {
        let dir = std::env::temp_dir().join(format!("gm-accounts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let passwd = dir.join("passwd");
        std::fs::write(
            &passwd,
            "root:x:0:0::/root:/bin/sh\ngm-aaaaaaaaaaaa:x:5000:5000::/h:/bin/sh\n",
        )
        .unwrap();
        let machine = Machine {
            home_base: dir.clone(),
            uid_min: 5000,
            uid_max: 5003,
            grace: Duration::from_secs(1),
            gpu_tools: Default::default(),
            passwd,
        };
        let mut state = AgentState::default();
        state.resting_uids.insert(5001, DateTime::<Utc>::MAX_UTC);
        assert_eq!(machine.free_uid(&state), Some(5002));
        state.resting_uids.insert(5002, DateTime::<Utc>::MAX_UTC);
        state.resting_uids.insert(5003, DateTime::<Utc>::MIN_UTC);
        assert_eq!(
            machine.free_uid(&state),
            None,
            "5003 rests in the state until it is pruned"
        );
        Machine::prune(&mut state, Utc::now());
        assert_eq!(machine.free_uid(&state), Some(5003));
        assert_eq!(group_id(Path::new("/etc/group"), "root"), Some(0));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
