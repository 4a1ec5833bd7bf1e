//! The market's price history, stored: what a closed bucket is rolled up from (the listings
//! that existed in it, the bookings that held GPUs in it, the organisations' members), its
//! rows written once with the bucket marked rolled up, and the rows read back.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
};
use uuid::Uuid;

use crate::entities::{bookings, listings, market_history, market_history_buckets, memberships};
use crate::{BookingRecord, Db, ListingRecord, StoreError};

pub type HistoryRecord = market_history::Model;

/// What one bucket is rolled up from.
#[derive(Debug, Clone, Default)]
pub struct BucketInputs {
    /// Listings that existed during it (made before its end, not delisted before its start).
    pub listings: Vec<ListingRecord>,
    /// Bookings of those listings overlapping it, in any status (the rollup decides which
    /// held GPUs, and when).
    pub bookings: Vec<BookingRecord>,
    /// `(org, user)`: the members of those listings' organisations.
    pub members: Vec<(Uuid, Uuid)>,
}

impl Db {
    /// The starts of `bucket`'s buckets rolled up at or after `since`.
    pub async fn history_rolled_up(
        &self,
        bucket: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<DateTime<Utc>>, StoreError> {
        use market_history_buckets::Column as B;
        Ok(market_history_buckets::Entity::find()
            .select_only()
            .column(B::StartsAt)
            .filter(B::Bucket.eq(bucket))
            .filter(B::StartsAt.gte(since))
            .into_tuple()
            .all(self.conn())
            .await?)
    }

    /// What the bucket `[from, until)` is rolled up from.
    pub async fn history_inputs(
        &self,
        from: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<BucketInputs, StoreError> {
        let listings = listings::Entity::find()
            .filter(listings::Column::CreatedAt.lt(until))
            .filter(
                Condition::any()
                    .add(listings::Column::DelistedAt.is_null())
                    .add(listings::Column::DelistedAt.gt(from)),
            )
            .all(self.conn())
            .await?;
        let ids: Vec<Uuid> = listings.iter().map(|l| l.id).collect();
        let mut orgs: Vec<Uuid> = listings.iter().map(|l| l.org_id).collect();
        orgs.sort_unstable();
        orgs.dedup();
        let mut bookings = Vec::new();
        let mut members = Vec::new();
        // In chunks: a bound on every statement's parameters.
        for chunk in ids.chunks(500) {
            bookings.extend(
                bookings::Entity::find()
                    .filter(bookings::Column::ListingId.is_in(chunk.iter().copied()))
                    .filter(bookings::Column::StartsAt.lt(until))
                    .filter(bookings::Column::EndsAt.gt(from))
                    .order_by_asc(bookings::Column::Id)
                    .all(self.conn())
                    .await?,
            );
        }
        for chunk in orgs.chunks(500) {
            let found: Vec<(Uuid, Uuid)> = memberships::Entity::find()
                .select_only()
                .column(memberships::Column::OrgId)
                .column(memberships::Column::UserId)
                .filter(memberships::Column::OrgId.is_in(chunk.iter().copied()))
                .into_tuple()
                .all(self.conn())
                .await?;
            members.extend(found);
        }
        Ok(BucketInputs {
            listings,
            bookings,
            members,
        })
    }

    /// Writes a closed bucket's rows and marks it rolled up, once: a bucket already rolled up
    /// (by another replica) keeps its rows. `false` when it was.
    pub async fn write_history(
        &self,
        bucket: &str,
        starts_at: DateTime<Utc>,
        rows: Vec<HistoryRecord>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        use market_history_buckets::Column as B;
        let txn = self.write().await?;
        let marked = market_history_buckets::Entity::insert(market_history_buckets::ActiveModel {
            bucket: Set(bucket.to_owned()),
            starts_at: Set(starts_at),
            rolled_up_at: Set(now),
        })
        .on_conflict(
            OnConflict::columns([B::Bucket, B::StartsAt])
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(&txn)
        .await?;
        if marked != 1 {
            return Ok(false);
        }
        if !rows.is_empty() {
            use sea_orm::ActiveModelTrait;
            market_history::Entity::insert_many(
                rows.into_iter()
                    .map(|r| market_history::ActiveModel::from(r).reset_all()),
            )
            .exec_without_returning(&txn)
            .await?;
        }
        txn.commit().await?;
        Ok(true)
    }

    /// The history of `gpu` (`*`: every listing) in `currency` by `bucket`, for buckets
    /// starting in `[from, until)`, oldest first.
    pub async fn market_history(
        &self,
        bucket: &str,
        gpu: &str,
        currency: &str,
        (from, until): (DateTime<Utc>, DateTime<Utc>),
    ) -> Result<Vec<HistoryRecord>, StoreError> {
        use market_history::Column as H;
        Ok(market_history::Entity::find()
            .filter(H::Bucket.eq(bucket))
            .filter(H::Gpu.eq(gpu))
            .filter(H::Currency.eq(currency))
            .filter(H::StartsAt.gte(from))
            .filter(H::StartsAt.lt(until))
            .order_by_asc(H::StartsAt)
            .all(self.conn())
            .await?)
    }
}
