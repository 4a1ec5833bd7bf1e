use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "log_checkpoints")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub size: i64,
    pub root: Vec<u8>,
    pub note: String,
    pub key_id: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
