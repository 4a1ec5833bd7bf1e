use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "listings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub org_id: Uuid,
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
    pub status: crate::status::Stored<domain::ListingStatus>,
    pub latest_report_id: Option<Uuid>,
    pub verified_at: Option<DateTimeUtc>,
    pub headline_total_tok_s: Option<f64>,
    pub headline_per_request_tok_s: Option<f64>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub available_from: Option<DateTimeUtc>,
    pub available_until: Option<DateTimeUtc>,
    pub access_ssh_host: Option<String>,
    pub access_ssh_port: Option<i32>,
    pub access_ssh_user: Option<String>,
    pub access_https_url: Option<String>,
    pub engine_api_key: Option<String>,
    pub headline_price_per_mtok: Option<f64>,
    pub delisted_at: Option<DateTimeUtc>,
    pub verification_state: Option<crate::status::Stored<domain::BadgeState>>,
    pub verification_expires_at: Option<DateTimeUtc>,
    pub next_spot_check_at: Option<DateTimeUtc>,
    /// The last verification's `cost` (JSON), verification or spot check.
    pub last_verification_cost: Option<String>,
    pub catalog_gpu: Option<String>,
    pub catalog_model: Option<String>,
    /// The guaranteed share of the verified speed, in basis points.
    pub guarantee_min_bp: Option<i32>,
    /// When a credit last brought the spot check forward (at most once per
    /// `spot_check_every_secs`).
    pub spot_check_forwarded_at: Option<DateTimeUtc>,
    /// `up` or `down` as last observed (by a probe or the gateway); unset before the first.
    pub liveness_state: Option<String>,
    /// Since when it has been in `liveness_state`.
    pub liveness_since: Option<DateTimeUtc>,
    /// When its engine is next probed; claiming a probe moves it a period ahead.
    pub probe_due_at: Option<DateTimeUtc>,
    /// Its 30-day uptime, 0 to 1; unset before the first observation.
    pub reliability: Option<f64>,
    /// The engine the provider states it runs (`engine.name`); unset when it states none.
    pub engine_name: Option<String>,
    /// The engine its latest verified report measured; unset while unverified.
    pub measured_engine: Option<String>,
    /// Its machine's agent's last report matches the claim (the machine's word).
    pub hardware_confirmed: bool,
    /// What it offers to bookings that ask for a container (`domain::container::ContainerAccess`,
    /// JSON); unset when it offers none.
    pub access_containers: Option<String>,
    /// The lowest bid per GPU-hour it takes for an interruptible booking, minor units; unset
    /// when it takes none.
    pub min_bid_per_gpu_hour: Option<i64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}

impl Model {
    /// The engine as last observed: up (or down), since when; `None` before the first
    /// observation.
    pub fn observed_liveness(&self) -> Option<(bool, DateTimeUtc)> {
        self.liveness_state
            .as_deref()
            .zip(self.liveness_since)
            .map(|(state, since)| (state == "up", since))
    }

    /// SSH access `(host, port, user)`, when the listing has it (all three are set together).
    pub fn ssh(&self) -> Option<(&str, i32, &str)> {
        match (
            &self.access_ssh_host,
            self.access_ssh_port,
            &self.access_ssh_user,
        ) {
            (Some(host), Some(port), Some(user)) => Some((host, port, user)),
            _ => None,
        }
    }
}
