use sea_orm::entity::prelude::*;

/// The search projection: the valid decode cells of an active listing's latest compliant
/// report, with the listing's GPU model and price, and what goodput at an SLO needs.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "listing_cells")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub listing_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub context_tokens: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub concurrency: i64,
    pub gpu_model: String,
    pub price_amount: i64,
    pub total_tok_s: f64,
    pub price_per_mtok: f64,
    pub ttft_ms_p99: Option<f64>,
    pub ttft_samples: Option<i64>,
    pub itl_ms_p99: Option<f64>,
    /// The cell's energy per token, J, where it was plausible.
    pub energy_j_per_token: Option<f64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
