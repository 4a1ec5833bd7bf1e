use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "report_cells")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub report_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub phase: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub context_tokens: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub concurrency: i64,
    pub status: String,
    pub total_tok_s: Option<f64>,
    pub per_request_tok_s: Option<f64>,
    pub ttft_ms: Option<f64>,
    pub tbt_ms: Option<f64>,
    pub prompt_tok_s: Option<f64>,
    pub ttft_ms_p99: Option<f64>,
    pub ttft_samples: Option<i64>,
    pub itl_ms_p99: Option<f64>,
    pub tokens_per_chunk: Option<f64>,
    /// Energy per token where the cell's energy was plausible (issue 57).
    pub energy_j_per_token: Option<f64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
