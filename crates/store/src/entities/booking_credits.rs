use sea_orm::entity::prelude::*;

/// A bucket of a booking that under-delivered: its share of the price, owed back.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "booking_credits")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub booking_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub bucket_start: DateTimeUtc,
    pub amount: i64,
    /// Delivered per-stream speed as a share of the verified one, in basis points.
    pub delivered_bp: i32,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
