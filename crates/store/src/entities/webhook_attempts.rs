use sea_orm::entity::prelude::*;

/// One try of a delivery and what the receiver answered.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_attempts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub delivery_id: Uuid,
    pub attempted_at: DateTimeUtc,
    pub status_code: Option<i32>,
    /// The start of the answer's body, bounded.
    pub answer: Option<String>,
    /// Why no answer came (connection refused, timeout, refused by the outbound policy).
    pub error: Option<String>,
    pub duration_ms: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
