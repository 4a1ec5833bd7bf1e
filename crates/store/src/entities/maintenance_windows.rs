use sea_orm::entity::prelude::*;

/// An interval its provider takes a machine out of service.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
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
    /// Whether announcing it interrupted the bookings it overlapped (windows announced before
    /// issue 53 cancelled them instead).
    pub cancel_overlapping: bool,
    /// How many bookings it cancelled: windows announced before issue 53 only (0 for newer).
    pub cancelled_bookings: i64,
    /// How many bookings it interrupted (then it can no longer be deleted).
    pub interrupted_bookings: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
