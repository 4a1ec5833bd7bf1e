use sea_orm::entity::prelude::*;

/// An interval its provider takes a machine out of service.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "maintenance_windows")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub listing_id: Uuid,
    pub starts_at: DateTimeUtc,
    pub ends_at: DateTimeUtc,
    pub reason: String,
    pub created_by: Uuid,
    /// When it was announced.
    pub created_at: DateTimeUtc,
    /// Whether announcing it cancelled the bookings it overlapped.
    pub cancel_overlapping: bool,
    /// How many bookings it cancelled (then it can no longer be deleted).
    pub cancelled_bookings: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
