//! The server's settings. Loading (defaults, then a file, then `GPUMARKET_*` variables) is
//! the binary's job; this is the shape and its rules. Unknown keys are refused by name, and
//! secrets are [`SecretString`]s that never print.

use std::path::PathBuf;

use documented::{Documented, DocumentedFields};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

/// The database used when none is configured: a SQLite file in the working directory,
/// created on first start.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://gpumarket.db?mode=rwc";

/// `GPUMARKET_*` variables that are not the server's settings, so `serve` ignores them
/// instead of refusing them as unknown keys: the configuration file's own path, the engine's
/// and the submitter's keys of `bench` and `sim`, the command line's server and token, and
/// what the project's scripts and tests read (`scripts/check` documents them).
pub const NOT_SETTINGS: &[&str] = &[
    "config",
    "engine_api_key",
    "submit_key",
    "sim_api_key",
    "url",
    "token",
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
/// `GPUMARKET_CONFIG=FILE`), then `GPUMARKET_*` environment variables: the key in upper
/// case, `database_url` ↔ `GPUMARKET_DATABASE_URL`. An unknown key — in the file or in a
/// `GPUMARKET_*` variable — stops the start with an error naming it. Secrets never appear in
/// logs or errors.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Address the API listens on.
    pub listen: String,
    /// `postgres://…` or `sqlite://…` (may carry a password, so it is a secret). Unset:
    /// `sqlite://gpumarket.db?mode=rwc`, a SQLite file in the working directory, created on
    /// first start.
    #[serde(serialize_with = "redacted")]
    pub database_url: Option<SecretString>,
    /// Set: runs are delivered by a Redis stream (consumer group `workers`) and live events
    /// wake up through Redis pub/sub, so any API replica serves any run. Unset: in-process.
    #[serde(serialize_with = "redacted")]
    pub redis_url: Option<SecretString>,
    /// Prefix of every Redis key, so deployments can share a Redis.
    pub redis_namespace: String,
    /// HS256 key for access tokens, at least 32 bytes. Unset: generated on first start and
    /// kept in the database, so restarts and replicas share it.
    #[serde(serialize_with = "redacted")]
    pub jwt_secret: Option<SecretString>,
    /// Ed25519 PKCS#8 PEM file that signs reports. Unset: a key generated on first start and
    /// kept in the database. Changing it rotates: the new key signs, earlier keys stay
    /// published as retired.
    pub signing_key_file: Option<PathBuf>,
    /// Whether `serve` runs a verification worker itself. Unset: yes when there is no Redis.
    pub worker_in_process: Option<bool>,
    /// A worker's claim on a run, renewed every third of it; a dead worker's run is taken
    /// over after it runs out.
    pub worker_lease_secs: u64,
    /// How often lost runs (queued and undelivered for 3 intervals, or on an expired lease)
    /// are dispatched again, and how often the booking sweeper runs.
    pub reconcile_interval_secs: u64,
    /// `text`, or `json` for one JSON object per line; filter with `RUST_LOG`.
    pub log_format: LogFormat,
    /// Lifetime of an access token. Short: a stolen one is useful briefly.
    pub access_token_ttl_secs: u64,
    /// Lifetime of a refresh token; each is single-use, rotated on every refresh.
    pub refresh_token_ttl_secs: u64,
    /// Largest request body accepted, in bytes; larger ones get 413.
    pub max_body_bytes: usize,
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
    /// This API's address as users reach it, for links handed to Stripe (onboarding return)
    /// and the transparency log's default origin.
    pub public_url: String,
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
    /// Verification runs an organisation may ask for in any 24 hours (429 `rate_limited`
    /// with `Retry-After` beyond).
    pub verification_runs_per_org_per_day: u32,
    /// Bookings one renter may have waiting for their payment at once.
    pub pending_bookings_per_renter: u32,
    /// An organisation report is signed again (and logged) at most this often, seconds;
    /// changes within the period show in the next snapshot.
    pub org_report_min_secs: u64,
    /// IPv6 clients count by this prefix for every address-keyed budget (sign-in, live
    /// streams, the address ceiling, failed logins): one subscriber commonly holds a /64.
    /// IPv4 clients count by address.
    pub ipv6_prefix_len: u8,
    /// Community runs one account may submit in any 24 hours (429 `rate_limited` with
    /// `Retry-After` beyond).
    pub community_runs_per_day: u32,
    /// A file holding the key (32 random bytes as 64 hex characters, `openssl rand -hex 32`)
    /// that engine API keys and the server's generated secrets are sealed with in the
    /// database (AES-256-GCM). Required with PostgreSQL (every replica must share it); on
    /// SQLite, one is generated beside the database when unset (back it up with it).
    pub secrets_key_file: Option<PathBuf>,
    /// The SMTP server that sends confirmation and password-reset links:
    /// `smtps://user:pass@host:465` (TLS), `smtp://user:pass@host:587?tls=required`
    /// (STARTTLS) or `smtp://host:25` (none, for a relay on the same host). Unset: no mail is
    /// sent, and `email_verification` defaults to `off`.
    #[serde(serialize_with = "redacted")]
    pub smtp_url: Option<SecretString>,
    /// The `From` of the mail sent.
    pub smtp_from: String,
    /// Mails (confirmation and reset links) one address receives an hour at most, so nobody
    /// floods a mailbox through the platform; beyond, they are not sent.
    pub mails_per_address_per_hour: u32,
    /// `required`: an account confirms its address (a mailed link) before it creates
    /// organisations, books, lists, submits runs or accepts invitations. `off`: addresses are
    /// not checked. Unset: `required` when `smtp_url` is set, else `off`.
    pub email_verification: Option<EmailVerification>,
    /// Bookings one renter may hold that have not ended, in every payment mode (429
    /// `rate_limited` with `Retry-After` beyond).
    pub max_open_bookings: u32,
    /// GPU-hours one renter may hold booked ahead of now, in every payment mode; a single
    /// booking larger than this is refused as invalid.
    pub max_booked_gpu_hours: u32,
    /// Password hashes computed at once (argon2id, 19 MiB each); further logins wait their
    /// turn.
    pub password_hashes_at_once: u32,
    /// Live event streams (`GET /v1/verifications/{id}/events`) one client address may hold
    /// open at once.
    pub event_streams_per_client: u32,
    /// Live event streams one server process holds open at most.
    pub event_streams_total: u32,
    /// Reverse proxies (addresses or CIDR ranges, comma-separated) whose `X-Forwarded-For`
    /// names the client; from anyone else the header is ignored and the peer is the client.
    pub trusted_proxies: String,
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
    /// How long an invitation to an organisation can be accepted.
    pub invitation_ttl_secs: u64,
    /// The transparency log's origin: the first line of its checkpoints and its note key's
    /// name. Unset: the host of `public_url` (with its port, when it names one) and `/log`,
    /// e.g. `127.0.0.1:8080/log`.
    pub log_origin: Option<String>,
    /// A new signed checkpoint at most this often, when the log grew.
    pub log_checkpoint_secs: u64,
    /// The Stripe Price (`price_…`, a monthly recurring price) of the Pro plan. Unset: no
    /// checkout; every organisation stays on the free plan.
    pub stripe_pro_price_id: Option<String>,
    /// How long a Pro organisation whose payment is overdue (`past_due`) keeps Pro.
    pub billing_grace_secs: u64,
    /// Pro's request rates: this many times every rate-limit class of the free plan.
    pub pro_rate_limit_scale: u32,
    /// Pro's verification runs an organisation may ask for in any 24 hours.
    pub pro_verification_runs_per_org_per_day: u32,
    /// Pro's spot-check period: each verified listing of a Pro organisation is checked once
    /// in every period this long.
    pub pro_spot_check_every_secs: u64,
    /// The largest request body the metered gateway forwards, in bytes.
    pub gateway_max_body_bytes: usize,
    /// The largest `max_tokens` a gateway request may ask for (and what one that asks none
    /// gets).
    pub gateway_max_tokens: u64,
    /// Length of the gateway's usage buckets, in which performance guarantees are judged and
    /// credited.
    pub gateway_bucket_secs: u64,
    /// How long a gateway stream's place in the shared count lasts without renewal (renewed
    /// a third of the way through): a crashed replica's streams stop counting after this.
    pub gateway_stream_lease_secs: u64,
    /// The kernel send buffer of each API connection, in bytes (0: the kernel's autotuning,
    /// megabytes on loopback): what a client that stops reading holds, and how far behind a
    /// gateway stream's reader may fall before its writes block.
    pub send_buffer_bytes: usize,
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

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".to_owned(),
            database_url: None,
            redis_url: None,
            redis_namespace: "gpumarket".to_owned(),
            jwt_secret: None,
            signing_key_file: None,
            worker_in_process: None,
            worker_lease_secs: 30,
            reconcile_interval_secs: 10,
            log_format: LogFormat::Text,
            access_token_ttl_secs: 15 * 60,
            refresh_token_ttl_secs: 30 * 24 * 3600,
            max_body_bytes: 256 * 1024,
            stripe_secret_key: None,
            stripe_api_base: None,
            stripe_timeout_ms: 10_000,
            stripe_webhook_secret: None,
            platform_fee_bps: 1000,
            booking_hold_secs: 15 * 60,
            public_url: "http://127.0.0.1:8080".to_owned(),
            engine_allow_private: false,
            verification_deadline_secs: 3 * 3600,
            verification_ttl_secs: 30 * 24 * 3600,
            spot_check_every_secs: 7 * 24 * 3600,
            spot_check_min_fraction: 0.85,
            verification_runs_per_org_per_day: 50,
            pending_bookings_per_renter: 5,
            max_open_bookings: 5,
            smtp_url: None,
            smtp_from: "gpumarket <no-reply@localhost>".to_owned(),
            mails_per_address_per_hour: 5,
            email_verification: None,
            secrets_key_file: None,
            community_runs_per_day: 50,
            ipv6_prefix_len: 64,
            org_report_min_secs: 3600,
            max_booked_gpu_hours: 168,
            password_hashes_at_once: 4,
            event_streams_per_client: 20,
            event_streams_total: 2000,
            trusted_proxies: String::new(),
            rate_limits: true,
            log_origin: None,
            log_checkpoint_secs: 10,
            rate_limit_auth_per_minute: 60,
            rate_limit_writes_per_minute: 120,
            rate_limit_reads_per_minute: 600,
            rate_limit_search_per_minute: 120,
            rate_limit_events_per_minute: 60,
            rate_limit_gateway_per_minute: 6000,
            failed_logins_per_address_per_minute: 100,
            login_failures_per_account_per_hour: 100,
            invitation_ttl_secs: 7 * 24 * 3600,
            stripe_pro_price_id: None,
            billing_grace_secs: 3 * 24 * 3600,
            pro_rate_limit_scale: 5,
            pro_verification_runs_per_org_per_day: 500,
            pro_spot_check_every_secs: 24 * 3600,
            gateway_max_body_bytes: 1024 * 1024,
            gateway_max_tokens: 8192,
            gateway_bucket_secs: 300,
            gateway_stream_lease_secs: 10,
            send_buffer_bytes: 256 * 1024,
        }
    }
}

impl Config {
    pub fn database_url(&self) -> &str {
        self.database_url
            .as_ref()
            .map_or(DEFAULT_DATABASE_URL, |url| url.expose_secret())
    }

    /// Whether accounts must confirm their address: as configured, else when mail is set up.
    pub fn email_verification_required(&self) -> bool {
        match self.email_verification {
            Some(EmailVerification::Required) => true,
            Some(EmailVerification::Off) => false,
            None => self.smtp_url.is_some(),
        }
    }

    pub fn redis_url(&self) -> Option<&str> {
        self.redis_url.as_ref().map(|url| url.expose_secret())
    }

    /// Whether `serve` runs a worker itself.
    pub fn runs_worker_in_process(&self) -> bool {
        self.worker_in_process.unwrap_or(self.redis_url.is_none())
    }

    /// Checks the rules serde cannot express; the message names the setting.
    pub fn validate(&self) -> Result<(), String> {
        if self.listen.parse::<std::net::SocketAddr>().is_err() {
            return Err(format!(
                "listen: {:?} is not an address like 127.0.0.1:8080",
                self.listen
            ));
        }
        let url = self.database_url();
        if !(url.starts_with("postgres://")
            || url.starts_with("postgresql://")
            || url.starts_with("sqlite:"))
        {
            return Err(
                "database_url: must start with postgres://, postgresql:// or sqlite:".into(),
            );
        }
        if let Some(url) = self.redis_url()
            && !(url.starts_with("redis://") || url.starts_with("rediss://"))
        {
            return Err("redis_url: must start with redis:// or rediss://".into());
        }
        if let Some(secret) = &self.jwt_secret
            && secret.expose_secret().len() < 32
        {
            return Err("jwt_secret: must be at least 32 bytes".into());
        }
        if self.access_token_ttl_secs == 0 || self.access_token_ttl_secs > 24 * 3600 {
            return Err("access_token_ttl_secs: must be between 1 and 86400".into());
        }
        if self.refresh_token_ttl_secs < self.access_token_ttl_secs {
            return Err(
                "refresh_token_ttl_secs: must not be shorter than access_token_ttl_secs".into(),
            );
        }
        if self.redis_namespace.is_empty()
            || !self
                .redis_namespace
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return Err("redis_namespace: letters, digits, - _ . only".into());
        }
        if self.worker_lease_secs < 3 {
            return Err("worker_lease_secs: must be at least 3".into());
        }
        if self.verification_ttl_secs == 0 || self.spot_check_every_secs == 0 {
            return Err(
                "verification_ttl_secs and spot_check_every_secs: must be at least 1".into(),
            );
        }
        if !(self.spot_check_min_fraction > 0.0 && self.spot_check_min_fraction <= 1.0) {
            return Err("spot_check_min_fraction: must be in (0, 1]".into());
        }
        if self.verification_deadline_secs < 60 {
            return Err("verification_deadline_secs: must be at least 60".into());
        }
        if self.reconcile_interval_secs == 0 {
            return Err("reconcile_interval_secs: must be at least 1".into());
        }
        if self.max_body_bytes < 1024 {
            return Err("max_body_bytes: must be at least 1024".into());
        }
        if let Some(key) = &self.stripe_secret_key
            && !key.expose_secret().starts_with("sk_")
        {
            return Err("stripe_secret_key: must be a secret key (sk_…)".into());
        }
        if self.stripe_secret_key.is_some() && self.stripe_webhook_secret.is_none() {
            return Err(
                "stripe_webhook_secret: required with stripe_secret_key (webhooks confirm payments)"
                    .into(),
            );
        }
        if let Some(price) = &self.stripe_pro_price_id
            && !price.starts_with("price_")
        {
            return Err("stripe_pro_price_id: must be a Stripe Price id (price_…)".into());
        }
        if self.pro_rate_limit_scale == 0 || self.pro_spot_check_every_secs == 0 {
            return Err(
                "pro_rate_limit_scale and pro_spot_check_every_secs: must be at least 1".into(),
            );
        }
        if self.platform_fee_bps > 10_000 {
            return Err("platform_fee_bps: must be between 0 and 10000".into());
        }
        if self.booking_hold_secs < 60 {
            return Err("booking_hold_secs: must be at least 60".into());
        }
        if !(self.public_url.starts_with("http://") || self.public_url.starts_with("https://")) {
            return Err("public_url: must be an http:// or https:// URL".into());
        }
        if let Some(origin) = &self.log_origin
            && (origin.is_empty() || origin.chars().any(|c| c.is_whitespace() || c == '+'))
        {
            return Err("log_origin: must be non-empty, without spaces or `+`".into());
        }
        if self.log_checkpoint_secs == 0 {
            return Err("log_checkpoint_secs: must be at least 1".into());
        }
        if self.email_verification == Some(EmailVerification::Required) && self.smtp_url.is_none() {
            return Err(
                "email_verification = \"required\" needs smtp_url: the links are mailed".into(),
            );
        }
        if self.smtp_from.parse::<lettre::message::Mailbox>().is_err() {
            return Err(
                "smtp_from: must be a mailbox, e.g. `gpumarket <no-reply@example.com>`".into(),
            );
        }
        if !(32..=128).contains(&self.ipv6_prefix_len) {
            return Err("ipv6_prefix_len: must be between 32 and 128".into());
        }
        if !(3..=3600).contains(&self.gateway_stream_lease_secs) {
            return Err("gateway_stream_lease_secs: must be between 3 and 3600".into());
        }
        if !(1..=86_400).contains(&self.gateway_bucket_secs) {
            return Err("gateway_bucket_secs: must be between 1 and 86400".into());
        }
        if self.send_buffer_bytes != 0 && self.send_buffer_bytes < 4096 {
            return Err(
                "send_buffer_bytes: must be 0 (the kernel's autotuning) or at least 4096".into(),
            );
        }
        Ok(())
    }
}

/// Where the configuration reference lives in the repository.
pub const REFERENCE_PAGE: &str = "docs/src/configuration.md";

impl Config {
    /// The configuration reference, `docs/src/configuration.md`: this type's own doc comment,
    /// then one row per setting — its key, its default and its field's doc comment, kept at run
    /// time by the `documented` derive. `gpumarket config --markdown` prints it.
    pub fn reference_markdown() -> String {
        let defaults = serde_json::to_value(Self::default()).unwrap_or_default();
        let mut page = format!(
            "# Configuration\n\n\
             <!-- Generated by `gpumarket config --markdown` from the doc comments of `app::Config`\n\
             (crates/app/src/config.rs): edit those, then run\n\
             `cargo run -- config --markdown > {REFERENCE_PAGE}`. CI fails when this page differs. -->\n\n\
             {}\n\n\
             | key | default | meaning |\n\
             |---|---|---|\n",
            one_paragraph(Self::DOCS)
        );
        for (key, doc) in Self::FIELD_NAMES.iter().zip(Self::FIELD_DOCS) {
            let default = shown_default(key, defaults.get(*key));
            page.push_str(&format!(
                "| `{key}` | {default} | {} |\n",
                one_paragraph(doc).replace('|', "\\|")
            ));
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
    fn defaults_are_embedded_and_valid() {
        let config = Config::default();
        assert_eq!(config.database_url(), DEFAULT_DATABASE_URL);
        assert!(config.redis_url().is_none());
        config.validate().unwrap();
    }

    #[test]
    fn unknown_keys_are_refused_by_name() {
        let err = serde_json::from_str::<Config>(r#"{"lisen": "0.0.0.0:1"}"#).unwrap_err();
        assert!(err.to_string().contains("lisen"), "{err}");
    }

    #[test]
    fn bad_values_name_the_setting() {
        let config: Config = serde_json::from_str(r#"{"jwt_secret": "short"}"#).unwrap();
        assert!(config.validate().unwrap_err().starts_with("jwt_secret"));
        let config: Config = serde_json::from_str(r#"{"database_url": "mysql://x"}"#).unwrap();
        assert!(config.validate().unwrap_err().starts_with("database_url"));
        let config: Config = serde_json::from_str(r#"{"listen": "everywhere"}"#).unwrap();
        assert!(config.validate().unwrap_err().starts_with("listen"));
    }

    #[test]
    fn every_setting_is_documented_with_its_default() {
        let page = Config::reference_markdown();
        for key in Config::FIELD_NAMES {
            assert!(page.contains(&format!("| `{key}` |")), "{key}");
        }
        assert!(page.contains(&format!("Unset: `{DEFAULT_DATABASE_URL}`")));
        assert!(page.contains("| `listen` | `127.0.0.1:8080` |"), "{page}");
        assert!(page.contains("| `verification_ttl_secs` | `2592000` (30 days) |"));
        assert!(page.contains("| `max_body_bytes` | `262144` (256 KiB) |"));
        assert!(page.contains("| `jwt_secret` | unset |"));
    }

    #[test]
    fn secrets_do_not_print() {
        let config: Config = serde_json::from_str(
            r#"{"jwt_secret": "0123456789abcdef0123456789abcdef-secret", "database_url": "postgres://u:hunter2@h/db"}"#,
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
