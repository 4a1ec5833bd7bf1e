//! Renters' SSH public keys: the keys a provider's agent installs for their bookings. A
//! person keeps them (with a session or their own API key), never an organisation's key.

use chrono::{DateTime, Utc};
use domain::ApiKeyName;
use domain::ssh::{MAX_SSH_KEYS, SshPublicKey};
use store::{SshKeyAdded, SshKeyRecord};
use uuid::Uuid;

use crate::{App, AppError, Caller};

/// A key an account keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshKey {
    pub id: Uuid,
    pub name: String,
    /// `algorithm base64`, without the comment it came with.
    pub public_key: String,
    /// `SHA256:…`, as `ssh-keygen -lf` prints it.
    pub fingerprint: String,
    pub created_at: DateTime<Utc>,
}

impl From<SshKeyRecord> for SshKey {
    fn from(r: SshKeyRecord) -> Self {
        Self {
            id: r.id,
            name: r.name,
            public_key: r.public_key,
            fingerprint: r.fingerprint,
            created_at: r.created_at,
        }
    }
}

impl App {
    /// Adds a public key to the caller's account: 422 for a key that is not one worth a
    /// machine's trust, 409 `ssh_key_exists` for one it keeps, 409 `ssh_key_limit` past ten.
    pub async fn add_ssh_key(
        &self,
        caller: Caller,
        name: &str,
        public_key: &str,
    ) -> Result<SshKey, AppError> {
        let caller = caller.person("SSH keys are")?;
        let name = ApiKeyName::parse(name)?;
        let key = SshPublicKey::parse(public_key)?;
        let record = SshKeyRecord {
            id: Uuid::now_v7(),
            user_id: caller.user_id.as_uuid(),
            name: name.as_str().to_owned(),
            public_key: key.openssh,
            fingerprint: key.fingerprint,
            created_at: Utc::now(),
        };
        match self.db().insert_ssh_key(record, MAX_SSH_KEYS).await? {
            SshKeyAdded::Stored(record) => {
                // The machines it books install the keys it has.
                self.wake_agents_of_renter(record.user_id).await?;
                Ok(record.into())
            }
            SshKeyAdded::OverLimit { limit } => Err(AppError::SshKeyLimit(format!(
                "an account keeps at most {limit} SSH keys: delete one first"
            ))),
            SshKeyAdded::Exists { name } => Err(AppError::SshKeyExists(format!(
                "this key is already on your account, named {name:?}"
            ))),
        }
    }

    /// The caller's keys, oldest first.
    pub async fn ssh_keys(&self, caller: Caller) -> Result<Vec<SshKey>, AppError> {
        let caller = caller.person("SSH keys are")?;
        let keys = self.db().ssh_keys_of(caller.user_id.as_uuid()).await?;
        Ok(keys.into_iter().map(SshKey::from).collect())
    }

    /// Deletes one of the caller's keys (404 for anyone else's).
    pub async fn delete_ssh_key(&self, caller: Caller, id: Uuid) -> Result<(), AppError> {
        let caller = caller.person("SSH keys are")?;
        if self
            .db()
            .delete_ssh_key(caller.user_id.as_uuid(), id)
            .await?
        {
            self.wake_agents_of_renter(caller.user_id.as_uuid()).await
        } else {
            Err(AppError::NotFound("ssh key"))
        }
    }
}
