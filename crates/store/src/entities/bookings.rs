use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "bookings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub listing_id: Uuid,
    pub renter_id: Uuid,
    pub gpu_count: i32,
    pub starts_at: DateTimeUtc,
    pub ends_at: DateTimeUtc,
    pub status: crate::status::Stored<domain::BookingStatus>,
    pub price_amount: i64,
    pub currency: String,
    pub idempotency_key: String,
    pub request_hash: String,
    pub hold_expires_at: Option<DateTimeUtc>,
    pub cancelled_at: Option<DateTimeUtc>,
    pub refund_amount: Option<i64>,
    pub created_at: DateTimeUtc,
    /// `stripe`, or `None` when no payment provider was configured.
    pub payment_provider: Option<String>,
    pub payment_intent_id: Option<String>,
    pub client_secret: Option<String>,
    pub platform_fee_amount: Option<i64>,
    /// The last payment failure, as Stripe or the connection told it.
    pub payment_error: Option<String>,
    /// When a cancellation was asked for (its refund is then fixed in `refund_amount`).
    pub cancel_requested_at: Option<DateTimeUtc>,
    /// Until when one caller holds the right to carry the cancellation out.
    pub cancel_claimed_until: Option<DateTimeUtc>,
    /// The plan it was booked in, with the plan's other bookings (all or none).
    pub plan_id: Option<Uuid>,
    /// Whether the renter is given the machine's SSH and HTTPS access (unless waived): it can
    /// then reach the engine around the gateway.
    pub direct_access: bool,
    /// Why it has no performance guarantee, when it has none: `listing_offers_none`,
    /// `listing_not_verified`, `direct_access` or `interruptible`.
    pub no_guarantee_reason: Option<String>,
    /// The container it runs (`domain::container::BookingContainer`, JSON); unset for an
    /// account or the gateway only.
    pub container: Option<String>,
    /// Seconds without a gateway request after which it is cancelled as its renter would
    /// (gateway-only bookings); unset for none.
    pub stop_when_idle_secs: Option<i32>,
    /// `on_demand`, or `interruptible` at `bid_per_gpu_hour` (minor units; the bid in force).
    pub tier: String,
    pub bid_per_gpu_hour: Option<i64>,
    /// The price per GPU-hour in force (the listing's on demand, the bid); unset on bookings
    /// made before it was recorded.
    pub amount_per_gpu_hour: Option<i64>,
    /// When an interruptible booking was displaced.
    pub interrupted_at: Option<DateTimeUtc>,
    /// The end it was booked for, when displacement after its start moved `ends_at` to the
    /// end of its notice.
    pub booked_ends_at: Option<DateTimeUtc>,
    /// When its displacement's refund (`refund_amount`) was given back, with the payment
    /// provider's refund.
    pub interruption_refunded_at: Option<DateTimeUtc>,
    pub interruption_refund_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
