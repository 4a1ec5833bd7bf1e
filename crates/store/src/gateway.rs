//! Requests through the metered gateway.

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, EntityTrait, IntoActiveModel, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use crate::entities::gateway_requests;
use crate::{Db, StoreError};

pub type GatewayRequestRecord = gateway_requests::Model;

impl Db {
    pub async fn insert_gateway_request(
        &self,
        request: GatewayRequestRecord,
    ) -> Result<(), StoreError> {
        gateway_requests::Entity::insert(request.into_active_model())
            .exec_without_returning(self.conn())
            .await?;
        Ok(())
    }

    /// A booking's requests from `since` on, oldest first, at most `limit`.
    pub async fn gateway_requests_of(
        &self,
        booking: Uuid,
        since: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<GatewayRequestRecord>, StoreError> {
        Ok(gateway_requests::Entity::find()
            .filter(gateway_requests::Column::BookingId.eq(booking))
            .filter(gateway_requests::Column::StartedAt.gte(since))
            .order_by_asc(gateway_requests::Column::StartedAt)
            .limit(limit)
            .all(self.conn())
            .await?)
    }
}
