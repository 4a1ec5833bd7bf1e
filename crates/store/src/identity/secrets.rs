//! Secrets the server makes for itself (e.g. the JWT key when none is configured), kept in
//! the database so every replica shares them and a restart keeps them.

use chrono::Utc;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QuerySelect};

use crate::entities::{listings, server_secrets};
use crate::{Db, StoreError};

impl Db {
    /// The secret stored under `name`, if any.
    pub async fn server_secret(&self, name: &str) -> Result<Option<String>, StoreError> {
        Ok(server_secrets::Entity::find_by_id(name.to_owned())
            .one(self.conn())
            .await?
            .map(|m| m.value))
    }

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

    /// Replaces the secret `name` with `new` while it still holds `old`; whether it did.
    pub async fn replace_secret(
        &self,
        name: &str,
        old: &str,
        new: &str,
    ) -> Result<bool, StoreError> {
        let result = server_secrets::Entity::update_many()
            .col_expr(server_secrets::Column::Value, Expr::value(new))
            .filter(server_secrets::Column::Name.eq(name))
            .filter(server_secrets::Column::Value.eq(old))
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected == 1)
    }

    /// Listings whose engine API key does not start with `sealed` (stored before sealing),
    /// at most `limit`: their ids and keys.
    pub async fn unsealed_engine_keys(
        &self,
        sealed: &str,
        limit: u64,
    ) -> Result<Vec<(uuid::Uuid, String)>, StoreError> {
        Ok(listings::Entity::find()
            .select_only()
            .column(listings::Column::Id)
            .column(listings::Column::EngineApiKey)
            .filter(listings::Column::EngineApiKey.is_not_null())
            .filter(listings::Column::EngineApiKey.not_like(format!("{sealed}%")))
            .limit(limit)
            .into_tuple()
            .all(self.conn())
            .await?)
    }

    /// Replaces a listing's engine API key with `new` while it still holds `old`.
    pub async fn replace_engine_key(
        &self,
        listing: uuid::Uuid,
        old: &str,
        new: &str,
    ) -> Result<bool, StoreError> {
        let _search = self.search_touch();
        let result = listings::Entity::update_many()
            .col_expr(listings::Column::EngineApiKey, Expr::value(new))
            .filter(listings::Column::Id.eq(listing))
            .filter(listings::Column::EngineApiKey.eq(old))
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected == 1)
    }
}
