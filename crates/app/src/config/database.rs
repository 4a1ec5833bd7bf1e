//! `[database]`: where the data lives, and the pool.

use documented::{Documented, DocumentedFields};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::{Checked, DEFAULT_DATABASE_URL, ensure, redacted};

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

impl DatabaseSettings {
    pub(super) fn check(&self) -> Checked {
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
