//! The server's settings, in sections (`[server]`, `[database]`, …). Loading (defaults, then
//! a file, then `GPUMARKET_*` variables) is the binary's job; this is the shape, its rules,
//! and the map from each setting's environment name (flat, as the contract fixes them:
//! `GPUMARKET_DATABASE_URL`) to its place (`database.url`). Unknown keys are refused by name,
//! and secrets are [`SecretString`]s that never print.

mod accounts;
mod agent;
mod database;
mod gateway;
mod keys;
mod limits;
mod liveness;
mod mail;
mod payments;
mod pro;
mod redis;
mod reference;
mod reports;
mod server;
mod verification;
mod webhooks;

use documented::Documented;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

pub use reference::{REFERENCE_PAGE, SECTIONS, Section, UNPREFIXED, setting_path};
pub use {
    accounts::AccountSettings, accounts::EmailVerification, agent::AgentSettings,
    database::DatabaseSettings, gateway::GatewaySettings, keys::KeySettings, limits::LimitSettings,
    liveness::LivenessSettings, mail::MailSettings, payments::PaymentSettings, pro::ProSettings,
    redis::RedisSettings, reports::ReportSettings, server::LogFormat, server::ServerSettings,
    verification::VerificationSettings, webhooks::WebhookSettings,
};

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
    "llamacpp_cache",
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
/// `GPUMARKET_GATEWAY_MAX_TOKENS`). Every section added from now on is prefixed with its name
/// (`[agent] poll_secs` ↔ `GPUMARKET_AGENT_POLL_SECS`); the unprefixed ones keep their names,
/// and a key added to them stays unique across sections. An unknown key — in the file or in a `GPUMARKET_*`
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
    pub agent: AgentSettings,
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
        let checks: [(&str, Checked); 14] = [
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
            ("agent", self.agent.check()),
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

#[cfg(test)]
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

    /// The key-prefix rule: a section outside [`UNPREFIXED`] prefixes its keys' environment
    /// names with its own name, so a section added later cannot forget it.
    #[test]
    fn sections_outside_the_unprefixed_ones_prefix_their_keys_with_their_name() {
        for section in SECTIONS {
            let expected = if UNPREFIXED.contains(&section.name) {
                String::new()
            } else {
                format!("{}_", section.name)
            };
            assert_eq!(section.env_prefix, expected, "[{}]", section.name);
        }
        assert!(
            UNPREFIXED
                .iter()
                .all(|name| SECTIONS.iter().any(|s| s.name == *name))
        );
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
