//! Listings: created by members of the provider organisation, readable by anyone.

use chrono::{DateTime, Utc};
use domain::{ListingInput, ListingSpec, OrgId, Role};
use store::{ListingRecord, NewListing};
use uuid::Uuid;

use crate::{App, AppError, Caller};

/// A listing as the API shows it.
#[derive(Debug, Clone)]
pub struct Listing {
    pub record: ListingRecord,
}

impl Listing {
    pub fn org_id(&self) -> OrgId {
        OrgId::from_uuid(self.record.org_id)
    }

    /// Seconds since the latest compliant report.
    pub fn verification_age_s(&self, now: DateTime<Utc>) -> Option<i64> {
        self.record.verified_at.map(|at| (now - at).num_seconds())
    }
}

impl App {
    pub async fn create_listing(
        &self,
        caller: Caller,
        org: OrgId,
        input: &ListingInput<'_>,
    ) -> Result<Listing, AppError> {
        let spec = ListingSpec::parse(input)?;
        if self.db().org_by_id(org).await?.is_none() {
            return Err(domain::ValidationError::new("org_id", "no such organisation").into());
        }
        self.require_role(caller, org, Role::Member).await?;
        let record = self
            .db()
            .insert_listing(NewListing {
                id: Uuid::now_v7(),
                org_id: org,
                title: spec.title,
                gpu_model: spec.gpu_model,
                gpu_count: spec.gpu_count,
                vram_gb: spec.vram_gb,
                cpu_model: spec.cpu_model,
                ram_gb: spec.ram_gb,
                region: spec.region,
                price_amount: spec.price_per_gpu_hour,
                currency: spec.currency,
                engine_base_url: spec.engine_base_url,
                engine_model: spec.engine_model,
                now: Utc::now(),
            })
            .await?;
        Ok(Listing { record })
    }

    pub async fn listing(&self, id: Uuid) -> Result<Listing, AppError> {
        self.db()
            .listing_by_id(id)
            .await?
            .map(|record| Listing { record })
            .ok_or(AppError::NotFound("listing"))
    }
}
