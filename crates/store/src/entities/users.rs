use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "users")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique)]
    pub email: String,
    pub name: String,
    pub password_hash: String,
    pub created_at: DateTimeUtc,
    /// When the account proved it holds its address.
    pub email_verified_at: Option<DateTimeUtc>,
    /// Signed up while addresses had to be confirmed.
    pub confirmation_required: bool,
    /// When the account was erased on its person's request (its row kept, nothing personal
    /// left in it).
    pub deleted_at: Option<DateTimeUtc>,
    /// The pseudonymous handle community receipts carry, made at the first one.
    pub handle: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
