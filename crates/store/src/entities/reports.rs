use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "reports")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique)]
    pub run_id: Uuid,
    pub listing_id: Uuid,
    pub org_id: Uuid,
    pub compliant: bool,
    pub key_id: String,
    pub envelope: String,
    pub summary: String,
    pub created_at: DateTimeUtc,
    pub kind: String,
    /// `public`, or `private` (shown to the organisation and share links only).
    pub visibility: String,
    /// Its cells' figures for judging were read from the envelope (at insert, or by the
    /// start-up backfill for reports stored before they were columns).
    pub cell_figures_filled: bool,
    /// The catalog GPU and model its listing claimed when it was stored.
    pub catalog_gpu: Option<String>,
    pub catalog_model: Option<String>,
    /// The listing's machine's agent confirmed the claimed hardware when it was stored.
    pub hardware_confirmed: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
