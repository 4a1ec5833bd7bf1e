use sea_orm::entity::prelude::*;

/// One rolled-up bucket of the market's price history for a GPU (`*`: every listing) and a
/// currency: written once the bucket has closed.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "market_history")]
pub struct Model {
    /// `hour` or `day`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub bucket: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub gpu: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub currency: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub starts_at: DateTimeUtc,
    pub listings: i64,
    pub gpus_listed: i64,
    pub gpu_hours_booked: f64,
    pub price_p10: i64,
    pub price_median: i64,
    pub price_p90: i64,
    pub clearing_bid: Option<i64>,
    pub price_per_mtok_median: Option<f64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
