use sea_orm::entity::prelude::*;

/// A signed statement of a listing's uptime over one period.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "uptime_statements")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub listing_id: Uuid,
    pub period_start: DateTimeUtc,
    pub period_end: DateTimeUtc,
    pub uptime: Option<f64>,
    /// The DSSE envelope, JSON.
    pub envelope: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
