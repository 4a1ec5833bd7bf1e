use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "community_runs")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub submitter_id: Uuid,
    pub submitter_handle: String,
    pub catalog_gpu: Option<String>,
    pub catalog_model: Option<String>,
    pub model: String,
    pub report: String,
    pub report_sha256: String,
    pub launch_command: Option<String>,
    pub hardware_notes: Option<String>,
    pub receipt: String,
    pub created_at: DateTimeUtc,
    pub withdrawn_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
