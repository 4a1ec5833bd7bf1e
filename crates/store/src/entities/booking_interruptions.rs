use sea_orm::entity::prelude::*;

/// The part of a booking a maintenance window took, and the share of its price that gives
/// back.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "booking_interruptions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub booking_id: Uuid,
    pub window_id: Uuid,
    pub listing_id: Uuid,
    /// The window's part of the booking, `[starts_at, ends_at)`.
    pub starts_at: DateTimeUtc,
    pub ends_at: DateTimeUtc,
    /// Seconds of it no earlier window of the booking took: what the refund is for.
    pub seconds: i64,
    pub gpu_count: i32,
    /// Minor units of the booking's currency.
    pub refund_amount: i64,
    /// When it was given back (`None` while owed).
    pub refunded_at: Option<DateTimeUtc>,
    /// The payment provider's refund, when one was made.
    pub refund_id: Option<String>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
