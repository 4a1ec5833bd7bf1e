//! A renter's SSH public keys: the keys a provider's agent installs for their bookings.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

pub mod create;
pub mod delete;
pub mod list;

/// An SSH public key the account keeps.
#[derive(Debug, Serialize, ToSchema)]
pub struct SshKeyView {
    pub id: Uuid,
    pub name: String,
    /// The key as an `authorized_keys` line starts (`ssh-ed25519 AAAA…`), without the comment
    /// it came with.
    pub public_key: String,
    /// `SHA256:…`, as `ssh-keygen -lf` prints it.
    pub fingerprint: String,
    pub created_at: DateTime<Utc>,
}

impl From<app::identity::ssh_keys::SshKey> for SshKeyView {
    fn from(k: app::identity::ssh_keys::SshKey) -> Self {
        Self {
            id: k.id,
            name: k.name,
            public_key: k.public_key,
            fingerprint: k.fingerprint,
            created_at: k.created_at,
        }
    }
}
