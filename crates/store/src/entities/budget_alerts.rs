use sea_orm::entity::prelude::*;

/// A budget alert sent for a month: each kind once a month a person.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "budget_alerts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub user_id: Uuid,
    /// `YYYY-MM`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub month: String,
    /// `warning` or `exhausted`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub kind: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
