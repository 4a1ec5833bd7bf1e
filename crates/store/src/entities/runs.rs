use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "verification_runs")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub listing_id: Uuid,
    pub org_id: Uuid,
    pub requested_by: Uuid,
    pub profile: String,
    pub status: crate::status::Stored<domain::RunStatus>,
    pub attempts: i32,
    pub lease_owner: Option<String>,
    pub lease_expires_at: Option<DateTimeUtc>,
    pub failure_reason: Option<String>,
    pub report_id: Option<Uuid>,
    pub created_at: DateTimeUtc,
    pub started_at: Option<DateTimeUtc>,
    pub finished_at: Option<DateTimeUtc>,
    pub failure_code: Option<String>,
    pub kind: String,
    pub baseline_report_id: Option<Uuid>,
    /// `public`, or `private` (shown to the organisation and share links only).
    pub visibility: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
