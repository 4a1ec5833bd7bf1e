use sea_orm::entity::prelude::*;

/// The part of a refund (`refund_key`) taken from one of its booking's PaymentIntents, decided
/// once.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "refund_parts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub refund_key: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub payment_intent_id: String,
    pub booking_id: Uuid,
    pub amount: i64,
    /// The payment provider's refund, once made.
    pub refund_id: Option<String>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
