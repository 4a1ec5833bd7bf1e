use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "org_audit")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub org_id: Uuid,
    /// Who made the change (an erased account keeps its id, nothing else).
    pub actor_id: Uuid,
    /// With what: `session`, `api_key` (their own) or `org_key`.
    pub via: String,
    /// The network the request came from; unset once its person's account is erased.
    pub network: Option<String>,
    pub action: String,
    pub target_id: Option<String>,
    /// What changed, as JSON.
    pub details: String,
    pub at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
