use sea_orm::entity::prelude::*;

/// What a listing's agent last reported of its machine.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "listing_agents")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub listing_id: Uuid,
    /// The facts, as JSON (bounded and checked before they were stored).
    pub facts: String,
    pub reported_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
