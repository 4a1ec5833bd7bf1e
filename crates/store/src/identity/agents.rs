//! The provider's agent: the listings its key is bound to, and what it last reported of each
//! listing's machine.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect, sea_query::OnConflict};
use uuid::Uuid;

use crate::entities::{agent_heartbeats, api_key_listings, listing_agents};
use crate::{Db, StoreError};

/// What a listing's agent last reported, as stored.
pub type ListingAgentRecord = listing_agents::Model;

/// When a listing's agent was last heard, as the database keeps it.
pub type AgentHeartbeatRecord = agent_heartbeats::Model;

impl Db {
    /// The listings an agent's key is bound to.
    pub async fn key_listings(&self, key_id: Uuid) -> Result<Vec<Uuid>, StoreError> {
        Ok(api_key_listings::Entity::find()
            .select_only()
            .column(api_key_listings::Column::ListingId)
            .filter(api_key_listings::Column::KeyId.eq(key_id))
            .into_tuple()
            .all(self.conn())
            .await?)
    }

    /// Keeps what a listing's agent reported, in place of what it reported before.
    pub async fn put_listing_agent(&self, record: ListingAgentRecord) -> Result<(), StoreError> {
        let txn = self.write().await?;
        listing_agents::Entity::insert(listing_agents::ActiveModel::from(record))
            .on_conflict(
                OnConflict::column(listing_agents::Column::ListingId)
                    .update_columns([
                        listing_agents::Column::Facts,
                        listing_agents::Column::ReportedAt,
                    ])
                    .to_owned(),
            )
            .exec_without_returning(&txn)
            .await?;
        txn.commit().await?;
        Ok(())
    }

    /// What a listing's agent last reported; `None` before it reported.
    pub async fn listing_agent(
        &self,
        listing_id: Uuid,
    ) -> Result<Option<ListingAgentRecord>, StoreError> {
        Ok(listing_agents::Entity::find_by_id(listing_id)
            .one(self.conn())
            .await?)
    }

    /// Keeps a listing's agent's heartbeat, in place of the last one.
    pub async fn put_agent_heartbeat(
        &self,
        record: AgentHeartbeatRecord,
    ) -> Result<(), StoreError> {
        let txn = self.write().await?;
        agent_heartbeats::Entity::insert(agent_heartbeats::ActiveModel::from(record))
            .on_conflict(
                OnConflict::column(agent_heartbeats::Column::ListingId)
                    .update_columns([
                        agent_heartbeats::Column::AgentVersion,
                        agent_heartbeats::Column::Accounts,
                        agent_heartbeats::Column::LastSeenAt,
                    ])
                    .to_owned(),
            )
            .exec_without_returning(&txn)
            .await?;
        txn.commit().await?;
        Ok(())
    }

    /// A listing's agent's last heartbeat the database kept; `None` before its first.
    pub async fn agent_heartbeat(
        &self,
        listing_id: Uuid,
    ) -> Result<Option<AgentHeartbeatRecord>, StoreError> {
        Ok(agent_heartbeats::Entity::find_by_id(listing_id)
            .one(self.conn())
            .await?)
    }
}
