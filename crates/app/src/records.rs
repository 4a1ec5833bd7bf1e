//! Records and views read by many use cases, below all of them: what a use case looks up
//! before it decides, and the listing as handed out (so two use cases never reach each other
//! just to read a row).

use chrono::{DateTime, Utc};
use domain::{BadgeState, ListingId, ListingStatus, Money, OrgId, Ssh};
use store::ListingRecord;
use uuid::Uuid;

use crate::{App, AppError};

/// A listing as `app` hands it out: what it is, what it costs, how to reach it, and its
/// latest verification. The engine's API key stays inside (only whether there is one).
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    pub id: ListingId,
    pub org_id: OrgId,
    pub title: String,
    pub gpu_model: String,
    pub gpu_count: i32,
    pub vram_gb: i32,
    pub cpu_model: String,
    pub ram_gb: i32,
    pub region: String,
    /// Per GPU-hour.
    pub price: Money,
    /// The lowest bid per GPU-hour it takes for an interruptible booking (`None`: none).
    pub min_bid: Option<Money>,
    pub engine_base_url: String,
    pub engine_model: String,
    /// The engine the provider states it runs (`engine.name`), if it states one.
    pub engine_name: Option<String>,
    pub has_engine_api_key: bool,
    pub status: ListingStatus,
    pub latest_report_id: Option<domain::ReportId>,
    pub verified_at: Option<DateTime<Utc>>,
    pub headline_total_tok_s: Option<f64>,
    pub headline_per_request_tok_s: Option<f64>,
    /// `unverified`, `verified`, `expired` or `demoted`.
    pub verification_state: BadgeState,
    /// When the badge ends unless a spot check renews it.
    pub verification_expires_at: Option<DateTime<Utc>>,
    pub available_from: Option<DateTime<Utc>>,
    pub available_until: Option<DateTime<Utc>>,
    /// What the listing's last verification or spot check cost its GPU.
    pub last_verification_cost: Option<VerificationCost>,
    pub ssh: Option<Ssh>,
    pub https_url: Option<String>,
    /// What it offers to bookings that ask for a container.
    pub containers: Option<domain::container::ContainerAccess>,
    /// Catalog ids of the claimed GPU and model.
    pub catalog_gpu: Option<String>,
    pub catalog_model: Option<String>,
    /// The share of the verified per-stream speed guaranteed to bookings, in basis points.
    pub guarantee_min_bp: Option<i32>,
    /// The 30-day uptime from liveness probes, 0 to 1; `None` before the first.
    pub reliability: Option<f64>,
    /// The engine as last observed: up (or down), since when.
    pub liveness: Option<(bool, DateTime<Utc>)>,
    /// Its machine's agent's last report matches the claimed hardware (the machine's word,
    /// not an attestation); `false`: the hardware is as claimed.
    pub hardware_confirmed: bool,
    pub created_at: DateTime<Utc>,
}

/// What a verification cost (the report's `cost`).
pub use bench::report::Cost as VerificationCost;

impl Listing {
    /// Seconds since the latest compliant report.
    pub fn verification_age_s(&self, now: DateTime<Utc>) -> Option<i64> {
        self.verified_at.map(|at| (now - at).num_seconds())
    }
}

impl TryFrom<ListingRecord> for Listing {
    type Error = AppError;

    fn try_from(r: ListingRecord) -> Result<Self, AppError> {
        Self::try_from(&r)
    }
}

/// From a record that stays where it is (a search hit's, shared with the in-memory search).
impl TryFrom<&ListingRecord> for Listing {
    type Error = AppError;

    fn try_from(r: &ListingRecord) -> Result<Self, AppError> {
        let price = crate::stored_money(r.price_amount, &r.currency)?;
        let liveness = r.observed_liveness();
        let status = *r.status;
        let ssh = r.ssh().map(|(host, port, user)| Ssh {
            host: host.to_owned(),
            port,
            user: user.to_owned(),
        });
        Ok(Self {
            id: ListingId::from_uuid(r.id),
            org_id: OrgId::from_uuid(r.org_id),
            title: r.title.clone(),
            gpu_model: r.gpu_model.clone(),
            gpu_count: r.gpu_count,
            vram_gb: r.vram_gb,
            cpu_model: r.cpu_model.clone(),
            ram_gb: r.ram_gb,
            region: r.region.clone(),
            price,
            min_bid: r.min_bid_per_gpu_hour.map(|min| price.with_minor(min)),
            engine_base_url: r.engine_base_url.clone(),
            engine_model: r.engine_model.clone(),
            engine_name: r.engine_name.clone(),
            has_engine_api_key: r.engine_api_key.is_some(),
            status,
            latest_report_id: r.latest_report_id.map(Into::into),
            verified_at: r.verified_at,
            headline_total_tok_s: r.headline_total_tok_s,
            headline_per_request_tok_s: r.headline_per_request_tok_s,
            verification_state: r.verification_state.map_or(BadgeState::Unverified, |s| *s),
            verification_expires_at: r.verification_expires_at,
            available_from: r.available_from,
            available_until: r.available_until,
            last_verification_cost: r
                .last_verification_cost
                .as_deref()
                .and_then(|json| serde_json::from_str(json).ok()),
            ssh,
            https_url: r.access_https_url.clone(),
            containers: stored_containers(r),
            catalog_gpu: r.catalog_gpu.clone(),
            catalog_model: r.catalog_model.clone(),
            guarantee_min_bp: r.guarantee_min_bp,
            reliability: r.reliability,
            liveness,
            hardware_confirmed: r.hardware_confirmed,
            created_at: r.created_at,
        })
    }
}

/// What a stored listing offers to bookings that ask for a container (checked when it was
/// stored; a row that does not parse offers none).
pub(crate) fn stored_containers(r: &ListingRecord) -> Option<domain::container::ContainerAccess> {
    r.access_containers
        .as_deref()
        .and_then(|json| serde_json::from_str(json).ok())
}

/// The container a stored booking runs (its `container` column), with its limits (checked
/// when it was booked; a row that does not parse runs none).
pub(crate) fn stored_container(json: Option<&str>) -> Option<domain::container::KeptContainer> {
    json.and_then(|json| serde_json::from_str(json).ok())
}

impl App {
    /// The listing as stored, for the use cases.
    pub(crate) async fn listing_record(&self, id: Uuid) -> Result<ListingRecord, AppError> {
        self.db()
            .listing_by_id(id)
            .await?
            .ok_or(AppError::NotFound("listing"))
    }

    pub async fn listing(&self, id: ListingId) -> Result<Listing, AppError> {
        Listing::try_from(self.listing_record(id.as_uuid()).await?)
    }
}

/// The catalog's GPU a listing is of: the one it names (`catalog_gpu`), else the one its
/// `gpu_model` is called; `None` when the catalog has neither (or cannot be read).
pub(crate) fn catalog_gpu_of(r: &ListingRecord) -> Option<&'static catalog::Gpu> {
    let catalog = catalog::Catalog::get().ok()?;
    match r.catalog_gpu.as_deref() {
        Some(id) => catalog.gpu(id),
        None => catalog.gpu_named(&r.gpu_model),
    }
}
