//! Listings: a provider's machine, its hardware, price and engine endpoint, and the summary
//! of its latest verification.

use chrono::{DateTime, Utc};
use domain::OrgId;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use uuid::Uuid;

use crate::entities::listings;
use crate::{Db, StoreError};

#[derive(Debug, Clone)]
pub struct NewListing {
    pub id: Uuid,
    pub org_id: OrgId,
    pub title: String,
    pub gpu_model: String,
    pub gpu_count: i32,
    pub vram_gb: i32,
    pub cpu_model: String,
    pub ram_gb: i32,
    pub region: String,
    pub price_amount: i64,
    pub currency: String,
    pub engine_base_url: String,
    pub engine_model: String,
    pub now: DateTime<Utc>,
}

pub type ListingRecord = listings::Model;

impl Db {
    pub async fn insert_listing(&self, new: NewListing) -> Result<ListingRecord, StoreError> {
        let model = listings::ActiveModel {
            id: Set(new.id),
            org_id: Set(new.org_id.as_uuid()),
            title: Set(new.title),
            gpu_model: Set(new.gpu_model),
            gpu_count: Set(new.gpu_count),
            vram_gb: Set(new.vram_gb),
            cpu_model: Set(new.cpu_model),
            ram_gb: Set(new.ram_gb),
            region: Set(new.region),
            price_amount: Set(new.price_amount),
            currency: Set(new.currency),
            engine_base_url: Set(new.engine_base_url),
            engine_model: Set(new.engine_model),
            status: Set("active".to_owned()),
            latest_report_id: Set(None),
            verified_at: Set(None),
            headline_total_tok_s: Set(None),
            headline_per_request_tok_s: Set(None),
            created_at: Set(new.now),
            updated_at: Set(new.now),
        };
        listings::Entity::insert(model)
            .exec_without_returning(self.conn())
            .await?;
        self.listing_by_id(new.id)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("listing {} vanished after insert", new.id)))
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

    /// Records a compliant report as the listing's latest verification.
    pub async fn set_listing_verification(
        &self,
        listing: Uuid,
        report: Uuid,
        at: DateTime<Utc>,
        total_tok_s: Option<f64>,
        per_request_tok_s: Option<f64>,
    ) -> Result<(), StoreError> {
        listings::Entity::update_many()
            .col_expr(listings::Column::LatestReportId, Expr::value(report))
            .col_expr(listings::Column::VerifiedAt, Expr::value(at))
            .col_expr(
                listings::Column::HeadlineTotalTokS,
                Expr::value(total_tok_s),
            )
            .col_expr(
                listings::Column::HeadlinePerRequestTokS,
                Expr::value(per_request_tok_s),
            )
            .col_expr(listings::Column::UpdatedAt, Expr::value(at))
            .filter(listings::Column::Id.eq(listing))
            .exec(self.conn())
            .await?;
        Ok(())
    }
}
