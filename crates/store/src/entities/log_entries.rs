use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "log_entries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub idx: i64,
    #[sea_orm(unique)]
    pub report_id: Uuid,
    pub kind: String,
    pub leaf: Vec<u8>,
    pub private: bool,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
