use sea_orm::entity::prelude::*;

/// One money movement. Rows are only ever inserted.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "ledger_entries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub booking_id: Uuid,
    pub org_id: Uuid,
    pub renter_id: Uuid,
    pub kind: String,
    pub amount: i64,
    pub currency: String,
    pub stripe_object_id: Option<String>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
