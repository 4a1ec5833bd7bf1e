use sea_orm::entity::prelude::*;

/// A stretch of one liveness state of a listing's engine: from the observation that first
/// saw it to the last one that confirmed it.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "liveness_spans")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub listing_id: Uuid,
    pub up: bool,
    pub started_at: DateTimeUtc,
    pub ended_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
