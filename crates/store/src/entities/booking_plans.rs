use sea_orm::entity::prelude::*;

/// Bookings made together, all or none, under one idempotency key of their renter.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "booking_plans")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub renter_id: Uuid,
    pub idempotency_key: String,
    /// What identifies the same request under the key.
    pub request_hash: String,
    /// The users the plan serves at its SLO.
    pub users: i64,
    /// Its machines' price per hour when booked, minor units.
    pub price_amount: i64,
    pub currency: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
