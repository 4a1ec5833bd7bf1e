//! The provider's agent: the listings its key is bound to, and what it last reported of each
//! listing's machine.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect, sea_query::OnConflict};
use uuid::Uuid;

use crate::entities::{api_key_listings, listing_agents};
use crate::{Db, StoreError};

/// What a listing's agent last reported, as stored.
pub type ListingAgentRecord = listing_agents::Model;

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
                        listing_agents::Column::Differences,
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
}
