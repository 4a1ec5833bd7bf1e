use sea_orm::entity::prelude::*;

/// One preflight of a listing: its checks before verification (issue 57).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "preflights")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub listing_id: Uuid,
    pub org_id: Uuid,
    /// The run it preceded, for a run's.
    pub run_id: Option<Uuid>,
    /// `asked` (a member's: it spends the verification budget), `request` or `run`.
    pub kind: String,
    pub passed: bool,
    /// The checks, JSON.
    pub checks: String,
    pub created_at: DateTimeUtc,
    /// `None` while its checks run.
    pub finished_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
