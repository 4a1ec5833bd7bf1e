use sea_orm::entity::prelude::*;

/// The search projection's prefill rates: the valid prefill cells of an active listing's
/// latest compliant report (what a fresh prompt's time at an SLO is estimated from).
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "listing_prefill")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub listing_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub context_tokens: i64,
    pub prompt_tok_s: f64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
