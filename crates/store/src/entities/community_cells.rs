use sea_orm::entity::prelude::*;

/// A valid decode cell of a community run not withdrawn: what the community board reads.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "community_cells")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub run_id: Uuid,
    /// Its place among the run's decode cells.
    #[sea_orm(primary_key, auto_increment = false)]
    pub position: i32,
    pub catalog_gpu: Option<String>,
    pub catalog_model: Option<String>,
    pub model: String,
    pub context_tokens: i64,
    pub concurrency: i64,
    pub total_tok_s: f64,
    pub per_request_tok_s: Option<f64>,
    /// The engine the run's report names, when the standard knows it (`vllm`, `llamacpp`,
    /// `sglang`, `tgi`).
    pub engine_name: Option<String>,
    /// The decode cell as the report has it (JSON, its strings clipped).
    pub cell: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
