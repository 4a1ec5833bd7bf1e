use sea_orm::entity::prelude::*;

/// A booking's container's logs: the renter's last request, and the agent's answer (issue 58).
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "container_logs")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub booking_id: Uuid,
    pub listing_id: Uuid,
    /// The request's own id: the agent answers it by this.
    pub request_id: Uuid,
    /// The last lines asked for.
    pub tail: i32,
    pub requested_at: DateTimeUtc,
    /// `None` until the agent answers this request.
    pub received_at: Option<DateTimeUtc>,
    pub text: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
