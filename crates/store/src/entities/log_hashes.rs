use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "log_hashes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub level: i16,
    #[sea_orm(primary_key, auto_increment = false)]
    pub idx: i64,
    pub hash: Vec<u8>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
