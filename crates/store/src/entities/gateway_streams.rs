use sea_orm::entity::prelude::*;

/// A stream open through the gateway, leased: a replica renews it while the stream lasts,
/// and one that crashed leaves a row that expires.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "gateway_streams")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub booking_id: Uuid,
    pub listing_id: Uuid,
    /// The engine it goes to (a key of its origin): streams are counted per engine, across
    /// every listing naming it. `NULL` on rows written before it was kept.
    pub machine: Option<Uuid>,
    pub expires_at: DateTimeUtc,
    /// The most streams open to the machine at once since this one opened.
    pub peak: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
