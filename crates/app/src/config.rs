//! The server's settings, in sections (`[server]`, `[database]`, …). Loading (defaults, then
//! a file, then `GPUMARKET_*` variables) is the binary's job; this is the shape, its rules,
//! and the map from each setting's environment name (flat, as the contract fixes them:
//! `GPUMARKET_DATABASE_URL`) to its place (`database.url`). Unknown keys are refused by name,
//! and secrets are [`SecretString`]s that never print.

use std::path::PathBuf;

use documented::{Documented, DocumentedFields};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

/// The database used when none is configured: a SQLite file in the working directory,
/// created on first start.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://gpumarket.db?mode=rwc";

/// `GPUMARKET_*` variables that are not the server's settings, so `serve` ignores them
/// instead of refusing them as unknown keys: the configuration file's own path, the engine's
/// and the submitter's keys of `bench` and `sim`, the command line's server, token and profile, and
/// what the project's scripts and tests read (`scripts/check` documents them).
pub const NOT_SETTINGS: &[&str] = &[
    "config",
    "engine_api_key",
    "submit_key",
    "sim_api_key",
    "url",
    "token",
    "profile",
    "pytools",
    "vllm_cache",
    "tools",
    "test_python",
    "chromium",
    "bin",
    "bless",
    "schemathesis_url",
    "schemathesis_token",
    "schemathesis_examples",
];

/// Settings come from the defaults, then an optional TOML file (`--config FILE` or
/// `GPUMARKET_CONFIG=FILE`), then environment variables. The file holds one table a section:
///
/// ```toml
/// [server]
/// listen = "0.0.0.0:8080"
/// [database]
/// url = "postgres://gpumarket@db/gpumarket"
/// ```
///
/// Every setting also has a flat `GPUMARKET_*` name, given in its row below: the key in upper
/// case (`listen` ↔ `GPUMARKET_LISTEN`), prefixed with the section where the table says so
/// (`[database] url` ↔ `GPUMARKET_DATABASE_URL`, `[gateway] max_tokens` ↔
/// `GPUMARKET_GATEWAY_MAX_TOKENS`). An unknown key — in the file or in a `GPUMARKET_*`
/// variable — stops the start with an error naming it. Secrets never appear in logs or
/// errors.
#[derive(Debug, Clone, Default, Deserialize, Serialize, Documented)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub server: ServerSettings,
    pub database: DatabaseSettings,
    pub redis: RedisSettings,
    pub keys: KeySettings,
    pub accounts: AccountSettings,
    pub mail: MailSettings,
    pub verification: VerificationSettings,
    pub reports: ReportSettings,
    pub limits: LimitSettings,
    pub payments: PaymentSettings,
    pub pro: ProSettings,
    pub gateway: GatewaySettings,
    pub liveness: LivenessSettings,
    pub webhooks: WebhookSettings,
}

/// How the API listens and what it accepts.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct ServerSettings {
    /// Address the API listens on.
    pub listen: String,
    /// This API's address as users reach it, for links handed to Stripe (onboarding return)
    /// and the transparency log's default origin.
    pub public_url: String,
    /// `text`, or `json` for one JSON object per line; filter with `RUST_LOG`.
    pub log_format: LogFormat,
    /// Largest request body accepted, in bytes; larger ones get 413.
    pub max_body_bytes: usize,
    /// The kernel send buffer of each API connection, in bytes (0: the kernel's autotuning,
    /// megabytes on loopback): what a client that stops reading holds, and how far behind a
    /// gateway stream's reader may fall before its writes block.
    pub send_buffer_bytes: usize,
    /// Reverse proxies (addresses or CIDR ranges, comma-separated) whose `X-Forwarded-For`
    /// names the client; from anyone else the header is ignored and the peer is the client.
    pub trusted_proxies: String,
    /// IPv6 clients count by this prefix for every address-keyed budget (sign-in, live
    /// streams, the address ceiling, failed logins): one subscriber commonly holds a /64.
    /// IPv4 clients count by address.
    pub ipv6_prefix_len: u8,
}

impl Default for ServerSettings {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".to_owned(),
            public_url: "http://127.0.0.1:8080".to_owned(),
            log_format: LogFormat::Text,
            max_body_bytes: 256 * 1024,
            send_buffer_bytes: 256 * 1024,
            trusted_proxies: String::new(),
            ipv6_prefix_len: 64,
        }
    }
}

/// Where everything is stored, and how search reads it.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct DatabaseSettings {
    /// `postgres://…` or `sqlite://…` (may carry a password, so it is a secret). Unset:
    /// `sqlite://gpumarket.db?mode=rwc`, a SQLite file in the working directory, created on
    /// first start.
    #[serde(serialize_with = "redacted")]
    pub url: Option<SecretString>,
    /// Each API replica (`serve`) answers listing search from its own copy of the search
    /// projection in memory, loaded at start (search asks the database meanwhile) and kept
    /// current from the database's change feed. `false`: every search asks the database.
    pub search_in_memory: bool,
    /// The most listings (active, or holding measured cells) a replica keeps in memory for
    /// search; beyond it search asks the database. A replica grows by about 5.8 KB per
    /// listing (measured at 100,000 by `search-bench`), and about 1 KB more for each listing
    /// a search has found (its JSON, kept for the next): the default caps it near 1.7 GB.
    pub search_memory_max_listings: usize,
    /// How often a replica reads the change feed without being told of a change, in
    /// milliseconds: PostgreSQL notifies at once, so this only catches a lost notification;
    /// on SQLite it bounds how late another process's change is seen.
    pub search_memory_poll_ms: u64,
    /// Whether `serve` applies pending migrations when it starts. `false` where a release
    /// step runs `gpumarket migrate` first (Kubernetes' migration Job): replicas then never
    /// migrate, and a rolled-back binary starts on the schema the newer release left, where
    /// migrating would stop it ("this migration has been applied but its file is missing").
    pub migrate_on_start: bool,
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        Self {
            url: None,
            search_in_memory: true,
            search_memory_max_listings: 250_000,
            search_memory_poll_ms: 500,
            migrate_on_start: true,
        }
    }
}

/// The distributed shape's queue, wake-ups and shared counters. Unset `url`: all in-process (one machine).
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct RedisSettings {
    /// Set: runs are delivered by a Redis stream (consumer group `workers`) and live events
    /// wake up through Redis pub/sub, so any API replica serves any run. Unset: in-process.
    #[serde(serialize_with = "redacted")]
    pub url: Option<SecretString>,
    /// Prefix of every Redis key, so deployments can share a Redis.
    pub namespace: String,
}

impl Default for RedisSettings {
    fn default() -> Self {
        Self {
            url: None,
            namespace: "gpumarket".to_owned(),
        }
    }
}

/// Key material: every replica must share it. Each is a secret or the path of a file holding one.
#[derive(Debug, Clone, Default, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct KeySettings {
    /// HS256 key for access tokens, at least 32 bytes. Unset: generated on first start and
    /// kept in the database, so restarts and replicas share it.
    #[serde(serialize_with = "redacted")]
    pub jwt_secret: Option<SecretString>,
    /// Ed25519 PKCS#8 PEM file that signs reports. Unset: a key generated on first start and
    /// kept in the database. Changing it rotates: the new key signs, earlier keys stay
    /// published as retired.
    pub signing_key_file: Option<PathBuf>,
    /// A file holding the key (32 random bytes as 64 hex characters, `openssl rand -hex 32`)
    /// that engine API keys and the server's generated secrets are sealed with in the
    /// database (AES-256-GCM). Required with PostgreSQL (every replica must share it); on
    /// SQLite, one is generated beside the database when unset (back it up with it).
    pub secrets_key_file: Option<PathBuf>,
}

/// Sign-in, sessions and membership.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct AccountSettings {
    /// Lifetime of an access token. Short: a stolen one is useful briefly.
    pub access_token_ttl_secs: u64,
    /// Lifetime of a refresh token; each is single-use, rotated on every refresh.
    pub refresh_token_ttl_secs: u64,
    /// Password hashes computed at once (argon2id, 19 MiB each); further logins wait their
    /// turn.
    pub password_hashes_at_once: u32,
    /// How long an invitation to an organisation can be accepted.
    pub invitation_ttl_secs: u64,
    /// `required`: an account confirms its address (a mailed link) before it creates
    /// organisations, books, lists, submits runs or accepts invitations. `off`: addresses are
    /// not checked. Unset: `required` when `smtp_url` is set, else `off`.
    pub email_verification: Option<EmailVerification>,
}

impl Default for AccountSettings {
    fn default() -> Self {
        Self {
            access_token_ttl_secs: 15 * 60,
            refresh_token_ttl_secs: 30 * 24 * 3600,
            password_hashes_at_once: 4,
            invitation_ttl_secs: 7 * 24 * 3600,
            email_verification: None,
        }
    }
}

/// Mail that confirms addresses and resets passwords.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct MailSettings {
    /// The SMTP server that sends confirmation and password-reset links:
    /// `smtps://user:pass@host:465` (TLS), `smtp://user:pass@host:587?tls=required`
    /// (STARTTLS) or `smtp://host:25` (none, for a relay on the same host; a user name or
    /// password over `smtp://` to another host is refused: it would cross the network in
    /// the clear). Unset: no mail is
    /// sent, and `email_verification` defaults to `off`.
    #[serde(serialize_with = "redacted")]
    pub smtp_url: Option<SecretString>,
    /// The `From` of the mail sent.
    pub smtp_from: String,
    /// Confirmation links one address receives an hour at most (at sign-up, and when its
    /// signed-in owner asks for another), so nobody floods a mailbox through the platform;
    /// beyond, they are not sent.
    pub mails_per_address_per_hour: u32,
    /// Password-reset links one address receives an hour at most. Anyone may ask for one, so
    /// they have this budget of their own: a stranger asking for resets never uses up the
    /// mail its owner asks for while signed in.
    pub reset_mails_per_address_per_hour: u32,
}

impl Default for MailSettings {
    fn default() -> Self {
        Self {
            smtp_url: None,
            smtp_from: "gpumarket <no-reply@localhost>".to_owned(),
            mails_per_address_per_hour: 5,
            reset_mails_per_address_per_hour: 5,
        }
    }
}

/// The verification worker, badges and spot checks.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct VerificationSettings {
    /// Whether `serve` runs a verification worker itself. Unset: yes when there is no Redis.
    pub worker_in_process: Option<bool>,
    /// Where `gpumarket worker` answers its probes and metrics (`/healthz`, `/readyz`,
    /// `/metrics`), e.g. `0.0.0.0:9090`. Unset: a worker opens no port.
    pub worker_listen: Option<String>,
    /// A worker's claim on a run, renewed every third of it; a dead worker's run is taken
    /// over after it runs out.
    pub worker_lease_secs: u64,
    /// How often lost runs (queued and undelivered for 3 intervals, or on an expired lease)
    /// are dispatched again, and how often the booking sweeper runs.
    pub reconcile_interval_secs: u64,
    /// Whether listings' engines may be at internal addresses (loopback, RFC 1918,
    /// link-local, CGNAT, unique-local, multicast). Off: a listing's `engine.base_url` must
    /// be public (422 otherwise), checked when the listing is saved and again at every
    /// connection. `serve --demo` turns it on for its local simulator.
    pub engine_allow_private: bool,
    /// The longest one verification (or spot-check) run may take, from its start to its
    /// report; past it the run stops and fails with `deadline_exceeded`.
    pub verification_deadline_secs: u64,
    /// How long a badge lasts without a passing spot check.
    pub verification_ttl_secs: u64,
    /// Every period this long, each verified listing gets one unannounced spot check at a
    /// random moment.
    pub spot_check_every_secs: u64,
    /// A spot check below this fraction of the verified total tok/s, at any checked cell,
    /// demotes the listing.
    pub spot_check_min_fraction: f64,
    /// The nominal window of each decode cell of a `quick` verification, seconds (the
    /// adaptive rule ends a window from a third of it). The `standard` profile keeps the
    /// reference page's 30 s.
    pub quick_measure_secs: f64,
}

impl Default for VerificationSettings {
    fn default() -> Self {
        Self {
            worker_in_process: None,
            worker_listen: None,
            worker_lease_secs: 30,
            reconcile_interval_secs: 10,
            engine_allow_private: false,
            verification_deadline_secs: 3 * 3600,
            verification_ttl_secs: 30 * 24 * 3600,
            spot_check_every_secs: 7 * 24 * 3600,
            spot_check_min_fraction: 0.85,
            quick_measure_secs: 3.0,
        }
    }
}

/// Organisation reports and the transparency log.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct ReportSettings {
    /// An organisation report is signed again (and logged) at most this often, seconds;
    /// changes within the period show in the next snapshot.
    pub org_report_min_secs: u64,
    /// The transparency log's origin: the first line of its checkpoints and its note key's
    /// name. Unset: the host of `public_url` (with its port, when it names one) and `/log`,
    /// e.g. `127.0.0.1:8080/log`.
    pub log_origin: Option<String>,
    /// A new signed checkpoint at most this often, when the log grew.
    pub log_checkpoint_secs: u64,
}

impl Default for ReportSettings {
    fn default() -> Self {
        Self {
            org_report_min_secs: 3600,
            log_origin: None,
            log_checkpoint_secs: 10,
        }
    }
}

/// Request rates, quotas and ceilings of the free plan (Pro's are in `[pro]`).
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct LimitSettings {
    /// Whether request rates are limited (`false` for benchmarks and fuzzing;
    /// `search-bench` turns it off).
    pub rate_limits: bool,
    /// Requests a minute to the auth routes (register, login, refresh, logout), by client
    /// address.
    pub rate_limit_auth_per_minute: u32,
    /// Write requests a minute, by credential (a digest of the API key or access token),
    /// else by client address.
    pub rate_limit_writes_per_minute: u32,
    /// Read requests a minute, by credential, else by client address.
    pub rate_limit_reads_per_minute: u32,
    /// Searches (`GET /v1/listings`) a minute, by credential, else by client address.
    pub rate_limit_search_per_minute: u32,
    /// Live event streams opened a minute, by credential, else by client address.
    pub rate_limit_events_per_minute: u32,
    /// Requests a minute through one booking's gateway, by credential: the booking's stream
    /// slots bound how many run at once, this only the rate of refused or tiny requests.
    pub rate_limit_gateway_per_minute: u32,
    /// Failed logins a minute from one network (an IPv4 address, an IPv6 /64), whatever the
    /// account. (Failed logins of one account from one network back off: each failure
    /// doubles the wait, 1 s to 15 min, until a success.)
    pub failed_logins_per_address_per_minute: u32,
    /// Failed logins an hour of one account from every network together; past it only
    /// networks that signed in to the account in the last 90 days are let try (so a
    /// stranger's guessing cannot lock the owner out).
    pub login_failures_per_account_per_hour: u32,
    /// Verification runs an organisation may ask for in any 24 hours (429 `rate_limited`
    /// with `Retry-After` beyond).
    pub verification_runs_per_org_per_day: u32,
    /// Community runs one account may submit in any 24 hours (429 `rate_limited` with
    /// `Retry-After` beyond).
    pub community_runs_per_day: u32,
    /// Bookings one renter may have waiting for their payment at once.
    pub pending_bookings_per_renter: u32,
    /// Bookings one renter may hold that have not ended, in every payment mode (429
    /// `rate_limited` with `Retry-After` beyond).
    pub max_open_bookings: u32,
    /// GPU-hours one renter may hold booked ahead of now, in every payment mode; a single
    /// booking larger than this is refused as invalid.
    pub max_booked_gpu_hours: u32,
    /// Live event streams (`GET /v1/verifications/{id}/events`) one client address may hold
    /// open at once.
    pub event_streams_per_client: u32,
    /// Live event streams one server process holds open at most.
    pub event_streams_total: u32,
    /// Listings one organisation may hold that are not delisted (409
    /// `listing_quota_reached` beyond): nobody floods search, the prober and spot checks
    /// with machines.
    pub max_listings_per_org: u32,
}

impl Default for LimitSettings {
    fn default() -> Self {
        Self {
            rate_limits: true,
            rate_limit_auth_per_minute: 60,
            rate_limit_writes_per_minute: 120,
            rate_limit_reads_per_minute: 600,
            rate_limit_search_per_minute: 120,
            rate_limit_events_per_minute: 60,
            rate_limit_gateway_per_minute: 6000,
            failed_logins_per_address_per_minute: 100,
            login_failures_per_account_per_hour: 100,
            verification_runs_per_org_per_day: 50,
            community_runs_per_day: 50,
            pending_bookings_per_renter: 5,
            max_open_bookings: 5,
            max_booked_gpu_hours: 168,
            event_streams_per_client: 20,
            event_streams_total: 2000,
            max_listings_per_org: 100,
        }
    }
}

/// Stripe, the platform's fee, holds and the Pro subscription's billing.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct PaymentSettings {
    /// Stripe's secret key (`sk_…`; also `STRIPE_SECRET_KEY`). Unset: payments `none` —
    /// bookings confirm at once and the ledger records that nothing was collected.
    #[serde(serialize_with = "redacted")]
    pub stripe_secret_key: Option<SecretString>,
    /// Where Stripe's API is (also `STRIPE_API_BASE`; tests point it at a local server).
    /// Unset: Stripe's own.
    pub stripe_api_base: Option<String>,
    /// One call to Stripe longer than this (milliseconds) counts as failed.
    pub stripe_timeout_ms: u64,
    /// The webhook endpoint's signing secret (`whsec_…`; also `STRIPE_WEBHOOK_SECRET`);
    /// required with a Stripe key.
    #[serde(serialize_with = "redacted")]
    pub stripe_webhook_secret: Option<SecretString>,
    /// The platform's fee on every booking, in basis points (1000 = 10 %).
    pub platform_fee_bps: u32,
    /// How long a booking waiting for its payment holds its GPUs.
    pub booking_hold_secs: u64,
    /// The Stripe Price (`price_…`, a monthly recurring price) of the Pro plan. Unset: no
    /// checkout; every organisation stays on the free plan.
    pub stripe_pro_price_id: Option<String>,
    /// How long a Pro organisation whose payment is overdue (`past_due`) keeps Pro.
    pub billing_grace_secs: u64,
}

impl Default for PaymentSettings {
    fn default() -> Self {
        Self {
            stripe_secret_key: None,
            stripe_api_base: None,
            stripe_timeout_ms: 10_000,
            stripe_webhook_secret: None,
            platform_fee_bps: 1000,
            booking_hold_secs: 15 * 60,
            stripe_pro_price_id: None,
            billing_grace_secs: 3 * 24 * 3600,
        }
    }
}

/// The Pro plan's limits.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct ProSettings {
    /// Pro's request rates: this many times every rate-limit class of the free plan.
    pub rate_limit_scale: u32,
    /// Pro's verification runs an organisation may ask for in any 24 hours.
    pub verification_runs_per_org_per_day: u32,
    /// Pro's spot-check period: each verified listing of a Pro organisation is checked once
    /// in every period this long.
    pub spot_check_every_secs: u64,
}

impl Default for ProSettings {
    fn default() -> Self {
        Self {
            rate_limit_scale: 5,
            verification_runs_per_org_per_day: 500,
            spot_check_every_secs: 24 * 3600,
        }
    }
}

/// The metered gateway in front of booked engines.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct GatewaySettings {
    /// The largest request body the metered gateway forwards, in bytes.
    pub max_body_bytes: usize,
    /// The largest `max_tokens` a gateway request may ask for (and what one that asks none
    /// gets).
    pub max_tokens: u64,
    /// Length of the gateway's usage buckets, in which performance guarantees are judged and
    /// credited.
    pub bucket_secs: u64,
    /// How long a gateway stream's place in the shared count lasts without renewal (renewed
    /// a third of the way through): a crashed replica's streams stop counting after this.
    pub stream_lease_secs: u64,
}

impl Default for GatewaySettings {
    fn default() -> Self {
        Self {
            max_body_bytes: 1024 * 1024,
            max_tokens: 8192,
            bucket_secs: 300,
            stream_lease_secs: 10,
        }
    }
}

/// Liveness probes of listed machines, and maintenance windows.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct LivenessSettings {
    /// How often each listed machine's engine is probed (a one-token completion of its
    /// served model), jittered by a tenth either way. Probes further apart than three
    /// periods leave the time between them unknown.
    pub liveness_every_secs: u64,
    /// How long a probe waits for a valid answer before it counts the machine as down.
    pub liveness_timeout_ms: u64,
    /// A maintenance window announced at least this long before it starts is left out of
    /// uptime; announced later, its time counts as downtime.
    pub maintenance_notice_secs: u64,
    /// Each listing observed during a period this long (aligned to the Unix epoch: with the
    /// default, UTC days) gets a signed, logged statement of its uptime in it, once the period
    /// has ended.
    pub uptime_statement_secs: u64,
    /// Most probes one process has waiting for an answer at once: engines that answer slowly
    /// (up to `liveness_timeout_ms`) hold at most this many; the rest stay due and are
    /// claimed once places free up.
    pub max_probes_in_flight: u32,
}

impl Default for LivenessSettings {
    fn default() -> Self {
        Self {
            liveness_every_secs: 300,
            liveness_timeout_ms: 5_000,
            maintenance_notice_secs: 24 * 3600,
            uptime_statement_secs: 24 * 3600,
            max_probes_in_flight: 64,
        }
    }
}

impl LivenessSettings {
    fn check(&self) -> Checked {
        ensure(
            (1..=86_400).contains(&self.liveness_every_secs),
            "liveness_every_secs",
            "must be between 1 and 86400",
        )?;
        ensure(
            (100..=60_000).contains(&self.liveness_timeout_ms),
            "liveness_timeout_ms",
            "must be between 100 and 60000",
        )?;
        ensure(
            self.maintenance_notice_secs <= 30 * 86_400,
            "maintenance_notice_secs",
            "must be at most 30 days (2592000)",
        )?;
        ensure(
            (1..=86_400).contains(&self.uptime_statement_secs),
            "uptime_statement_secs",
            "must be between 1 and 86400",
        )?;
        ensure(
            (1..=10_000).contains(&self.max_probes_in_flight),
            "max_probes_in_flight",
            "must be between 1 and 10000",
        )
    }

    /// The probe period.
    pub fn period(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.liveness_every_secs)
    }

    /// How far apart observations may be for the time between them to count, and the notice
    /// a window needs to be left out of uptime.
    pub fn judging(&self) -> (chrono::Duration, chrono::Duration) {
        let period = chrono::Duration::seconds(self.liveness_every_secs as i64);
        (
            domain::uptime::gap(period),
            chrono::Duration::seconds(self.maintenance_notice_secs as i64),
        )
    }
}

/// Webhooks: how deliveries are sent and retried.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct WebhookSettings {
    /// Let endpoints be on internal addresses (loopback, private networks): for receivers
    /// on the operator's own network, and tests. Off, such URLs are refused when registered
    /// and at every connection.
    pub webhook_allow_private: bool,
    /// How long after each failed attempt the next is made, seconds (a list; in the
    /// environment, comma-separated). After the last, the delivery has failed; it can be
    /// sent again by hand.
    #[serde(deserialize_with = "seconds_list")]
    pub webhook_retry_schedule_secs: Vec<u64>,
    /// How long an attempt waits for the receiver's answer. Each attempt in a row that got
    /// no answer in time halves the endpoint's next one (four times at most, never under one
    /// second); an answer restores it.
    pub webhook_timeout_ms: u64,
    /// An endpoint all of whose deliveries have failed for this long is disabled, and its
    /// owners are told (by mail, when a mail server is configured).
    pub webhook_disable_after_secs: u64,
    /// How often workers look for events to fan out and deliveries that are due.
    pub webhook_poll_ms: u64,
    /// After a secret is rotated, deliveries are signed with the old secret too for this
    /// long, so receivers can switch over without missing one.
    pub webhook_secret_overlap_secs: u64,
    /// Most endpoints one user, or one organisation, registers.
    pub webhook_endpoints_per_owner: u32,
    /// Most sends in flight at once to one endpoint (across every worker): a receiver that
    /// never answers holds this many senders, never the others.
    pub webhook_in_flight_per_endpoint: u32,
    /// Most sends in flight at once to one owner's endpoints together; owners with
    /// deliveries due are served one at a time in turn, so one owner's backlog cannot delay
    /// another's.
    pub webhook_in_flight_per_owner: u32,
    /// Most test events and deliveries sent again by hand in flight at once per owner: they
    /// are claimed on this budget of their own, before any backlog.
    pub webhook_manual_in_flight_per_owner: u32,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        Self {
            webhook_allow_private: false,
            webhook_retry_schedule_secs: vec![5, 300, 1_800, 7_200, 18_000, 36_000, 36_000],
            webhook_timeout_ms: 10_000,
            webhook_disable_after_secs: 3 * 86_400,
            webhook_poll_ms: 1_000,
            webhook_secret_overlap_secs: 86_400,
            webhook_endpoints_per_owner: 16,
            webhook_in_flight_per_endpoint: 2,
            webhook_in_flight_per_owner: 8,
            webhook_manual_in_flight_per_owner: 2,
        }
    }
}

impl WebhookSettings {
    fn check(&self) -> Checked {
        ensure(
            self.webhook_retry_schedule_secs.len() <= 20
                && self
                    .webhook_retry_schedule_secs
                    .iter()
                    .all(|s| (1..=7 * 86_400).contains(s)),
            "webhook_retry_schedule_secs",
            "at most 20 waits, each between 1 second and 7 days (604800)",
        )?;
        ensure(
            (100..=60_000).contains(&self.webhook_timeout_ms),
            "webhook_timeout_ms",
            "must be between 100 and 60000",
        )?;
        ensure(
            self.webhook_disable_after_secs >= 60,
            "webhook_disable_after_secs",
            "must be at least 60",
        )?;
        ensure(
            (10..=60_000).contains(&self.webhook_poll_ms),
            "webhook_poll_ms",
            "must be between 10 and 60000",
        )?;
        ensure(
            self.webhook_secret_overlap_secs <= 7 * 86_400,
            "webhook_secret_overlap_secs",
            "must be at most 7 days (604800)",
        )?;
        ensure(
            (1..=1_000).contains(&self.webhook_endpoints_per_owner),
            "webhook_endpoints_per_owner",
            "must be between 1 and 1000",
        )?;
        for (value, name) in [
            (
                self.webhook_in_flight_per_endpoint,
                "webhook_in_flight_per_endpoint",
            ),
            (
                self.webhook_in_flight_per_owner,
                "webhook_in_flight_per_owner",
            ),
            (
                self.webhook_manual_in_flight_per_owner,
                "webhook_manual_in_flight_per_owner",
            ),
        ] {
            ensure(
                (1..=1_000).contains(&value),
                name,
                "must be between 1 and 1000",
            )?;
        }
        ensure(
            self.webhook_in_flight_per_endpoint <= self.webhook_in_flight_per_owner,
            "webhook_in_flight_per_endpoint",
            "must be at most webhook_in_flight_per_owner",
        )
    }

    /// The in-flight budgets deliveries are claimed under.
    pub fn claim_budget(&self) -> store::ClaimBudget {
        store::ClaimBudget {
            per_endpoint: u64::from(self.webhook_in_flight_per_endpoint),
            per_owner: u64::from(self.webhook_in_flight_per_owner),
            manual_per_owner: u64::from(self.webhook_manual_in_flight_per_owner),
        }
    }

    /// The timeout of `endpoint`'s next attempt ([`domain::webhook::attempt_timeout_ms`]).
    pub fn attempt_timeout(&self, endpoint: &store::WebhookEndpointRecord) -> u64 {
        domain::webhook::attempt_timeout_ms(
            self.webhook_timeout_ms,
            u32::try_from(endpoint.timeout_streak).unwrap_or(0),
        )
    }
}

/// A list of seconds: a list, or (as an environment variable sets it) a string of numbers
/// separated by commas or spaces.
fn seconds_list<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        List(Vec<u64>),
        One(u64),
        Text(String),
    }
    match Raw::deserialize(deserializer)? {
        Raw::List(list) => Ok(list),
        Raw::One(one) => Ok(vec![one]),
        Raw::Text(text) => text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|part| !part.is_empty())
            .map(|part| {
                part.parse().map_err(|_| {
                    serde::de::Error::custom(format!("{part:?} is not a number of seconds"))
                })
            })
            .collect(),
    }
}

/// A secret setting as it may be shown: whether it is set, never its value.
fn redacted<S: serde::Serializer>(
    value: &Option<SecretString>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(_) => serializer.serialize_str("(secret)"),
        None => serializer.serialize_none(),
    }
}

/// Whether accounts confirm their email address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EmailVerification {
    Required,
    Off,
}

/// How logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// One section of the configuration, as the reference and the environment names see it.
#[derive(Debug, Clone, Copy)]
pub struct Section {
    /// The table's name in the file: `server` for `[server]`.
    pub name: &'static str,
    /// What the section's environment names start with after `GPUMARKET_`, in lower case:
    /// `gateway_` for `[gateway] max_tokens` ↔ `GPUMARKET_GATEWAY_MAX_TOKENS`; empty when
    /// the keys are already unique (`listen` ↔ `GPUMARKET_LISTEN`).
    pub env_prefix: &'static str,
    pub docs: &'static str,
    pub keys: &'static [&'static str],
    pub key_docs: &'static [&'static str],
}

const fn section<S: Documented + DocumentedFields>(
    name: &'static str,
    env_prefix: &'static str,
) -> Section {
    Section {
        name,
        env_prefix,
        docs: S::DOCS,
        keys: S::FIELD_NAMES,
        key_docs: S::FIELD_DOCS,
    }
}

/// Every section, in the order of [`Config`]'s fields and of the reference page.
pub const SECTIONS: &[Section] = &[
    section::<ServerSettings>("server", ""),
    section::<DatabaseSettings>("database", "database_"),
    section::<RedisSettings>("redis", "redis_"),
    section::<KeySettings>("keys", ""),
    section::<AccountSettings>("accounts", ""),
    section::<MailSettings>("mail", ""),
    section::<VerificationSettings>("verification", ""),
    section::<ReportSettings>("reports", ""),
    section::<LimitSettings>("limits", ""),
    section::<PaymentSettings>("payments", ""),
    section::<ProSettings>("pro", "pro_"),
    section::<GatewaySettings>("gateway", "gateway_"),
    section::<LivenessSettings>("liveness", ""),
    section::<WebhookSettings>("webhooks", ""),
];

impl Section {
    /// A key's environment name: `GPUMARKET_` and the prefixed key in upper case.
    pub fn env_name(&self, key: &str) -> String {
        format!("GPUMARKET_{}{}", self.env_prefix, key).to_uppercase()
    }
}

/// Where a flat setting name (an environment variable's name after `GPUMARKET_`, in any case:
/// `database_url`, `GATEWAY_MAX_TOKENS`) lives in the sections: `database.url`. `None` for a
/// name that is no setting.
pub fn setting_path(flat: &str) -> Option<String> {
    let flat = flat.to_ascii_lowercase();
    SECTIONS.iter().find_map(|section| {
        let key = flat.strip_prefix(section.env_prefix)?;
        section
            .keys
            .contains(&key)
            .then(|| format!("{}.{key}", section.name))
    })
}

impl Config {
    pub fn database_url(&self) -> &str {
        self.database
            .url
            .as_ref()
            .map_or(DEFAULT_DATABASE_URL, |url| url.expose_secret())
    }

    /// Whether accounts must confirm their address: as configured, else when mail is set up.
    pub fn email_verification_required(&self) -> bool {
        match self.accounts.email_verification {
            Some(EmailVerification::Required) => true,
            Some(EmailVerification::Off) => false,
            None => self.mail.smtp_url.is_some(),
        }
    }

    pub fn redis_url(&self) -> Option<&str> {
        self.redis.url.as_ref().map(|url| url.expose_secret())
    }

    /// Whether `serve` runs a worker itself.
    pub fn runs_worker_in_process(&self) -> bool {
        self.verification
            .worker_in_process
            .unwrap_or(self.redis.url.is_none())
    }

    /// Checks the rules serde cannot express, section by section; the message names the
    /// setting as the file and the environment spell it:
    /// `[keys] jwt_secret (GPUMARKET_JWT_SECRET): must be at least 32 bytes`.
    pub fn validate(&self) -> Result<(), String> {
        // `[limits]` has no rule serde cannot express.
        let checks: [(&str, Checked); 13] = [
            ("server", self.server.check()),
            ("database", self.database.check()),
            ("redis", self.redis.check()),
            ("keys", self.keys.check()),
            ("accounts", self.accounts.check()),
            ("mail", self.mail.check()),
            ("verification", self.verification.check()),
            ("reports", self.reports.check()),
            ("payments", self.payments.check()),
            ("pro", self.pro.check()),
            ("gateway", self.gateway.check()),
            ("liveness", self.liveness.check()),
            ("webhooks", self.webhooks.check()),
        ];
        for (name, checked) in checks {
            if let Err((key, why)) = checked {
                return Err(named(name, key, &why));
            }
        }
        if self.accounts.email_verification == Some(EmailVerification::Required)
            && self.mail.smtp_url.is_none()
        {
            return Err(named(
                "accounts",
                "email_verification",
                "`required` needs [mail] smtp_url: the links are mailed",
            ));
        }
        Ok(())
    }
}

/// What a section's check finds wrong: the key and why.
type Checked = Result<(), (&'static str, String)>;

/// `Err((key, why))` unless `ok`.
fn ensure(ok: bool, key: &'static str, why: impl Into<String>) -> Checked {
    if ok { Ok(()) } else { Err((key, why.into())) }
}

/// A setting named as the file and the environment spell it.
fn named(section: &str, key: &str, why: &str) -> String {
    let env = SECTIONS
        .iter()
        .find(|s| s.name == section)
        .map_or_else(String::new, |s| format!(" ({})", s.env_name(key)));
    format!("[{section}] {key}{env}: {why}")
}

impl ServerSettings {
    fn check(&self) -> Checked {
        ensure(
            self.listen.parse::<std::net::SocketAddr>().is_ok(),
            "listen",
            format!("{:?} is not an address like 127.0.0.1:8080", self.listen),
        )?;
        ensure(
            self.max_body_bytes >= 1024,
            "max_body_bytes",
            "must be at least 1024",
        )?;
        ensure(
            self.public_url.starts_with("http://") || self.public_url.starts_with("https://"),
            "public_url",
            "must be an http:// or https:// URL",
        )?;
        ensure(
            (32..=128).contains(&self.ipv6_prefix_len),
            "ipv6_prefix_len",
            "must be between 32 and 128",
        )?;
        ensure(
            self.send_buffer_bytes == 0 || self.send_buffer_bytes >= 4096,
            "send_buffer_bytes",
            "must be 0 (the kernel's autotuning) or at least 4096",
        )
    }
}

impl DatabaseSettings {
    fn check(&self) -> Checked {
        let url = self
            .url
            .as_ref()
            .map_or(DEFAULT_DATABASE_URL, |url| url.expose_secret());
        ensure(
            ["postgres://", "postgresql://", "sqlite:"]
                .iter()
                .any(|scheme| url.starts_with(scheme)),
            "url",
            "must start with postgres://, postgresql:// or sqlite:",
        )?;
        ensure(
            (10..=60_000).contains(&self.search_memory_poll_ms),
            "search_memory_poll_ms",
            "must be between 10 and 60000",
        )
    }
}

impl RedisSettings {
    fn check(&self) -> Checked {
        if let Some(url) = &self.url {
            let url = url.expose_secret();
            ensure(
                url.starts_with("redis://") || url.starts_with("rediss://"),
                "url",
                "must start with redis:// or rediss://",
            )?;
        }
        ensure(
            !self.namespace.is_empty()
                && self
                    .namespace
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
            "namespace",
            "letters, digits, - _ . only",
        )
    }
}

impl KeySettings {
    fn check(&self) -> Checked {
        ensure(
            self.jwt_secret
                .as_ref()
                .is_none_or(|secret| secret.expose_secret().len() >= 32),
            "jwt_secret",
            "must be at least 32 bytes",
        )
    }
}

impl AccountSettings {
    fn check(&self) -> Checked {
        ensure(
            (1..=24 * 3600).contains(&self.access_token_ttl_secs),
            "access_token_ttl_secs",
            "must be between 1 and 86400",
        )?;
        ensure(
            self.refresh_token_ttl_secs >= self.access_token_ttl_secs,
            "refresh_token_ttl_secs",
            "must not be shorter than access_token_ttl_secs",
        )
    }
}

impl MailSettings {
    fn check(&self) -> Checked {
        ensure(
            self.smtp_from.parse::<lettre::message::Mailbox>().is_ok(),
            "smtp_from",
            "must be a mailbox, e.g. `gpumarket <no-reply@example.com>`",
        )?;
        ensure(
            self.smtp_url
                .as_ref()
                .is_none_or(|url| !plain_credentials_leave_the_host(url.expose_secret())),
            "smtp_url",
            "credentials for a server on another host need TLS: `smtps://…` or \
             `smtp://…?tls=required`",
        )
    }
}

/// Whether an SMTP URL sends a user name or password in the clear (`smtp://` without
/// `tls=required`) to a host other than this machine's loopback.
fn plain_credentials_leave_the_host(smtp_url: &str) -> bool {
    let Ok(url) = url::Url::parse(smtp_url) else {
        return false;
    };
    let credentials = !url.username().is_empty() || url.password().is_some();
    let tls = url.scheme() == "smtps"
        || url
            .query_pairs()
            .any(|(key, value)| key == "tls" && value == "required");
    // `smtp:` is not a special scheme: its host is kept as written, an address included.
    let loopback = match url.host() {
        Some(url::Host::Domain(name)) => {
            name.eq_ignore_ascii_case("localhost")
                || name
                    .trim_matches(|c| c == '[' || c == ']')
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    credentials && !tls && !loopback
}

impl VerificationSettings {
    /// The harness parameters of a run of `profile`: `standard`, else `quick` with its
    /// window from `quick_measure_secs`.
    pub fn params(&self, profile: &str) -> bench::Parameters {
        match profile {
            "standard" => bench::params::standard(),
            _ => bench::Parameters {
                measure_secs: self.quick_measure_secs,
                ..bench::params::quick()
            },
        }
    }

    fn check(&self) -> Checked {
        if let Some(listen) = &self.worker_listen {
            ensure(
                listen.parse::<std::net::SocketAddr>().is_ok(),
                "worker_listen",
                format!("{listen:?} is not an address like 0.0.0.0:9090"),
            )?;
        }
        ensure(
            self.worker_lease_secs >= 3,
            "worker_lease_secs",
            "must be at least 3",
        )?;
        ensure(
            self.reconcile_interval_secs >= 1,
            "reconcile_interval_secs",
            "must be at least 1",
        )?;
        ensure(
            self.verification_deadline_secs >= 60,
            "verification_deadline_secs",
            "must be at least 60",
        )?;
        ensure(
            self.verification_ttl_secs >= 1,
            "verification_ttl_secs",
            "must be at least 1",
        )?;
        ensure(
            self.spot_check_every_secs >= 1,
            "spot_check_every_secs",
            "must be at least 1",
        )?;
        ensure(
            self.spot_check_min_fraction > 0.0 && self.spot_check_min_fraction <= 1.0,
            "spot_check_min_fraction",
            "must be in (0, 1]",
        )?;
        ensure(
            (0.5..=60.0).contains(&self.quick_measure_secs),
            "quick_measure_secs",
            "must be between 0.5 and 60",
        )
    }
}

impl ReportSettings {
    fn check(&self) -> Checked {
        ensure(
            self.log_origin.as_ref().is_none_or(|origin| {
                !origin.is_empty() && !origin.chars().any(|c| c.is_whitespace() || c == '+')
            }),
            "log_origin",
            "must be non-empty, without spaces or `+`",
        )?;
        ensure(
            self.log_checkpoint_secs >= 1,
            "log_checkpoint_secs",
            "must be at least 1",
        )
    }
}

impl PaymentSettings {
    fn check(&self) -> Checked {
        ensure(
            self.stripe_secret_key
                .as_ref()
                .is_none_or(|key| key.expose_secret().starts_with("sk_")),
            "stripe_secret_key",
            "must be a secret key (sk_…)",
        )?;
        ensure(
            self.stripe_secret_key.is_none() || self.stripe_webhook_secret.is_some(),
            "stripe_webhook_secret",
            "required with stripe_secret_key (webhooks confirm payments)",
        )?;
        ensure(
            self.stripe_pro_price_id
                .as_ref()
                .is_none_or(|price| price.starts_with("price_")),
            "stripe_pro_price_id",
            "must be a Stripe Price id (price_…)",
        )?;
        ensure(
            self.platform_fee_bps <= 10_000,
            "platform_fee_bps",
            "must be between 0 and 10000",
        )?;
        ensure(
            self.booking_hold_secs >= 60,
            "booking_hold_secs",
            "must be at least 60",
        )
    }
}

impl ProSettings {
    fn check(&self) -> Checked {
        ensure(
            self.rate_limit_scale >= 1,
            "rate_limit_scale",
            "must be at least 1",
        )?;
        ensure(
            self.spot_check_every_secs >= 1,
            "spot_check_every_secs",
            "must be at least 1",
        )
    }
}

impl GatewaySettings {
    fn check(&self) -> Checked {
        ensure(
            (3..=3600).contains(&self.stream_lease_secs),
            "stream_lease_secs",
            "must be between 3 and 3600",
        )?;
        ensure(
            (1..=86_400).contains(&self.bucket_secs),
            "bucket_secs",
            "must be between 1 and 86400",
        )
    }
}

/// Where the configuration reference lives in the repository.
pub const REFERENCE_PAGE: &str = "docs/src/configuration.md";

impl Config {
    /// The configuration reference, `docs/src/configuration.md`: this type's own doc comment,
    /// then a table a section — each key, its environment name, its default and its field's
    /// doc comment, kept at run time by the `documented` derive. `gpumarket config
    /// --markdown` prints it.
    pub fn reference_markdown() -> String {
        let defaults = serde_json::to_value(Self::default()).unwrap_or_default();
        let mut page = format!(
            "# Configuration\n\n\
             <!-- Generated by `gpumarket config --markdown` from the doc comments of `app::Config`\n\
             (crates/app/src/config.rs): edit those, then run\n\
             `cargo run -- config --markdown > {REFERENCE_PAGE}`. CI fails when this page differs. -->\n\n\
             {}\n",
            Self::DOCS
        );
        for section in SECTIONS {
            page.push_str(&format!(
                "\n## `[{}]`\n\n{}\n\n| key | environment | default | meaning |\n|---|---|---|---|\n",
                section.name,
                one_paragraph(section.docs)
            ));
            for (key, doc) in section.keys.iter().zip(section.key_docs) {
                let default = shown_default(key, defaults[section.name].get(*key));
                page.push_str(&format!(
                    "| `{key}` | `{}` | {default} | {} |\n",
                    section.env_name(key),
                    one_paragraph(doc).replace('|', "\\|")
                ));
            }
        }
        page
    }
}

/// A doc comment's lines as one paragraph.
fn one_paragraph(doc: &str) -> String {
    doc.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A default as the reference shows it: unset, or the value, with durations and sizes also
/// in words.
fn shown_default(key: &str, value: Option<&serde_json::Value>) -> String {
    use serde_json::Value;
    let Some(value) = value else {
        return "unset".to_owned();
    };
    let text = match value {
        Value::Null => return "unset".to_owned(),
        Value::String(s) if s.is_empty() => return "empty".to_owned(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let Some(n) = value.as_u64().filter(|n| *n > 0) else {
        return format!("`{text}`");
    };
    let plural = |n: u64, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    let words = if key.ends_with("_secs") {
        [(86_400, "day"), (3600, "hour"), (60, "minute")]
            .into_iter()
            .find(|(unit, _)| n >= *unit && n % unit == 0)
            .map(|(unit, name)| plural(n / unit, name))
    } else if key.ends_with("_bytes") {
        [(1 << 20, "MiB"), (1 << 10, "KiB")]
            .into_iter()
            .find(|(unit, _)| n >= *unit && n % unit == 0)
            .map(|(unit, name)| format!("{} {name}", n / unit))
    } else {
        None
    };
    match words {
        Some(words) => format!("`{text}` ({words})"),
        None => format!("`{text}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtp_credentials_never_cross_the_network_in_the_clear() {
        for clear in [
            "smtp://user:pass@mail.example.com:587",
            "smtp://user@10.0.0.5:25",
            "smtp://user:pass@mail.example.com:587?tls=opportunistic",
        ] {
            assert!(plain_credentials_leave_the_host(clear), "{clear}");
        }
        for fine in [
            "smtps://user:pass@mail.example.com:465",
            "smtp://user:pass@mail.example.com:587?tls=required",
            "smtp://user:pass@127.0.0.1:25",
            "smtp://user:pass@localhost:25",
            "smtp://user:pass@[::1]:25",
            "smtp://mail.example.com:25",
        ] {
            assert!(!plain_credentials_leave_the_host(fine), "{fine}");
        }
    }

    #[test]
    fn defaults_are_embedded_and_valid() {
        let config = Config::default();
        assert_eq!(config.database_url(), DEFAULT_DATABASE_URL);
        assert!(config.redis_url().is_none());
        config.validate().unwrap();
    }

    #[test]
    fn unknown_keys_are_refused_by_name() {
        let err =
            serde_json::from_str::<Config>(r#"{"server": {"lisen": "0.0.0.0:1"}}"#).unwrap_err();
        assert!(err.to_string().contains("lisen"), "{err}");
        let err = serde_json::from_str::<Config>(r#"{"sever": {}}"#).unwrap_err();
        assert!(err.to_string().contains("sever"), "{err}");
    }

    #[test]
    fn bad_values_name_the_setting_as_the_file_and_the_environment_spell_it() {
        let config: Config = serde_json::from_str(r#"{"keys": {"jwt_secret": "short"}}"#).unwrap();
        assert_eq!(
            config.validate().unwrap_err(),
            "[keys] jwt_secret (GPUMARKET_JWT_SECRET): must be at least 32 bytes"
        );
        for (json, named) in [
            (
                r#"{"database": {"url": "mysql://x"}}"#,
                "[database] url (GPUMARKET_DATABASE_URL):",
            ),
            (r#"{"server": {"listen": "everywhere"}}"#, "[server] listen"),
            (
                r#"{"verification": {"worker_listen": "nowhere"}}"#,
                "[verification] worker_listen (GPUMARKET_WORKER_LISTEN):",
            ),
            (
                r#"{"gateway": {"bucket_secs": 0}}"#,
                "[gateway] bucket_secs (GPUMARKET_GATEWAY_BUCKET_SECS):",
            ),
            (
                r#"{"accounts": {"email_verification": "required"}}"#,
                "[accounts] email_verification",
            ),
        ] {
            let config: Config = serde_json::from_str(json).unwrap();
            let message = config.validate().unwrap_err();
            assert!(message.starts_with(named), "{json}: {message}");
        }
    }

    #[test]
    fn every_flat_name_finds_its_one_place() {
        let mut names = std::collections::BTreeSet::new();
        for section in SECTIONS {
            for key in section.keys {
                let env = section.env_name(key);
                assert!(names.insert(env.clone()), "{env} names two settings");
                let flat = env.trim_start_matches("GPUMARKET_");
                assert_eq!(
                    setting_path(flat).as_deref(),
                    Some(format!("{}.{key}", section.name).as_str()),
                    "{env}"
                );
            }
        }
        // The names the contract fixes, and a few of each kind.
        for (flat, path) in [
            ("DATABASE_URL", "database.url"),
            ("REDIS_URL", "redis.url"),
            ("LISTEN", "server.listen"),
            ("JWT_SECRET", "keys.jwt_secret"),
            ("SIGNING_KEY_FILE", "keys.signing_key_file"),
            ("PLATFORM_FEE_BPS", "payments.platform_fee_bps"),
            ("stripe_secret_key", "payments.stripe_secret_key"),
            ("ENGINE_ALLOW_PRIVATE", "verification.engine_allow_private"),
            ("LOG_ORIGIN", "reports.log_origin"),
            ("GATEWAY_MAX_TOKENS", "gateway.max_tokens"),
            ("PRO_SPOT_CHECK_EVERY_SECS", "pro.spot_check_every_secs"),
            (
                "RATE_LIMIT_READS_PER_MINUTE",
                "limits.rate_limit_reads_per_minute",
            ),
        ] {
            assert_eq!(setting_path(flat).as_deref(), Some(path), "{flat}");
        }
        assert_eq!(setting_path("listn"), None);
        assert_eq!(setting_path("gateway_"), None);
        // Every section is listed, in the order of the fields.
        let shown = serde_json::to_value(Config::default()).unwrap();
        let tables: Vec<&str> = shown
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut listed: Vec<&str> = SECTIONS.iter().map(|s| s.name).collect();
        listed.sort_unstable();
        let mut tables = tables;
        tables.sort_unstable();
        assert_eq!(tables, listed);
    }

    #[test]
    fn every_setting_is_documented_with_its_default() {
        let page = Config::reference_markdown();
        for section in SECTIONS {
            assert!(page.contains(&format!("## `[{}]`", section.name)));
            for key in section.keys {
                assert!(
                    page.contains(&format!("| `{key}` | `{}` |", section.env_name(key))),
                    "{key}"
                );
            }
        }
        assert!(page.contains(&format!("Unset: `{DEFAULT_DATABASE_URL}`")));
        assert!(
            page.contains("| `listen` | `GPUMARKET_LISTEN` | `127.0.0.1:8080` |"),
            "{page}"
        );
        assert!(page.contains(
            "| `verification_ttl_secs` | `GPUMARKET_VERIFICATION_TTL_SECS` | `2592000` (30 days) |"
        ));
        assert!(page.contains(
            "| `max_body_bytes` | `GPUMARKET_GATEWAY_MAX_BODY_BYTES` | `1048576` (1 MiB) |"
        ));
        assert!(page.contains("| `jwt_secret` | `GPUMARKET_JWT_SECRET` | unset |"));
    }

    #[test]
    fn secrets_do_not_print() {
        let config: Config = serde_json::from_str(
            r#"{"keys": {"jwt_secret": "0123456789abcdef0123456789abcdef-secret"}, "database": {"url": "postgres://u:hunter2@h/db"}}"#,
        )
        .unwrap();
        let printed = format!("{config:?}");
        assert!(!printed.contains("hunter2"), "{printed}");
        assert!(!printed.contains("-secret"), "{printed}");
        let shown = serde_json::to_string(&config).unwrap();
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(!shown.contains("-secret"), "{shown}");
    }
}
