use sea_orm::entity::prelude::*;

/// The performance guarantee a booking was made under, its credits and their settlement.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "booking_guarantees")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub booking_id: Uuid,
    /// The guaranteed share of the verified speed, in basis points.
    pub min_bp: i32,
    /// The verified report the guarantee refers to.
    pub report_id: Uuid,
    /// Buckets starting before this have been judged.
    pub evaluated_until: Option<DateTimeUtc>,
    /// Credits accrued so far, in the booking's currency's minor units.
    pub credit_amount: i64,
    pub settled_at: Option<DateTimeUtc>,
    /// What was given back at settlement (the credits, within what was paid).
    pub settled_amount: Option<i64>,
    pub refund_id: Option<String>,
    /// When the upkeep next looks at it (later after a failed settlement).
    pub next_check_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
