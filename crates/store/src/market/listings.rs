//! Listings: a provider's machine, its hardware, price, availability, access and engine
//! endpoint, and the summary of its latest verification — created, read, edited, delisted.
//! Search over them is `search.rs`; the projection search reads is `projection.rs`.

use chrono::{DateTime, Utc};
use domain::{ListingSpec, OrgId};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use crate::entities::listings;
use crate::status::{listing_status, move_to};
use crate::trust::projection::{check_kind, record_check, refresh_prices, withdraw};
use crate::{Db, ListingRecord, StoreError};
use domain::ListingStatus;

fn spec_model(spec: &ListingSpec) -> listings::ActiveModel {
    listings::ActiveModel {
        title: Set(spec.title.clone()),
        gpu_model: Set(spec.gpu_model.clone()),
        gpu_count: Set(spec.gpu_count),
        vram_gb: Set(spec.vram_gb),
        cpu_model: Set(spec.cpu_model.clone()),
        ram_gb: Set(spec.ram_gb),
        region: Set(spec.region.clone()),
        price_amount: Set(spec.price.minor()),
        currency: Set(spec.price.currency().code().to_owned()),
        min_bid_per_gpu_hour: Set(spec.min_bid.map(|min| min.minor())),
        engine_base_url: Set(spec.engine_base_url.clone()),
        engine_model: Set(spec.engine_model.clone()),
        engine_name: Set(spec.engine_name.clone()),
        engine_api_key: Set(spec
            .engine_api_key
            .as_ref()
            .map(|key| key.expose().to_owned())),
        available_from: Set(spec.available_from),
        available_until: Set(spec.available_until),
        access_ssh_host: Set(spec.ssh.as_ref().map(|s| s.host.clone())),
        access_ssh_port: Set(spec.ssh.as_ref().map(|s| s.port)),
        access_ssh_user: Set(spec.ssh.as_ref().map(|s| s.user.clone())),
        access_https_url: Set(spec.https_url.clone()),
        catalog_gpu: Set(spec.catalog_gpu.clone()),
        catalog_model: Set(spec.catalog_model.clone()),
        guarantee_min_bp: Set(spec.guarantee_min_bp),
        access_containers: Set(spec
            .containers
            .as_ref()
            .and_then(|c| serde_json::to_string(c).ok())),
        ..Default::default()
    }
}

impl Db {
    pub async fn insert_listing(
        &self,
        id: Uuid,
        org: OrgId,
        spec: &ListingSpec,
        now: DateTime<Utc>,
    ) -> Result<ListingRecord, StoreError> {
        self.insert_listing_within(id, org, spec, now, u64::MAX, None)
            .await?
            .ok_or_else(|| StoreError::Corrupt("no room under an unbounded quota".into()))
    }

    /// Inserts a listing unless the organisation holds `quota` listings not delisted already
    /// (`None`): decided in one transaction under the organisation's row lock, so racing
    /// requests never take it past its quota.
    pub async fn insert_listing_within(
        &self,
        id: Uuid,
        org: OrgId,
        spec: &ListingSpec,
        now: DateTime<Utc>,
        quota: u64,
        audit: Option<&crate::Audit>,
    ) -> Result<Option<ListingRecord>, StoreError> {
        use sea_orm::{PaginatorTrait, QuerySelect};
        let _search = self.search_touch();
        let mut model = spec_model(spec);
        model.id = Set(id);
        model.org_id = Set(org.as_uuid());
        model.status = Set(ListingStatus::Active.into());
        model.latest_report_id = Set(None);
        model.verified_at = Set(None);
        model.headline_total_tok_s = Set(None);
        model.headline_per_request_tok_s = Set(None);
        model.headline_price_per_mtok = Set(None);
        model.delisted_at = Set(None);
        model.verification_state = Set(None);
        model.verification_expires_at = Set(None);
        model.next_spot_check_at = Set(None);
        model.last_verification_cost = Set(None);
        model.created_at = Set(now);
        model.updated_at = Set(now);
        let txn = self.write().await?;
        crate::entities::orgs::Entity::find_by_id(org.as_uuid())
            .lock_exclusive()
            .one(&txn)
            .await?;
        let held = listings::Entity::find()
            .filter(listings::Column::OrgId.eq(org.as_uuid()))
            .filter(listings::Column::DelistedAt.is_null())
            .count(&txn)
            .await?;
        if held >= quota {
            txn.rollback().await?;
            return Ok(None);
        }
        listings::Entity::insert(model)
            .exec_without_returning(&txn)
            .await?;
        crate::identity::audit::record(&txn, audit).await?;
        txn.commit().await?;
        self.listing_by_id(id)
            .await?
            .map(Some)
            .ok_or_else(|| StoreError::Corrupt(format!("listing {id} vanished after insert")))
    }

    pub async fn listing_by_id(&self, id: Uuid) -> Result<Option<ListingRecord>, StoreError> {
        Ok(listings::Entity::find_by_id(id).one(self.conn()).await?)
    }

    pub async fn listings_of_org(&self, org: OrgId) -> Result<Vec<ListingRecord>, StoreError> {
        Ok(listings::Entity::find()
            .filter(listings::Column::OrgId.eq(org.as_uuid()))
            .order_by_asc(listings::Column::CreatedAt)
            .all(self.conn())
            .await?)
    }

    /// Replaces an active listing's specification. With `unverify` (the hardware or engine
    /// changed, so the latest report no longer describes the machine) its verification
    /// summary and search figures are dropped; otherwise the price-derived figures follow
    /// the new price. `None` when there is no such active listing.
    pub async fn update_listing(
        &self,
        id: Uuid,
        spec: &ListingSpec,
        unverify: bool,
        now: DateTime<Utc>,
        audit: Option<&crate::Audit>,
    ) -> Result<Option<ListingRecord>, StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        let updated = listings::Entity::update_many()
            .set(spec_model(spec))
            .col_expr(listings::Column::UpdatedAt, Expr::value(now))
            .filter(listings::Column::Id.eq(id))
            .filter(listings::Column::Status.eq(listing_status::ACTIVE))
            .exec(&txn)
            .await?;
        if updated.rows_affected == 0 {
            return Ok(None);
        }
        if unverify {
            let previous = listings::Entity::find_by_id(id)
                .one(&txn)
                .await?
                .and_then(|l| l.latest_report_id);
            withdraw(&txn, id, None, None).await?;
            record_check(
                &txn,
                id,
                check_kind::WITHDRAWN,
                (None, previous),
                Some("the listing's hardware or engine was changed"),
                now,
            )
            .await?;
        }
        refresh_prices(&txn, id).await?;
        crate::identity::audit::record(&txn, audit).await?;
        txn.commit().await?;
        self.listing_by_id(id).await
    }

    /// Takes a listing off the market: it can no longer be found or booked; its bookings
    /// and reports stay. `false` when it was not active.
    pub async fn delist_listing(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
        audit: Option<&crate::Audit>,
    ) -> Result<bool, StoreError> {
        let _search = self.search_touch();
        let txn = self.write().await?;
        crate::trust::projection::clear(&txn, id).await?;
        let result = move_to(
            listings::Entity::update_many(),
            listings::Column::Status,
            ListingStatus::Delisted,
        )
        .col_expr(listings::Column::DelistedAt, Expr::value(now))
        .col_expr(listings::Column::UpdatedAt, Expr::value(now))
        .filter(listings::Column::Id.eq(id))
        .exec(&txn)
        .await?;
        if result.rows_affected == 1 {
            crate::identity::audit::record(&txn, audit).await?;
        }
        txn.commit().await?;
        Ok(result.rows_affected == 1)
    }
}

/// Listings whose availability window covers `[from, until)` (either end may be open).
pub(crate) fn covers_window(from: DateTime<Utc>, until: DateTime<Utc>) -> Condition {
    use listings::Column as L;
    Condition::all()
        .add(
            Condition::any()
                .add(L::AvailableFrom.is_null())
                .add(L::AvailableFrom.lte(from)),
        )
        .add(
            Condition::any()
                .add(L::AvailableUntil.is_null())
                .add(L::AvailableUntil.gte(until)),
        )
}
