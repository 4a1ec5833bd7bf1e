use sea_orm::entity::prelude::*;

/// An organisation's Stripe Customer and subscription, as last read from Stripe.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "org_billing")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub org_id: Uuid,
    #[sea_orm(unique)]
    pub stripe_customer_id: String,
    pub subscription_id: Option<String>,
    pub subscription_status: Option<String>,
    pub current_period_end: Option<DateTimeUtc>,
    pub cancel_at_period_end: bool,
    pub past_due_since: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
