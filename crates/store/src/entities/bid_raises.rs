use sea_orm::entity::prelude::*;

/// A raise of an interruptible booking's bid charged as a PaymentIntent of its own for the
/// difference: `pending_payment` until its payment webhook, then `paid` (in force); `expired`,
/// `cancelled`, `failed` or `refunded` (paid after it could no longer hold) otherwise.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "bid_raises")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub booking_id: Uuid,
    pub renter_id: Uuid,
    /// The bid in force when it was asked for.
    pub from_bid: i64,
    pub bid_per_gpu_hour: i64,
    /// The booking's whole price at the new bid.
    pub price_amount: i64,
    /// What it charges: the new price less the booking's price when it was asked for.
    pub amount: i64,
    pub platform_fee_amount: i64,
    pub currency: String,
    pub status: String,
    pub payment_intent_id: Option<String>,
    pub client_secret: Option<String>,
    pub payment_error: Option<String>,
    pub hold_expires_at: DateTimeUtc,
    pub created_at: DateTimeUtc,
    pub paid_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
