//! Job dispatch between API and workers: Redis when configured, in-process otherwise.
//!
//! So far this holds the Redis connection and its health check; the verification pipeline
//! adds the streams and the in-process queue.

use std::time::Duration;

use redis::AsyncConnectionConfig;

#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    /// The Redis URL cannot be used; the message says why (never the URL: it may hold a
    /// password).
    #[error("redis_url is not a usable Redis URL: {0}")]
    BadUrl(String),
    #[error("Redis: {0}")]
    Redis(#[from] redis::RedisError),
}

/// A Redis server. Connections are made on use, so a Redis that is down at start makes the
/// server "not ready" instead of stopping it.
#[derive(Debug, Clone)]
pub struct Redis {
    client: redis::Client,
}

impl Redis {
    pub fn open(url: &str) -> Result<Self, QueueError> {
        let client = redis::Client::open(url).map_err(|e| QueueError::BadUrl(e.to_string()))?;
        Ok(Self { client })
    }

    /// Connects and sends PING, within two seconds.
    pub async fn ping(&self) -> Result<(), QueueError> {
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_secs(2)));
        let mut conn = self
            .client
            .get_multiplexed_async_connection_with_config(&config)
            .await?;
        let _: String = redis::cmd("PING").query_async(&mut conn).await?;
        Ok(())
    }
}
