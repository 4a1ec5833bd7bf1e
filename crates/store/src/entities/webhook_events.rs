use sea_orm::entity::prelude::*;

/// The outbox: an event, written in the transaction of the change it tells of.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "webhook_events")]
pub struct Model {
    /// Also the deliveries' `webhook-id`: stable across attempts.
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub kind: String,
    /// Whose endpoints hear of it: the renter's, the organisation's, or (a test event) one.
    pub renter_id: Option<Uuid>,
    pub org_id: Option<Uuid>,
    pub endpoint_id: Option<Uuid>,
    /// The payload's `data`, JSON.
    pub data: String,
    pub occurred_at: DateTimeUtc,
    /// Whether its deliveries were made.
    pub fanned_out: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
