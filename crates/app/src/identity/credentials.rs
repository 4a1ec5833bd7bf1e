//! What signing in rests on, below the use cases that register, sign in, confirm and reset:
//! the user as shown, password hashing (and the permit to hash), and the pair failed sign-ins
//! back off by.

use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use chrono::{DateTime, Utc};
use domain::{Password, UserId};

use crate::secrets::digest;
use crate::{App, AppError};

#[derive(Debug, Clone)]
pub struct User {
    pub id: UserId,
    pub email: String,
    pub name: String,
    pub created_at: DateTime<Utc>,
    /// When the account confirmed its address (a mailed link); `None` while it has not.
    pub email_verified_at: Option<DateTime<Utc>>,
}

impl From<store::UserRecord> for User {
    fn from(r: store::UserRecord) -> Self {
        Self {
            id: r.id,
            email: r.email,
            name: r.name,
            created_at: r.created_at,
            email_verified_at: r.email_verified_at,
        }
    }
}

/// What failed sign-ins back off by: a digest of the account's address (never the address,
/// in Redis or anywhere) and the client's network.
pub(crate) fn login_pair(email: &str, client: &ipnet::IpNet) -> String {
    format!("{}:{client}", login_account(email))
}

pub(crate) fn login_account(email: &str) -> String {
    digest(&email.trim().to_lowercase())[..32].to_owned()
}

/// Argon2id with the crate's defaults (19 MiB, 2 passes): the OWASP baseline. Hashing is
/// CPU-bound, so it runs off the async workers.
pub(crate) async fn hash_password(password: Password) -> Result<String, AppError> {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.expose().as_bytes())
            .map(|hash| hash.to_string())
            .map_err(|e| AppError::Internal(format!("hashing a password: {e}")))
    })
    .await
    .map_err(|e| AppError::Internal(format!("password hashing task: {e}")))?
}

pub(crate) async fn password_matches(password: Password, hash: String) -> Result<bool, AppError> {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .verify_password(password.expose().as_bytes(), hash.as_str())
            .is_ok()
    })
    .await
    .map_err(|e| AppError::Internal(format!("password verification task: {e}")))
}

impl App {
    /// A turn to compute a password hash (`password_hashes_at_once` at a time).
    pub(crate) async fn hashing_permit(
        &self,
    ) -> Result<tokio::sync::SemaphorePermit<'_>, AppError> {
        self.inner
            .identity
            .hashing
            .acquire()
            .await
            .map_err(|_| AppError::Internal("the hashing semaphore closed".to_owned()))
    }
}

/// A hash no password matches (its output is all zeros), checked when an email is unknown,
/// so a wrong email costs the same time as a wrong password and accounts cannot be probed.
pub(crate) const DECOY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
