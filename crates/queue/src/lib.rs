//! Job dispatch between API and workers, and the wake-ups of live event streams.
//!
//! The database is the source of truth for every run; this only delivers run ids. With
//! Redis: a stream with a consumer group (each run id goes to one worker) and pub/sub for
//! wake-ups, so any API replica can serve any run's events. Without: in-process channels.
//! A delivery can be lost (Redis restarted, a worker died); the reconciler re-dispatches
//! from the database, and claiming a run is atomic there, so a duplicate is harmless.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use redis::AsyncConnectionConfig;
use redis::streams::{StreamReadOptions, StreamReadReply};
use tokio::sync::{Mutex, broadcast, mpsc};
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    /// The Redis URL cannot be used; the message says why (never the URL: it may hold a
    /// password).
    #[error("redis_url is not a usable Redis URL: {0}")]
    BadUrl(String),
    #[error("Redis: {0}")]
    Redis(#[from] redis::RedisError),
    #[error("the in-process queue is closed")]
    Closed,
    /// Redis answered something a script of ours never returns.
    #[error("Redis: {0}")]
    Answer(&'static str),
}

const GROUP: &str = "workers";
/// About how many entries the run stream keeps.
const STREAM_MAX_LEN: u64 = 10_000;

/// A Redis server. Connections are made on use, so a Redis that is down at start makes the
/// server "not ready" instead of stopping it. Every key starts with the namespace, so
/// several deployments (or test runs) can share one Redis.
#[derive(Clone)]
pub struct Redis {
    client: redis::Client,
    namespace: String,
    /// One connection kept open (and reconnected when lost) for the per-request calls:
    /// rate limits must not cost a connection each.
    shared: Arc<tokio::sync::OnceCell<redis::aio::ConnectionManager>>,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the URL: it may hold a password.
        f.debug_struct("Redis")
            .field("namespace", &self.namespace)
            .finish_non_exhaustive()
    }
}

impl Redis {
    pub fn open(url: &str, namespace: &str) -> Result<Self, QueueError> {
        let client = redis::Client::open(url).map_err(|e| QueueError::BadUrl(e.to_string()))?;
        Ok(Self {
            client,
            namespace: namespace.to_owned(),
            shared: Arc::new(tokio::sync::OnceCell::new()),
        })
    }

    /// The stream that carries run ids.
    pub fn stream_key(&self) -> String {
        format!("{}:runs", self.namespace)
    }

    fn channel(&self, run: Uuid) -> String {
        format!("{}:run:{run}", self.namespace)
    }

    /// Deletes the run stream: what a Redis restart without persistence does. For tests of
    /// the reconciler.
    pub async fn drop_stream(&self) -> Result<(), QueueError> {
        let mut conn = self.connection().await?;
        let _: i64 = redis::cmd("DEL")
            .arg(self.stream_key())
            .query_async(&mut conn)
            .await?;
        Ok(())
    }

    async fn connection(&self) -> Result<redis::aio::MultiplexedConnection, QueueError> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_secs(10)));
        Ok(self
            .client
            .get_multiplexed_async_connection_with_config(&config)
            .await?)
    }

    /// Runs a (short) Lua script on one key with `EVAL`; the script answers two integers.
    pub async fn script(
        &self,
        source: &str,
        key: &str,
        args: &[&str],
    ) -> Result<(i64, i64), QueueError> {
        let answer = self.eval(source, &[key], args).await?;
        match answer[..] {
            [a, b, ..] => Ok((a, b)),
            _ => Err(QueueError::Answer(
                "a script answered fewer than two integers",
            )),
        }
    }

    /// Runs a (short) Lua script on `keys` with `EVAL` over the one kept connection (500 ms
    /// to connect or answer); the script answers a list of integers.
    pub async fn eval(
        &self,
        source: &str,
        keys: &[&str],
        args: &[&str],
    ) -> Result<Vec<i64>, QueueError> {
        let mut conn = self
            .shared
            .get_or_try_init(|| {
                // Short: a request waiting on a Redis that is gone delays its answer.
                let config = redis::aio::ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(Duration::from_millis(500)))
                    .set_response_timeout(Some(Duration::from_millis(500)));
                redis::aio::ConnectionManager::new_with_config(self.client.clone(), config)
            })
            .await?
            .clone();
        let mut eval = redis::cmd("EVAL");
        eval.arg(source).arg(keys.len()).arg(keys);
        for arg in args {
            eval.arg(*arg);
        }
        Ok(eval.query_async(&mut conn).await?)
    }

    /// Connects and sends PING, within two seconds.
    pub async fn ping(&self) -> Result<(), QueueError> {
        let mut conn = self.connection().await?;
        let _: String = redis::cmd("PING").query_async(&mut conn).await?;
        Ok(())
    }
}

/// Delivers run ids to workers.
#[derive(Debug, Clone)]
pub enum Dispatcher {
    InProcess {
        tx: mpsc::UnboundedSender<Uuid>,
        rx: Arc<Mutex<mpsc::UnboundedReceiver<Uuid>>>,
    },
    Redis(Redis),
}

impl Dispatcher {
    pub fn in_process() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        Self::InProcess {
            tx,
            rx: Arc::new(Mutex::new(rx)),
        }
    }

    /// Redis Streams with a consumer group; the group is created on first use.
    pub fn redis(redis: Redis) -> Self {
        Self::Redis(redis)
    }

    pub fn is_redis(&self) -> bool {
        matches!(self, Self::Redis(_))
    }

    pub async fn dispatch(&self, run: Uuid) -> Result<(), QueueError> {
        match self {
            Self::InProcess { tx, .. } => tx.send(run).map_err(|_| QueueError::Closed),
            Self::Redis(redis) => {
                let mut conn = redis.connection().await?;
                // Trimmed as it grows: entries are acknowledged on delivery, and a lost one is
                // re-dispatched from the database, so old entries are worth nothing.
                let _: String = redis::cmd("XADD")
                    .arg(redis.stream_key())
                    .arg("MAXLEN")
                    .arg("~")
                    .arg(STREAM_MAX_LEN)
                    .arg("*")
                    .arg("run")
                    .arg(run.to_string())
                    .query_async(&mut conn)
                    .await?;
                Ok(())
            }
        }
    }

    /// The next run id for `consumer`, waiting at most `wait`. Redis entries are
    /// acknowledged on delivery: from here on the database lease decides who runs it.
    pub async fn next(&self, consumer: &str, wait: Duration) -> Result<Option<Uuid>, QueueError> {
        match self {
            Self::InProcess { rx, .. } => {
                let mut rx = rx.lock().await;
                match tokio::time::timeout(wait, rx.recv()).await {
                    Ok(Some(run)) => Ok(Some(run)),
                    Ok(None) => Err(QueueError::Closed),
                    Err(_) => Ok(None),
                }
            }
            Self::Redis(redis) => {
                let mut conn = redis.connection().await?;
                let stream = redis.stream_key();
                let created: Result<(), redis::RedisError> = redis::cmd("XGROUP")
                    .arg("CREATE")
                    .arg(&stream)
                    .arg(GROUP)
                    .arg("0")
                    .arg("MKSTREAM")
                    .query_async(&mut conn)
                    .await;
                if let Err(e) = created
                    && e.code() != Some("BUSYGROUP")
                {
                    return Err(e.into());
                }
                let options = StreamReadOptions::default()
                    .group(GROUP, consumer)
                    .count(1)
                    .block(wait.as_millis().try_into().unwrap_or(usize::MAX));
                let reply: Option<StreamReadReply> =
                    redis::AsyncCommands::xread_options(&mut conn, &[&stream], &[">"], &options)
                        .await?;
                let Some(entry) = reply
                    .into_iter()
                    .flat_map(|r| r.keys)
                    .flat_map(|k| k.ids)
                    .next()
                else {
                    return Ok(None);
                };
                let _: i64 = redis::cmd("XACK")
                    .arg(&stream)
                    .arg(GROUP)
                    .arg(&entry.id)
                    .query_async(&mut conn)
                    .await?;
                let run = entry
                    .get::<String>("run")
                    .and_then(|raw| raw.parse::<Uuid>().ok());
                if run.is_none() {
                    tracing::warn!(entry = %entry.id, "a queue entry without a run id was dropped");
                }
                Ok(run)
            }
        }
    }
}

/// News about login sessions that every replica must hear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revocation {
    /// The session (refresh family) ended: its access tokens are no longer good.
    Session(Uuid),
    /// News may have been missed (the subscription started or restarted, or a listener fell
    /// behind): read what ended from the database.
    Missed,
}

/// Wakes whoever streams a run's events when the run has news, and tells every replica
/// which sessions ended. With Redis, one pub/sub connection per process listens to every
/// channel and fans the news out in process: a thousand followers cost one connection, not
/// a thousand.
#[derive(Debug, Clone)]
pub enum Notifier {
    InProcess {
        local: broadcast::Sender<Uuid>,
        sessions: broadcast::Sender<Revocation>,
    },
    Redis {
        redis: Redis,
        local: broadcast::Sender<Uuid>,
        sessions: broadcast::Sender<Revocation>,
        listening: Arc<std::sync::atomic::AtomicBool>,
    },
}

impl Notifier {
    pub fn in_process() -> Self {
        Self::InProcess {
            local: broadcast::channel(1024).0,
            sessions: broadcast::channel(1024).0,
        }
    }

    pub fn redis(redis: Redis) -> Self {
        Self::Redis {
            redis,
            local: broadcast::channel(1024).0,
            sessions: broadcast::channel(1024).0,
            listening: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        }
    }

    /// Starts this process's pub/sub listener, once.
    fn listen(&self) {
        if let Self::Redis {
            redis,
            local,
            sessions,
            listening,
        } = self
            && !listening.swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            tokio::spawn(listen(redis.clone(), local.clone(), sessions.clone()));
        }
    }

    /// Tells every replica that `session` ended. Best effort: a replica that misses it
    /// reads what ended from the database when its subscription comes back.
    pub async fn revoke_session(&self, session: Uuid) {
        match self {
            Self::InProcess { sessions, .. } => {
                let _ = sessions.send(Revocation::Session(session));
            }
            Self::Redis {
                redis, sessions, ..
            } => {
                // This process hears it at once, whatever Redis does.
                let _ = sessions.send(Revocation::Session(session));
                let published = async {
                    let mut conn = redis.connection().await?;
                    let _: i64 = redis::cmd("PUBLISH")
                        .arg(format!("{}:session-ended:{session}", redis.namespace))
                        .arg("1")
                        .query_async(&mut conn)
                        .await?;
                    Ok::<_, QueueError>(())
                };
                if let Err(e) = published.await {
                    tracing::warn!(error = %e, "could not publish an ended session");
                }
            }
        }
    }

    /// Every session that ends from now on, on any replica (with Redis, starting the
    /// listener, whose first subscription says [`Revocation::Missed`]).
    pub fn revocations(&self) -> broadcast::Receiver<Revocation> {
        self.listen();
        match self {
            Self::InProcess { sessions, .. } | Self::Redis { sessions, .. } => sessions.subscribe(),
        }
    }

    /// Best effort: a lost wake-up only delays a stream until its next poll.
    pub async fn notify(&self, run: Uuid) {
        match self {
            Self::InProcess { local, .. } => {
                let _ = local.send(run);
            }
            Self::Redis { redis, .. } => {
                let published = async {
                    let mut conn = redis.connection().await?;
                    let _: i64 = redis::cmd("PUBLISH")
                        .arg(redis.channel(run))
                        .arg("1")
                        .query_async(&mut conn)
                        .await?;
                    Ok::<_, QueueError>(())
                };
                if let Err(e) = published.await {
                    tracing::warn!(%run, error = %e, "could not publish a run wake-up");
                }
            }
        }
    }

    /// Subscribes to one run's wake-ups.
    pub async fn subscribe(&self, run: Uuid) -> Subscription {
        self.listen();
        match self {
            Self::InProcess { local, .. } | Self::Redis { local, .. } => {
                Subscription(local.subscribe(), run)
            }
        }
    }
}

/// The process's one pub/sub connection: every run's wake-ups, into `local`, and ended
/// sessions, into `sessions`. Reconnects after a second when Redis goes away (followers
/// poll meanwhile; sessions are read again from the database).
async fn listen(
    redis: Redis,
    local: broadcast::Sender<Uuid>,
    sessions: broadcast::Sender<Revocation>,
) {
    let runs = format!("{}:run:", redis.namespace);
    let ended = format!("{}:session-ended:", redis.namespace);
    loop {
        let subscribed = async {
            let mut pubsub = redis.client.get_async_pubsub().await?;
            pubsub.psubscribe(format!("{runs}*")).await?;
            pubsub.psubscribe(format!("{ended}*")).await?;
            Ok::<_, QueueError>(pubsub)
        };
        match subscribed.await {
            Ok(mut pubsub) => {
                let _ = sessions.send(Revocation::Missed);
                let mut messages = pubsub.on_message();
                while let Some(message) = messages.next().await {
                    let channel = message.get_channel_name();
                    let id = |prefix: &str| {
                        channel
                            .strip_prefix(prefix)
                            .and_then(|id| id.parse::<Uuid>().ok())
                    };
                    if let Some(run) = id(&runs) {
                        let _ = local.send(run);
                    } else if let Some(session) = id(&ended) {
                        let _ = sessions.send(Revocation::Session(session));
                    }
                }
                tracing::warn!("the Redis wake-up subscription ended; reconnecting");
            }
            Err(e) => tracing::warn!(error = %e, "no Redis wake-up subscription; retrying"),
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// One run's wake-ups.
#[derive(Debug)]
pub struct Subscription(broadcast::Receiver<Uuid>, Uuid);

impl Subscription {
    /// Waits for a wake-up or `timeout`, whichever comes first.
    pub async fn wait(&mut self, timeout: Duration) {
        let Self(rx, run) = self;
        let woken = async {
            loop {
                match rx.recv().await {
                    Ok(id) if id == *run => return,
                    Ok(_) => {}
                    Err(broadcast::error::RecvError::Lagged(_)) => return,
                    Err(broadcast::error::RecvError::Closed) => {
                        std::future::pending::<()>().await;
                    }
                }
            }
        };
        let _ = tokio::time::timeout(timeout, woken).await;
    }
}
