//! `[keys]`: key material every replica shares.

use std::path::PathBuf;

use documented::{Documented, DocumentedFields};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure, redacted};

/// Key material: every replica must share it. Each is a secret or the path of a file holding one.
#[derive(Debug, Clone, Default, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct KeySettings {
    /// HS256 key for access tokens, at least 32 bytes. Unset: generated on first start and
    /// kept in the database, so restarts and replicas share it.
    #[serde(serialize_with = "redacted")]
    pub jwt_secret: Option<SecretString>,
    /// Ed25519 PKCS#8 PEM file that signs reports. Unset: a key generated on first start and
    /// kept in the database. Changing it rotates: the new key signs, earlier keys stay
    /// published as retired.
    pub signing_key_file: Option<PathBuf>,
    /// A file holding the key (32 random bytes as 64 hex characters, `openssl rand -hex 32`)
    /// that engine API keys and the server's generated secrets are sealed with in the
    /// database (AES-256-GCM). Required with PostgreSQL (every replica must share it); on
    /// SQLite, one is generated beside the database when unset (back it up with it).
    pub secrets_key_file: Option<PathBuf>,
}

impl KeySettings {
    pub(super) fn check(&self) -> Checked {
        ensure(
            self.jwt_secret
                .as_ref()
                .is_none_or(|secret| secret.expose_secret().len() >= 32),
            "jwt_secret",
            "must be at least 32 bytes",
        )
    }
}
