//! `[accounts]`: sign-in, sessions and membership.

use documented::{Documented, DocumentedFields};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure};

/// Sign-in, sessions and membership.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct AccountSettings {
    /// Lifetime of an access token. Short: a stolen one is useful briefly.
    pub access_token_ttl_secs: u64,
    /// Lifetime of a refresh token; each is single-use, rotated on every refresh.
    pub refresh_token_ttl_secs: u64,
    /// Password hashes computed at once (argon2id, 19 MiB each); further logins wait their
    /// turn.
    pub password_hashes_at_once: u32,
    /// How long an invitation to an organisation can be accepted.
    pub invitation_ttl_secs: u64,
    /// `required`: an account confirms its address (a mailed link) before it creates
    /// organisations, books, lists, submits runs or accepts invitations. `off`: addresses are
    /// not checked. Unset: `required` when `smtp_url` is set, else `off`.
    pub email_verification: Option<EmailVerification>,
}

impl Default for AccountSettings {
    fn default() -> Self {
        Self {
            access_token_ttl_secs: 15 * 60,
            refresh_token_ttl_secs: 30 * 24 * 3600,
            password_hashes_at_once: 4,
            invitation_ttl_secs: 7 * 24 * 3600,
            email_verification: None,
        }
    }
}

/// Whether accounts confirm their email address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EmailVerification {
    Required,
    Off,
}

impl AccountSettings {
    pub(super) fn check(&self) -> Checked {
        ensure(
            (1..=24 * 3600).contains(&self.access_token_ttl_secs),
            "access_token_ttl_secs",
            "must be between 1 and 86400",
        )?;
        ensure(
            self.refresh_token_ttl_secs >= self.access_token_ttl_secs,
            "refresh_token_ttl_secs",
            "must not be shorter than access_token_ttl_secs",
        )
    }
}
