//! The use cases of gpumarket, shared by the HTTP API and the worker.
//!
//! [`App`] holds what a use case needs (the store, the token keys, the optional Redis) and
//! exposes one method per use case, grouped by module. Callers pass a [`Caller`] that the
//! API has authenticated; authorization is decided here, so every door checks the same way.

mod access_keys;
pub mod config;
mod engine_load;
pub mod engine_origin;
mod error;
pub mod identity;
mod jwt;
pub mod limits;
pub mod market;
pub mod money;
pub mod operations;
mod records;
pub mod sealed;
mod secrets;
pub mod trust;
pub mod windows;

use std::sync::Arc;

use domain::{ApiKeyId, UserId};

pub use config::{Config, LogFormat};
pub use domain::{BookingStatus, Money, RunStatus};
pub use error::AppError;
use store::Db;
pub use store::MemoryState;

/// Everything the use cases share. Cheap to clone.
#[derive(Debug, Clone)]
pub struct App {
    inner: Arc<Inner>,
}

/// The shared state: the kernel's (the database, queues, configuration, the limiter, engines'
/// load), and each context's own slice (`ARCHITECTURE.md`, "Contexts"): a use case reaches the
/// state of its context and of the kernel.
#[derive(Debug)]
struct Inner {
    db: Db,
    redis: Option<queue::Redis>,
    dispatcher: queue::Dispatcher,
    notifier: queue::Notifier,
    /// Seals and opens the secrets stored in the database.
    sealer: sealed::SecretsKey,
    streams: Arc<limits::StreamSlots>,
    budgets: limits::LocalBudgets,
    trusted_proxies: Vec<ipnet::IpNet>,
    /// Engines' streams counted across replicas, and the last second's trouble.
    engines: engine_load::EngineLoad,
    config: Config,
    identity: identity::IdentityState,
    money: money::MoneyState,
    trust: trust::TrustState,
    market: market::MarketState,
    operations: operations::OperationsState,
}

impl App {
    /// Connects to the database (applying migrations when `migrate` is set), resolves the
    /// token key (configured, or generated once and kept in the database), and connects to
    /// Redis when configured.
    pub async fn build(config: Config, migrate: bool) -> Result<Self, AppError> {
        let db = Db::connect(config.database_url()).await?;
        if migrate {
            db.migrate().await?;
        }
        let sealer = sealed::SecretsKey::resolve(&config)?;
        sealed::keep_canary(&db, &sealer).await?;
        let tokens = identity::tokens::TokenKeys::resolve(&db, &config, &sealer).await?;
        let signer = trust::signing_key::resolve(&db, &config, &sealer).await?;
        let redis = match config.redis_url() {
            Some(url) => Some(queue::Redis::open(url, &config.redis.namespace)?),
            None => None,
        };
        let (dispatcher, notifier) = match &redis {
            Some(redis) => (
                queue::Dispatcher::redis(redis.clone()),
                queue::Notifier::redis(redis.clone()),
            ),
            None => (
                queue::Dispatcher::in_process(),
                queue::Notifier::in_process(),
            ),
        };
        let payments = money::payments::provider_from(&config)?;
        let app = Self {
            inner: Arc::new(Inner {
                identity: identity::IdentityState::new(&config, tokens)?,
                money: money::MoneyState::new(payments),
                trust: trust::TrustState::new(&config, signer),
                market: market::MarketState::new(&config)?,
                operations: operations::OperationsState::new(&config)?,
                streams: Default::default(),
                budgets: Default::default(),
                sealer,
                engines: engine_load::EngineLoad::new(redis.is_some(), db.backend()),
                trusted_proxies: limits::parse_proxies(&config.server.trusted_proxies)
                    .map_err(AppError::Config)?,
                db,
                redis,
                dispatcher,
                notifier,
                config,
            }),
        };
        app.follow_ended_sessions().await?;
        app.seal_stored().await?;
        app.settle_rollback().await?;
        Ok(app)
    }

    /// The database. Private to the use cases; integration tests reach it with the
    /// `testing` feature to arrange states no route makes.
    #[cfg(not(feature = "testing"))]
    pub(crate) fn db(&self) -> &Db {
        &self.inner.db
    }

    #[cfg(feature = "testing")]
    pub fn db(&self) -> &Db {
        &self.inner.db
    }

    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The HTTP client every gateway request to an engine goes through (liveness probes too).
    pub fn gateway_client(&self) -> &reqwest::Client {
        self.inner.market.gateway_client()
    }

    /// The client's network, what every address-keyed budget counts by: the client's
    /// address — the peer, or when the peer is a trusted proxy the right-most address of
    /// `X-Forwarded-For` that is not one — itself for IPv4, its `/ipv6_prefix_len` for IPv6.
    pub fn client_network(
        &self,
        peer: std::net::IpAddr,
        forwarded_for: Option<&str>,
    ) -> ipnet::IpNet {
        limits::network_of(
            limits::client_address(&self.inner.trusted_proxies, peer, forwarded_for),
            self.config().server.ipv6_prefix_len,
        )
    }

    /// Where the worker (and any other server-side fetch) may connect.
    pub fn outbound_policy(&self) -> outbound::Policy {
        outbound::Policy::guarded(self.config().verification.engine_allow_private)
    }

    #[cfg(not(feature = "testing"))]
    pub(crate) fn redis(&self) -> Option<&queue::Redis> {
        self.inner.redis.as_ref()
    }

    #[cfg(feature = "testing")]
    pub fn redis(&self) -> Option<&queue::Redis> {
        self.inner.redis.as_ref()
    }

    #[cfg(not(feature = "testing"))]
    pub(crate) fn dispatcher(&self) -> &queue::Dispatcher {
        &self.inner.dispatcher
    }

    #[cfg(feature = "testing")]
    pub fn dispatcher(&self) -> &queue::Dispatcher {
        &self.inner.dispatcher
    }

    pub(crate) fn notifier(&self) -> &queue::Notifier {
        &self.inner.notifier
    }
}

/// An amount as stored, with its currency code; a stored code we do not know is a fault of
/// ours, not the caller's.
pub(crate) fn stored_money(minor: i64, code: &str) -> Result<domain::Money, AppError> {
    code.parse::<domain::Currency>()
        .map(|currency| domain::Money::new(minor, currency))
        .map_err(|_| {
            AppError::Internal(format!("a stored amount has an unknown currency {code:?}"))
        })
}

/// Who is calling, as proven by a bearer credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller {
    pub user_id: UserId,
    pub via: Credential,
    /// The network the request came from (see `ClientNetwork`), when it came over HTTP: what
    /// an organisation's audit trail records beside the change.
    pub network: Option<ipnet::IpNet>,
}

/// Which kind of credential proved the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// An access token of the login session (refresh family) `session`; `None` for tokens
    /// issued before sessions were named.
    AccessToken { session: Option<uuid::Uuid> },
    /// A person's own API key: it acts as that person.
    ApiKey(ApiKeyId),
    /// An organisation's API key (`caller.user_id` made it): it acts for `org` only, within
    /// `scopes`.
    OrgKey {
        id: ApiKeyId,
        org: domain::OrgId,
        scopes: Scopes,
    },
}

/// A set of [`domain::KeyScope`]s, small enough to copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Scopes(u8);

impl Scopes {
    fn bit(scope: domain::KeyScope) -> u8 {
        1 << (domain::KeyScope::ALL
            .iter()
            .position(|s| *s == scope)
            .unwrap_or(0) as u8)
    }

    pub fn of(scopes: &[domain::KeyScope]) -> Self {
        Self(scopes.iter().fold(0, |bits, s| bits | Self::bit(*s)))
    }

    pub fn contains(self, scope: domain::KeyScope) -> bool {
        self.0 & Self::bit(scope) != 0
    }

    pub fn list(self) -> Vec<domain::KeyScope> {
        domain::KeyScope::ALL
            .into_iter()
            .filter(|s| self.contains(*s))
            .collect()
    }
}

impl Caller {
    /// The scopes the caller is limited to: `Some` for an organisation's key.
    pub fn key_scopes(&self) -> Option<Scopes> {
        match self.via {
            Credential::OrgKey { scopes, .. } => Some(scopes),
            _ => None,
        }
    }

    /// The person behind the caller, for what is a person's own (`what`: "SSH keys are", "a
    /// budget is"): an organisation's key has none (403).
    pub(crate) fn person(self, what: &str) -> Result<Self, AppError> {
        match self.via {
            Credential::OrgKey { .. } => Err(AppError::Forbidden(format!(
                "{what} a person's: use your own session or API key"
            ))),
            _ => Ok(self),
        }
    }
}
