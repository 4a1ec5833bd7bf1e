//! The provider's agent: the listings its key is bound to, and what it last reported of each
//! listing's machine.

use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use uuid::Uuid;

use crate::entities::{agent_heartbeats, api_key_listings, listing_agents, listings};
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

    /// Keeps what a listing's agent reported, in place of what it reported before, and
    /// whether it `confirms` the listing's claim (what search filters by).
    pub async fn put_listing_agent(
        &self,
        record: ListingAgentRecord,
        confirms: bool,
    ) -> Result<(), StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        set_confirmed(&txn, record.listing_id, confirms).await?;
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

    /// Forgets a listing's agent: its last report and heartbeat, and the confirmation they
    /// gave. Whether there was one.
    pub async fn delete_listing_agent(&self, listing_id: Uuid) -> Result<bool, StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let reports = listing_agents::Entity::delete_by_id(listing_id)
            .exec(&txn)
            .await?
            .rows_affected;
        let beats = agent_heartbeats::Entity::delete_by_id(listing_id)
            .exec(&txn)
            .await?
            .rows_affected;
        set_confirmed(&txn, listing_id, false).await?;
        txn.commit().await?;
        Ok(reports + beats > 0)
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

    /// Whether the listing's hardware is confirmed by its agent (after its claim changed).
    pub async fn set_hardware_confirmed(
        &self,
        listing: Uuid,
        confirmed: bool,
    ) -> Result<(), StoreError> {
        let _search = self.search_touch();
        set_confirmed(self.conn(), listing, confirmed).await
    }

    /// What the agents of `listings` last reported (those that reported).
    pub async fn listing_agents_of(
        &self,
        listings: &[Uuid],
    ) -> Result<Vec<ListingAgentRecord>, StoreError> {
        let mut found = Vec::new();
        // Bounded binds a query, whatever the number of listings.
        for chunk in listings.chunks(500) {
            found.extend(
                listing_agents::Entity::find()
                    .filter(listing_agents::Column::ListingId.is_in(chunk.iter().copied()))
                    .all(self.conn())
                    .await?,
            );
        }
        Ok(found)
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
                        agent_heartbeats::Column::ClockOffsetMs,
                        agent_heartbeats::Column::GpuHealth,
                        agent_heartbeats::Column::Containers,
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

/// Sets `listings.hardware_confirmed` where it differs (an unchanged value stamps nothing).
async fn set_confirmed(
    conn: &impl ConnectionTrait,
    listing: Uuid,
    confirmed: bool,
) -> Result<(), StoreError> {
    listings::Entity::update_many()
        .col_expr(listings::Column::HardwareConfirmed, Expr::value(confirmed))
        .filter(listings::Column::Id.eq(listing))
        .filter(listings::Column::HardwareConfirmed.ne(confirmed))
        .exec(conn)
        .await?;
    Ok(())
}
