use sea_orm::entity::prelude::*;

/// When a listing's agent was last heard, as the database keeps it (written on a change of
/// its state or once a minute).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "agent_heartbeats")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub listing_id: Uuid,
    pub agent_version: String,
    /// Each booking account's state as the agent said, JSON (bounded and checked).
    pub accounts: String,
    pub last_seen_at: DateTimeUtc,
    /// How far the machine's clock was ahead of the server's, in ms.
    pub clock_offset_ms: Option<i64>,
    /// Each GPU's health as the agent said, JSON (bounded and checked).
    pub gpu_health: Option<String>,
    /// Each booking's container as the agent last said (JSON).
    pub containers: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
