use sea_orm::entity::prelude::*;

/// A run's GPU samples: asked of the listing's agent once the run measured, kept as uploaded
/// (issue 57).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "run_telemetry")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub run_id: Uuid,
    pub listing_id: Uuid,
    /// The window asked for, by the server's clock.
    pub from_at: DateTimeUtc,
    pub until_at: DateTimeUtc,
    pub requested_at: DateTimeUtc,
    /// `None` until the agent uploads.
    pub received_at: Option<DateTimeUtc>,
    /// The upload, JSON.
    pub samples: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
