use sea_orm::entity::prelude::*;

/// A single-use link mailed to an address: the SHA-256 of its token, never the token.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "email_tokens")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub user_id: Uuid,
    /// `confirm` or `reset`.
    pub purpose: String,
    #[sea_orm(unique)]
    pub token_hash: String,
    /// The address it was sent to.
    pub email: String,
    /// A confirmation of an address registered again: the confirmer's password hash.
    pub password_hash: Option<String>,
    /// ... and name.
    pub name: Option<String>,
    pub created_at: DateTimeUtc,
    pub expires_at: DateTimeUtc,
    pub used_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
