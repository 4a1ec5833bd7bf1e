use sea_orm::entity::prelude::*;

/// Where a user or an organisation is told of events.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, serde::Serialize)]
#[sea_orm(table_name = "webhook_endpoints")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    /// Exactly one of the owners is set.
    pub owner_user_id: Option<Uuid>,
    pub owner_org_id: Option<Uuid>,
    pub url: String,
    /// The event types it receives, space-separated.
    pub events: String,
    /// The signing secret, sealed.
    pub secret: String,
    /// The secret a rotation replaced, sealed: deliveries are signed with both until
    /// `previous_secret_until`.
    pub previous_secret: Option<String>,
    pub previous_secret_until: Option<DateTimeUtc>,
    pub enabled: bool,
    /// Since when every attempt has failed (`None` after a success).
    pub failing_since: Option<DateTimeUtc>,
    pub disabled_at: Option<DateTimeUtc>,
    pub disabled_reason: Option<String>,
    pub created_by: Uuid,
    pub created_at: DateTimeUtc,
    /// Attempts in a row that got no answer in time: each shortens the next one's timeout.
    pub timeout_streak: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
