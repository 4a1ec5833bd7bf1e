//! Secrets the server makes for itself (e.g. the JWT key when none is configured), kept in
//! the database so every replica shares them and a restart keeps them.

use chrono::Utc;
use sea_orm::{ActiveValue::Set, EntityTrait};

use crate::entities::server_secrets;
use crate::{Db, StoreError};

impl Db {
    /// Returns the secret stored under `name`, storing `candidate` first when there is none.
    /// Racing callers all get the one value that won.
    pub async fn secret_or_insert(
        &self,
        name: &str,
        candidate: &str,
    ) -> Result<String, StoreError> {
        let model = server_secrets::ActiveModel {
            name: Set(name.to_owned()),
            value: Set(candidate.to_owned()),
            created_at: Set(Utc::now()),
        };
        server_secrets::Entity::insert(model)
            .on_conflict_do_nothing_on([server_secrets::Column::Name])
            .exec_without_returning(self.conn())
            .await?;
        server_secrets::Entity::find_by_id(name.to_owned())
            .one(self.conn())
            .await?
            .map(|m| m.value)
            .ok_or_else(|| StoreError::Corrupt(format!("secret {name} vanished after insert")))
    }
}
