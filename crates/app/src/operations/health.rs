//! Readiness: whether this process can serve, i.e. its dependencies answer.

use crate::{App, AppError};

/// The state of one dependency.
#[derive(Debug, Clone)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    /// Why it is not ok; empty when it is.
    pub detail: String,
}

impl App {
    /// Starts answering listing search from memory (`[database] search_in_memory`): what an
    /// API replica does when it starts serving. Nothing when it is off or already started.
    pub fn serve_search_from_memory(&self) {
        let settings = &self.config().database;
        if settings.search_in_memory {
            self.db().serve_search_from_memory(
                self.config().database_url(),
                store::MemoryOptions {
                    max_listings: settings.search_memory_max_listings,
                    poll: std::time::Duration::from_millis(settings.search_memory_poll_ms),
                    floor_probe: store::MemoryOptions::FLOOR_PROBE,
                },
            );
        }
    }

    /// How listing search is answered now (from memory, loading, ...).
    pub fn search_memory_state(&self) -> store::MemoryState {
        self.db().search_memory_state()
    }

    /// Checks the database, search's memory, and Redis when configured. Every check runs even
    /// when one fails, so the answer lists everything that is down.
    pub async fn readiness(&self) -> Vec<Check> {
        let mut checks = Vec::with_capacity(3);
        let database = self.db().ping().await;
        checks.push(Check {
            name: "database",
            ok: database.is_ok(),
            detail: database.err().map(|e| e.to_string()).unwrap_or_default(),
        });
        // A replica that answers search from memory is ready once it holds it (until then
        // search asks the database: correct, but not at the speed the replica is sized
        // for). The check is listed only while it holds readiness back.
        if self.search_memory_state() == store::MemoryState::Loading {
            checks.push(Check {
                name: "search",
                ok: false,
                detail: "loading search into memory".to_owned(),
            });
        }
        if let Some(redis) = self.redis() {
            let redis = redis.ping().await;
            checks.push(Check {
                name: "redis",
                ok: redis.is_ok(),
                detail: redis.err().map(|e| e.to_string()).unwrap_or_default(),
            });
        }
        checks
    }
}

/// `Unavailable` naming what is down, when anything is.
pub fn all_ready(checks: &[Check]) -> Result<(), AppError> {
    let down: Vec<String> = checks
        .iter()
        .filter(|c| !c.ok)
        .map(|c| format!("{}: {}", c.name, c.detail))
        .collect();
    if down.is_empty() {
        Ok(())
    } else {
        Err(AppError::Unavailable(down.join("; ")))
    }
}
