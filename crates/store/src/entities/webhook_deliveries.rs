use sea_orm::entity::prelude::*;

/// One event to one endpoint, tried on a schedule until it is delivered or given up.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_deliveries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub endpoint_id: Uuid,
    pub event_id: Uuid,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    pub attempts: i32,
    /// When it is next tried (a claim moves it a lease ahead); `None` once finished.
    pub next_attempt_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub delivered_at: Option<DateTimeUtc>,
    /// Until when a worker is sending it (its claim's lease); `None` when nobody is.
    pub claimed_until: Option<DateTimeUtc>,
    /// A test event's delivery, or one sent again by hand: claimed on its own budget.
    pub manual: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
