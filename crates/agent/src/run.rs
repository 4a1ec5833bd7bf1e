//! `gpumarket agent run`: the agent's loop. It connects outward only (it works behind NAT):
//! it reports the machine's facts at start and when they change, long-polls the listing's
//! desired state, beats every 15 s, and once a second brings the machine to what it was last
//! told — so time alone (a booking's end) is acted on without the network, and a missed
//! answer changes nothing. The last desired state is kept in the state directory, so a
//! restarted agent carries on from it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::accounts::{AccountState, AgentState, Machine, PROVISION_LEAD_SECS};
use crate::booked::{BookedContainers, ContainerBeat, LastContainers};
use crate::desired::{Desired, DesiredBooking};
use crate::enter::{Entries, Entry};
use crate::keys::{KeysCache, KeysEntry, keys_dir};
use crate::telemetry::{SharedRing, Uploads, start_uploads};

/// How often the agent beats, and how long it waits on a long-poll.
pub const HEARTBEAT: Duration = Duration::from_secs(15);
const WAIT_SECS: u64 = 30;
/// How often the facts are read again (reported when they changed).
const FACTS_EVERY: Duration = Duration::from_secs(600);
/// The largest answer read from the server.
const MAX_ANSWER: usize = 4 * 1024 * 1024;

/// How the agent runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The server's API root (`https://gpumarket.example/v1`).
    pub api: String,
    pub listing: String,
    /// The organisation key of scope `agent`.
    pub key: String,
    pub state_dir: PathBuf,
    /// The group whose members may read the keys cache (the `AuthorizedKeysCommandUser`'s).
    pub keys_gid: Option<u32>,
    pub machine: Machine,
    /// Print the accounts it would make and the `authorized-keys` lines; touch no account.
    pub dry_run: bool,
    /// dockerd's socket (`unix:///var/run/docker.sock`), for bookings that run a container.
    pub docker_host: String,
}

/// What the heartbeat says of an account.
#[derive(Debug, Clone, Serialize)]
struct AccountReport {
    booking_id: String,
    account: String,
    state: AccountState,
}

#[derive(Debug, Serialize)]
struct Heartbeat<'a> {
    agent_version: &'a str,
    accounts: Vec<AccountReport>,
    /// This machine's clock as it sends: the server compares it with its own.
    sent_at: DateTime<Utc>,
    /// Each GPU's health as last read (empty: neither NVML nor `nvidia-smi` answered;
    /// absent before the first reading).
    #[serde(skip_serializing_if = "Option::is_none")]
    gpus: Option<Vec<crate::smi::GpuHealth>>,
    /// Each booking's container as dockerd has it (absent before the agent ran one).
    #[serde(skip_serializing_if = "Option::is_none")]
    containers: Option<Vec<ContainerBeat>>,
}

/// The GPUs' health as last read, shared by the reader and the heartbeat.
type LastHealth = Arc<Mutex<Option<Vec<crate::smi::GpuHealth>>>>;

/// Reads the GPUs' health every [`HEARTBEAT`], for ever, into `last` (and each GPU's compute
/// processes into the telemetry ring): a slow or hung driver delays only this reading, never
/// a heartbeat.
async fn read_health(gpu_tools: crate::facts::GpuTools, last: LastHealth, ring: SharedRing) {
    let mut every = tokio::time::interval(HEARTBEAT);
    loop {
        every.tick().await;
        let read = crate::facts::read_health(&gpu_tools)
            .await
            .unwrap_or_default();
        let now = Utc::now().timestamp_millis();
        {
            let mut ring = ring.lock().unwrap_or_else(|e| e.into_inner());
            for gpu in &read {
                if let Some(count) = gpu.compute_processes {
                    ring.note_processes(&gpu.uuid, now, count);
                }
            }
        }
        *last.lock().unwrap_or_else(|e| e.into_inner()) = Some(read);
    }
}

/// A line on stdout (`--dry-run`), never a panic when no one reads it any more.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// The server's clock less this machine's, from an answer's `Date` (whole seconds: an
/// offset under 2 s is noise).
fn clock_offset(date: Option<&reqwest::header::HeaderValue>) -> Option<i64> {
    let date = DateTime::parse_from_rfc2822(date?.to_str().ok()?).ok()?;
    let offset = (date.with_timezone(&Utc) - Utc::now()).num_seconds();
    Some(if offset.abs() < 2 { 0 } else { offset })
}

struct Agent {
    options: Options,
    keys: KeysCache,
    state: AgentState,
    /// What the heartbeat reports, shared with its task.
    reports: Arc<Mutex<Vec<AccountReport>>>,
    /// `--dry-run`: the gateway-only bookings already said.
    said: std::collections::HashSet<String>,
    /// The bookings' containers.
    booked: BookedContainers,
    /// Who may enter which container, shared with the socket's task.
    entries: Entries,
}

impl Agent {
    fn url(&self, tail: &str) -> String {
        format!(
            "{}/listings/{}/agent/{tail}",
            self.options.api.trim_end_matches('/'),
            self.options.listing
        )
    }

    fn desired_file(&self) -> PathBuf {
        self.options.state_dir.join("desired.json")
    }

    /// Reports the facts when they differ from `last`; answers what was reported.
    async fn report_facts(
        &mut self,
        http: &reqwest::Client,
        last: Option<serde_json::Value>,
    ) -> Option<serde_json::Value> {
        let facts =
            crate::facts::read_facts(&self.options.machine.gpu_tools, &self.options.state_dir)
                .await;
        if facts.gpus.is_empty() {
            tracing::warn!(error = ?facts.gpu_error, "no GPU was read: the facts are not reported");
            return last;
        }
        self.booked.gpus = facts.gpus.iter().map(|g| g.uuid.clone()).collect();
        let value = serde_json::to_value(&facts).ok()?;
        if last.as_ref() == Some(&value) {
            return last;
        }
        match http
            .put(self.url("facts"))
            .bearer_auth(&self.options.key)
            .json(&value)
            .send()
            .await
        {
            Ok(answer) if answer.status().is_success() => {
                tracing::info!(gpus = facts.gpus.len(), "facts reported");
                Some(value)
            }
            Ok(answer) => {
                tracing::error!(status = %answer.status(), "the server refused the facts");
                last
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not report the facts");
                last
            }
        }
    }

    /// Brings the machine to `desired` at the server's `now`.
    async fn reconcile(&mut self, desired: &Desired, now: DateTime<Utc>) {
        // Accounts on the whole machine and containers' entry accounts alike.
        let wanted: BTreeMap<&str, &DesiredBooking> = desired
            .bookings
            .iter()
            .filter_map(|b| Some((b.login()?.0, b)))
            .collect();
        for (name, booking) in &wanted {
            if now >= booking.access_until {
                continue;
            }
            if let Err(e) = self.keys.put(name, &KeysEntry::of(booking)) {
                tracing::error!(account = name, error = %e, "could not write the keys cache");
            }
            let due = now >= booking.starts_at - chrono::Duration::seconds(PROVISION_LEAD_SECS);
            let made = self
                .state
                .accounts
                .get(*name)
                .is_some_and(|a| a.state != AccountState::Removed);
            if due && !made {
                self.state.accounts.remove(*name);
                if self.options.dry_run {
                    self.dry_make(name, booking);
                } else {
                    self.options
                        .machine
                        .make(&mut self.state, name, &booking.booking_id)
                        .await;
                }
            }
        }
        // Keys outlive nothing: gone the moment access is.
        for name in self.keys.accounts() {
            if wanted
                .get(name.as_str())
                .is_none_or(|b| now >= b.access_until)
                && let Err(e) = self.keys.remove(&name)
            {
                tracing::error!(account = name, error = %e, "could not remove keys");
            }
        }
        let ending: Vec<String> = self
            .state
            .accounts
            .iter()
            .filter(|(name, a)| {
                matches!(
                    a.state,
                    AccountState::Ready | AccountState::Ending | AccountState::Failed
                ) && a.uid.is_some()
                    && wanted
                        .get(name.as_str())
                        .is_none_or(|b| now >= b.access_until)
            })
            .map(|(name, _)| name.clone())
            .collect();
        for name in ending {
            self.options
                .machine
                .end(&mut self.state, &name, Utc::now())
                .await;
        }
        if self.options.dry_run {
            self.dry_end(&wanted, now);
            self.dry_gateway_only(desired);
        }
        if self.options.dry_run {
            self.dry_containers(desired, now);
        } else {
            self.booked.reconcile(desired, now).await;
        }
        Machine::prune(&mut self.state, Utc::now());
        if let Err(e) = self.state.save(&self.options.state_dir) {
            tracing::error!(error = %e, "could not keep the agent's state");
        }
        let reports = self
            .state
            .accounts
            .iter()
            .map(|(name, a)| AccountReport {
                booking_id: a.booking_id.clone(),
                account: name.clone(),
                state: a.state,
            })
            .collect();
        *self.reports.lock().unwrap_or_else(|e| e.into_inner()) = reports;
        self.entries.set(self.entries_now(&wanted, now));
    }

    /// Who may enter which container: each entry account made, by uid, until its access ends
    /// by this machine's clock.
    fn entries_now(
        &self,
        wanted: &BTreeMap<&str, &DesiredBooking>,
        now: DateTime<Utc>,
    ) -> std::collections::HashMap<u32, Entry> {
        let offset = now - Utc::now();
        wanted
            .iter()
            .filter(|(_, b)| b.login().is_some_and(|(_, enter)| enter))
            .filter_map(|(name, b)| {
                let account = self.state.accounts.get(*name)?;
                (account.state == AccountState::Ready).then_some(())?;
                Some((
                    account.uid?,
                    Entry {
                        booking_id: b.booking_id.clone(),
                        until: b.access_until - offset,
                    },
                ))
            })
            .collect()
    }

    /// `--dry-run`: says once of each container booking whose access began what would run.
    fn dry_containers(&mut self, desired: &Desired, now: DateTime<Utc>) {
        let started = desired
            .bookings
            .iter()
            .filter(|b| b.container.is_some() && now >= b.starts_at);
        for booking in started {
            if self
                .said
                .insert(format!("container {}", booking.booking_id))
            {
                say(&format!(
                    "would run a container for booking {} on {} GPUs until {}",
                    booking.booking_id, booking.gpu_count, booking.access_until
                ));
            }
        }
    }

    /// `--dry-run`: says what it would make, and what sshd would be answered.
    fn dry_make(&mut self, name: &str, booking: &DesiredBooking) {
        say(&format!(
            "would make account {name} for booking {} (access {} to {})",
            booking.booking_id, booking.starts_at, booking.access_until
        ));
        let at = booking.starts_at.max(Utc::now());
        let enter = std::env::current_exe()
            .ok()
            .and_then(|exe| crate::keys::enter_command(&exe, &self.options.state_dir));
        for line in self
            .keys
            .authorized_keys(name, at, enter.as_deref())
            .lines()
        {
            say(&format!("  authorized-keys {name}: {line}"));
        }
        self.state.accounts.insert(
            name.to_owned(),
            crate::accounts::Account {
                booking_id: booking.booking_id.clone(),
                uid: None,
                state: AccountState::Ready,
                ending_since: None,
                settled_at: None,
            },
        );
    }

    /// `--dry-run`: says once of each booking without an account that it gets none.
    fn dry_gateway_only(&mut self, desired: &Desired) {
        for booking in desired.bookings.iter().filter(|b| b.account.is_none()) {
            if self.said.insert(booking.booking_id.clone()) {
                say(&format!(
                    "booking {}: through the gateway only (it shares the machine or waived direct access): no account",
                    booking.booking_id
                ));
            }
        }
    }

    fn dry_end(&mut self, wanted: &BTreeMap<&str, &DesiredBooking>, now: DateTime<Utc>) {
        for (name, account) in &mut self.state.accounts {
            if account.state == AccountState::Ready
                && wanted
                    .get(name.as_str())
                    .is_none_or(|b| now >= b.access_until)
            {
                say(&format!(
                    "would end account {name}: its processes, its files, the account"
                ));
                account.state = AccountState::Removed;
                account.settled_at = Some(now);
            }
        }
    }
}

/// Long-polls the desired state into `tx`, for ever; keeps each answer in the state
/// directory and the clock's offset in the keys cache.
async fn poll(
    http: reqwest::Client,
    url: String,
    key: String,
    keys: KeysCache,
    file: PathBuf,
    tx: tokio::sync::watch::Sender<Option<Desired>>,
) {
    let mut version = tx.borrow().as_ref().map(|d| d.version.clone());
    let mut backoff = Duration::from_secs(1);
    loop {
        let mut request = http
            .get(&url)
            .bearer_auth(&key)
            .timeout(Duration::from_secs(WAIT_SECS + 15))
            .query(&[("wait", WAIT_SECS.to_string())]);
        if let Some(v) = &version {
            request = request.query(&[("version", v)]);
        }
        let answer = async {
            let answer = request.send().await.map_err(|e| e.to_string())?;
            let status = answer.status();
            if let Some(offset) = clock_offset(answer.headers().get(reqwest::header::DATE))
                && let Err(e) = keys.set_offset(offset)
            {
                tracing::error!(error = %e, "could not keep the clock's offset");
            }
            let body = answer.bytes().await.map_err(|e| e.to_string())?;
            if !status.is_success() {
                return Err(format!(
                    "{status}: {}",
                    String::from_utf8_lossy(&body[..body.len().min(512)])
                ));
            }
            if body.len() > MAX_ANSWER {
                return Err("an answer too large".to_owned());
            }
            let desired: Desired = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
            desired.check()?;
            Ok::<_, String>((desired, body))
        };
        match answer.await {
            Ok((desired, body)) => {
                backoff = Duration::from_secs(1);
                if version.as_deref() != Some(desired.version.as_str()) {
                    tracing::info!(
                        version = desired.version,
                        bookings = desired.bookings.len(),
                        "desired state"
                    );
                    if let Err(e) = std::fs::write(&file, &body) {
                        tracing::error!(error = %e, "could not keep the desired state");
                    }
                    version = Some(desired.version.clone());
                    let _ = tx.send(Some(desired));
                }
            }
            Err(e) => {
                // Nothing changes on the machine but what time changes.
                tracing::warn!(error = e, "no desired state; trying again");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(30));
            }
        }
    }
}

/// Beats every [`HEARTBEAT`], for ever.
async fn beat(
    http: reqwest::Client,
    (url, key): (String, String),
    reports: Arc<Mutex<Vec<AccountReport>>>,
    (health, containers): (LastHealth, LastContainers),
) {
    let mut every = tokio::time::interval(HEARTBEAT);
    loop {
        tokio::select! {
            _ = every.tick() => {}
            () = containers.changed.notified() => {}
        }
        let gpus = health.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let accounts = reports.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let said = containers
            .last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let body = Heartbeat {
            agent_version: env!("CARGO_PKG_VERSION"),
            accounts,
            sent_at: Utc::now(),
            gpus,
            containers: said,
        };
        match http.post(&url).bearer_auth(&key).json(&body).send().await {
            Ok(answer) if answer.status().is_success() => {}
            Ok(answer) => tracing::warn!(status = %answer.status(), "the heartbeat was refused"),
            Err(e) => tracing::warn!(error = %e, "no heartbeat"),
        }
    }
}

/// Runs the agent until it is stopped.
pub async fn run(options: Options) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(&options.state_dir)
        .and_then(|()| {
            std::fs::set_permissions(&options.state_dir, std::fs::Permissions::from_mode(0o700))
        })
        .map_err(|e| format!("the state directory {}: {e}", options.state_dir.display()))?;
    let keys = KeysCache::new(keys_dir(&options.state_dir), options.keys_gid);
    keys.create()
        .map_err(|e| format!("the keys directory: {e}"))?;
    let state =
        AgentState::load(&options.state_dir).map_err(|e| format!("the agent's state: {e}"))?;
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| e.to_string())?;
    let mut agent = Agent {
        keys: keys.clone(),
        state,
        reports: Arc::default(),
        said: Default::default(),
        booked: BookedContainers::new(options.docker_host.clone(), options.listing.clone()),
        entries: Entries::default(),
        options,
    };
    if !agent.options.dry_run {
        let socket = crate::enter::enter_socket(&agent.options.state_dir);
        let (entries, docker_host) = (agent.entries.clone(), agent.options.docker_host.clone());
        tokio::spawn(async move {
            if let Err(e) = crate::enter::serve(socket, entries, docker_host).await {
                tracing::error!(error = e, "renters cannot enter their containers over SSH");
            }
        });
    }
    let kept: Option<Desired> = std::fs::read(agent.desired_file())
        .ok()
        .and_then(|b| serde_json::from_slice::<Desired>(&b).ok())
        .filter(|d| d.check().is_ok());
    let (tx, mut rx) = tokio::sync::watch::channel(kept);
    tokio::spawn(poll(
        http.clone(),
        agent.url("desired"),
        agent.options.key.clone(),
        keys.clone(),
        agent.desired_file(),
        tx,
    ));
    let health = LastHealth::default();
    let ring = SharedRing::default();
    tokio::spawn(crate::telemetry::sample(
        agent.options.machine.gpu_tools.clone(),
        ring.clone(),
    ));
    tokio::spawn(read_health(
        agent.options.machine.gpu_tools.clone(),
        health.clone(),
        ring.clone(),
    ));
    tokio::spawn(beat(
        http.clone(),
        (agent.url("heartbeat"), agent.options.key.clone()),
        agent.reports.clone(),
        (health, agent.booked.beats.clone()),
    ));
    let mut facts = agent.report_facts(&http, None).await;
    let mut facts_at = tokio::time::Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let telemetry_url = agent.url("telemetry");
    let logs_url = agent.url("logs");
    let mut answered = std::collections::HashSet::new();
    let mut uploads = Uploads::default();
    let (uploaded_tx, mut uploaded_rx) = tokio::sync::mpsc::unbounded_channel();
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            changed = rx.changed() => if changed.is_err() { return Err("the long-poll stopped".into()) },
            Some((run, outcome)) = uploaded_rx.recv() => uploads.ended(run, outcome),
        }
        if facts_at.elapsed() >= FACTS_EVERY {
            facts = agent.report_facts(&http, facts).await;
            facts_at = tokio::time::Instant::now();
        }
        let desired = rx.borrow_and_update().clone();
        if let Some(desired) = desired {
            let offset = keys.offset();
            start_uploads(
                &desired,
                &mut uploads,
                (&http, &telemetry_url, &agent.options.key),
                &ring,
                offset,
                &uploaded_tx,
            );
            let now = Utc::now() + chrono::Duration::seconds(offset);
            agent.reconcile(&desired, now).await;
            if !agent.options.dry_run {
                let key = agent.options.key.clone();
                agent
                    .booked
                    .answer_logs(&desired, (&http, &logs_url, &key), &mut answered)
                    .await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_dry_run_makes_no_account_and_forgets_keys_at_the_end() {
        let dir = std::env::temp_dir().join(format!("gm-dry-run-{}", std::process::id()));
        let state_dir = dir.join("state");
        std::fs::create_dir_all(&state_dir).unwrap();
        let passwd = dir.join("passwd");
        std::fs::write(&passwd, "root:x:0:0::/root:/bin/sh\n").unwrap();
        let keys = KeysCache::new(keys_dir(&state_dir), None);
        keys.create().unwrap();
        let mut agent = Agent {
            options: Options {
                api: "http://127.0.0.1:9/v1".into(),
                listing: "l".into(),
                key: "k".into(),
                state_dir: state_dir.clone(),
                keys_gid: None,
                machine: Machine {
                    home_base: dir.join("home"),
                    uid_min: 5000,
                    uid_max: 5010,
                    grace: Duration::from_secs(1),
                    gpu_tools: Default::default(),
                    passwd: passwd.clone(),
                },
                dry_run: true,
                docker_host: "unix:///nonexistent".into(),
            },
            keys: keys.clone(),
            state: AgentState::default(),
            reports: Arc::default(),
            said: Default::default(),
            booked: BookedContainers::default(),
            entries: Entries::default(),
        };
        let now = Utc::now();
        let booking = |id: &str, account: Option<&str>| DesiredBooking {
            booking_id: id.into(),
            account: account.map(str::to_owned),
            gpu_count: 1,
            starts_at: now,
            access_until: now + chrono::Duration::hours(1),
            ssh_keys: vec!["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBXRL8fJ".into()],
            container: None,
            entry_account: None,
        };
        let desired = Desired {
            listing_id: "l".into(),
            version: "1".into(),
            bookings: vec![
                booking(
                    "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
                    Some("gm-0c1d2e3f4a5b"),
                ),
                booking("0193a1b2-c3d4-7e5f-8a9b-000000000001", None),
            ],
            telemetry_wanted: Vec::new(),
            logs_wanted: Vec::new(),
        };
        agent.reconcile(&desired, now).await;
        let made = &agent.state.accounts["gm-0c1d2e3f4a5b"];
        assert_eq!((made.state, made.uid), (AccountState::Ready, None));
        assert_eq!(
            agent.state.accounts.len(),
            1,
            "no account for the gateway's booking"
        );
        assert!(
            keys.authorized_keys("gm-0c1d2e3f4a5b", now, None)
                .contains("ssh-ed25519")
        );
        assert_eq!(
            std::fs::read_to_string(&passwd).unwrap(),
            "root:x:0:0::/root:/bin/sh\n"
        );
        assert_eq!(agent.reports.lock().unwrap().len(), 1);
        // The booking gone from the state (cancelled): its keys at once, the account ended.
        let gone = Desired {
            version: "2".into(),
            bookings: Vec::new(),
            ..desired
        };
        agent.reconcile(&gone, now).await;
        assert_eq!(keys.authorized_keys("gm-0c1d2e3f4a5b", now, None), "");
        assert_eq!(
            agent.state.accounts["gm-0c1d2e3f4a5b"].state,
            AccountState::Removed
        );
        assert!(
            AgentState::load(&state_dir)
                .unwrap()
                .accounts
                .contains_key("gm-0c1d2e3f4a5b")
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
