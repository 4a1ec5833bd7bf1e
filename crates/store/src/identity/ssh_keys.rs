//! Renters' SSH public keys: at most so many an account, each once, counted and checked under
//! the account's row lock so racing additions cannot pass the limit together.

use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    prelude::Expr,
};
use uuid::Uuid;

use crate::entities::{ssh_keys, users};
use crate::{Db, StoreError};

/// An SSH key as stored.
pub type SshKeyRecord = ssh_keys::Model;

/// What became of an addition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SshKeyAdded {
    Stored(SshKeyRecord),
    /// The account already keeps `limit` keys.
    OverLimit {
        limit: usize,
    },
    /// The account already keeps this key (by fingerprint), under this name.
    Exists {
        name: String,
    },
}

impl Db {
    /// Stores `key` unless its account already keeps `limit` keys or this one.
    pub async fn insert_ssh_key(
        &self,
        key: SshKeyRecord,
        limit: usize,
    ) -> Result<SshKeyAdded, StoreError> {
        let txn = self.write().await?;
        // The account's row lock (a no-op write): additions of one account queue here.
        users::Entity::update_many()
            .col_expr(users::Column::Email, Expr::col(users::Column::Email))
            .filter(users::Column::Id.eq(key.user_id))
            .exec(&txn)
            .await?;
        if let Some(same) = ssh_keys::Entity::find()
            .filter(ssh_keys::Column::UserId.eq(key.user_id))
            .filter(ssh_keys::Column::Fingerprint.eq(&key.fingerprint))
            .one(&txn)
            .await?
        {
            return Ok(SshKeyAdded::Exists { name: same.name });
        }
        let kept = ssh_keys::Entity::find()
            .filter(ssh_keys::Column::UserId.eq(key.user_id))
            .count(&txn)
            .await?;
        if kept >= limit as u64 {
            return Ok(SshKeyAdded::OverLimit { limit });
        }
        ssh_keys::ActiveModel::from(key.clone())
            .reset_all()
            .insert(&txn)
            .await
            .map_err(crate::conflict_as("ssh key"))?;
        txn.commit().await?;
        Ok(SshKeyAdded::Stored(key))
    }

    /// An account's keys, oldest first.
    pub async fn ssh_keys_of(&self, user_id: Uuid) -> Result<Vec<SshKeyRecord>, StoreError> {
        Ok(ssh_keys::Entity::find()
            .filter(ssh_keys::Column::UserId.eq(user_id))
            .order_by_asc(ssh_keys::Column::CreatedAt)
            .order_by_asc(ssh_keys::Column::Id)
            .all(self.conn())
            .await?)
    }

    /// Deletes one of an account's keys; `false` when it has no such key.
    pub async fn delete_ssh_key(&self, user_id: Uuid, id: Uuid) -> Result<bool, StoreError> {
        let txn = self.write().await?;
        let deleted = ssh_keys::Entity::delete_many()
            .filter(ssh_keys::Column::Id.eq(id))
            .filter(ssh_keys::Column::UserId.eq(user_id))
            .exec(&txn)
            .await?;
        txn.commit().await?;
        Ok(deleted.rows_affected > 0)
    }
}
