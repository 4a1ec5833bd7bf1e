use sea_orm::entity::prelude::*;

/// A listing an agent's key is bound to.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "api_key_listings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub key_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub listing_id: Uuid,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
