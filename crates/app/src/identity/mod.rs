//! Identity: accounts, sign-in, sessions, tokens, organisations and their mail.

pub mod accounts;
pub mod agent_presence;
pub mod agents;
pub mod audit;
pub(crate) mod credentials;
pub(crate) mod email;
pub(crate) mod login_backoff;
pub(crate) mod mailer;
pub mod orgs;
pub mod people;
pub(crate) mod sessions;
pub mod ssh_keys;
pub mod tokens;

use std::sync::Arc;

use crate::{App, AppError, Config};

/// Identity's state: token keys, password hashing, sessions, sign-in back-off, mail. Its
/// fields are identity's own: no other context reads them.
#[derive(Debug)]
pub(crate) struct IdentityState {
    tokens: tokens::TokenKeys,
    /// Permits to compute a password hash (each takes 19 MiB): a login flood waits, memory
    /// stays bounded.
    hashing: Arc<tokio::sync::Semaphore>,
    /// Digests of API keys recently found not to exist.
    unknown_keys: moka::sync::Cache<String, ()>,
    /// Login sessions ended within an access token's lifetime, on any replica.
    ended_sessions: sessions::EndedSessions,
    /// Failed sign-ins per (account, network), when there is no Redis.
    login_backoff: login_backoff::LocalBackoff,
    /// Sends confirmation and password-reset links.
    mailer: mailer::Mailer,
    /// When each listing's agent was last heard, when there is no Redis.
    last_seen: agent_presence::LastSeen,
}

impl IdentityState {
    pub(crate) fn new(config: &Config, tokens: tokens::TokenKeys) -> Result<Self, AppError> {
        Ok(Self {
            tokens,
            hashing: Arc::new(tokio::sync::Semaphore::new(
                config.accounts.password_hashes_at_once.max(1) as usize,
            )),
            unknown_keys: moka::sync::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(std::time::Duration::from_secs(600))
                .build(),
            ended_sessions: sessions::ended_sessions(config.accounts.access_token_ttl_secs),
            login_backoff: login_backoff::local_backoff(),
            mailer: mailer::Mailer::from_config(config)?,
            last_seen: agent_presence::LastSeen::default(),
        })
    }
}

impl App {
    /// The keys access tokens (and bookings' access tokens) are issued and checked with.
    pub(crate) fn tokens(&self) -> &tokens::TokenKeys {
        &self.inner.identity.tokens
    }

    /// What sends mail: confirmation and reset links, and other contexts' notices.
    pub(crate) fn mailer(&self) -> &mailer::Mailer {
        &self.inner.identity.mailer
    }
}
