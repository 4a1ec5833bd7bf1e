//! Ended login sessions, known to every replica without a per-request round trip: an access
//! token names its session (`sid`), and a token of a session that ended (logout, revoke-all,
//! a password change, a reused refresh token) is refused within about a second everywhere.
//!
//! Each process keeps the sessions ended within an access token's lifetime in memory. The
//! replica that ends one tells the others through Redis pub/sub (in memory when embedded);
//! whenever news may have been missed (the subscription starts or comes back, or the
//! listener fell behind) and every five seconds whatever is heard, the set is read again from
//! the database, which is the truth.

use std::time::Duration;

use chrono::Utc;
use queue::Revocation;
use tokio::sync::broadcast::error::RecvError;
use uuid::Uuid;

use crate::{App, AppError, Db};

/// Sessions ended lately, each remembered a little longer than a token of it can live.
pub(crate) type EndedSessions = moka::sync::Cache<Uuid, ()>;

/// How long past an access token's lifetime an ended session is remembered (the tokens'
/// leeway, and clocks).
const MARGIN_SECS: u64 = 60;
/// How often the ended sessions are read again from the database whatever pub/sub says (an
/// indexed query of the sessions ended within a token's lifetime).
const BACKSTOP: Duration = Duration::from_secs(5);

pub(crate) fn ended_sessions(access_ttl_secs: u64) -> EndedSessions {
    moka::sync::Cache::builder()
        .time_to_live(Duration::from_secs(access_ttl_secs + MARGIN_SECS))
        .build()
}

/// Reads every session ended within a token's lifetime into `ended`.
async fn reload(db: &Db, ended: &EndedSessions, access_ttl_secs: u64) -> Result<(), AppError> {
    let since = Utc::now()
        - chrono::Duration::seconds(i64::try_from(access_ttl_secs + MARGIN_SECS).unwrap_or(0));
    for session in db.sessions_ended_since(since).await? {
        ended.insert(session, ());
    }
    Ok(())
}

impl App {
    /// Loads the sessions ended lately and follows the news of every replica from now on.
    pub(crate) async fn follow_ended_sessions(&self) -> Result<(), AppError> {
        let ttl = self.config().accounts.access_token_ttl_secs;
        let mut news = self.notifier().revocations();
        reload(self.db(), &self.inner.identity.ended_sessions, ttl).await?;
        // The follower holds the application weakly: it ends with it.
        let app = std::sync::Arc::downgrade(&self.inner);
        let mut backstop = tokio::time::interval(BACKSTOP);
        backstop.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tokio::spawn(async move {
            loop {
                // A publication lost while the subscription stayed up says nothing: the
                // database is read again every few seconds whatever is heard.
                let heard = tokio::select! {
                    heard = news.recv() => heard,
                    _ = backstop.tick() => Ok(Revocation::Missed),
                };
                let Some(inner) = app.upgrade() else { return };
                match heard {
                    Ok(Revocation::Session(session)) => {
                        inner.identity.ended_sessions.insert(session, ())
                    }
                    Ok(Revocation::Missed) | Err(RecvError::Lagged(_)) => {
                        if let Err(e) = reload(&inner.db, &inner.identity.ended_sessions, ttl).await
                        {
                            tracing::warn!(error = %e, "could not read the ended sessions");
                        }
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        });
        Ok(())
    }

    /// Ends `sessions` for every replica: their access tokens are refused from now on.
    pub(crate) async fn sessions_ended(&self, sessions: &[Uuid]) {
        for &session in sessions {
            self.inner.identity.ended_sessions.insert(session, ());
            self.notifier().revoke_session(session).await;
        }
    }

    /// Whether an access token's session has ended.
    pub(crate) fn session_ended(&self, session: Uuid) -> bool {
        self.inner.identity.ended_sessions.contains_key(&session)
    }
}
