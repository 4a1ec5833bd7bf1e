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
    /// Checks the database, and Redis when configured. Every check runs even when one
    /// fails, so the answer lists everything that is down.
    pub async fn readiness(&self) -> Vec<Check> {
        let mut checks = Vec::with_capacity(2);
        let database = self.db().ping().await;
        checks.push(Check {
            name: "database",
            ok: database.is_ok(),
            detail: database.err().map(|e| e.to_string()).unwrap_or_default(),
        });
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
