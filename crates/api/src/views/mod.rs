//! The JSON shapes the API answers with, documented in the OpenAPI document. Each converts
//! from an `app` type; no handler builds JSON by hand.

mod bookings;
mod containers;

pub use bookings::BookingView;
pub use containers::{BookingContainerView, ContainerAccessView};

use app::identity::accounts::{ApiKey, TokenPair, User};
use app::identity::orgs::{Member, Org};
use chrono::{DateTime, Utc};
use domain::Role;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// The cursor after a page of `items` read with `limit`: the last item's id when the page is
/// full, none after a short page (the last one).
pub fn cursor_after<T>(items: &[T], limit: u64, id: impl Fn(&T) -> String) -> Option<String> {
    (items.len() as u64 == limit)
        .then(|| items.last().map(id))
        .flatten()
}

/// A list page. `next_cursor` is absent on the last page.
#[derive(Debug, Serialize, ToSchema)]
pub struct Page<T: ToSchema> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

impl<T: ToSchema> Page<T> {
    /// A complete list, in one page.
    pub fn all(items: Vec<T>) -> Self {
        Self {
            items,
            next_cursor: None,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct UserView {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub created_at: DateTime<Utc>,
    /// When the account confirmed its address; null while it has not (see
    /// `email_verification`).
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub email_verified_at: Option<DateTime<Utc>>,
}

impl From<User> for UserView {
    fn from(u: User) -> Self {
        Self {
            id: u.id.as_uuid(),
            email: u.email,
            name: u.name,
            created_at: u.created_at,
            email_verified_at: u.email_verified_at,
        }
    }
}

/// Tokens for a session. The refresh token is shown once; store it safely.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenPairView {
    pub access_token: String,
    pub refresh_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until the access token expires.
    pub expires_in: i64,
}

impl From<TokenPair> for TokenPairView {
    fn from(t: TokenPair) -> Self {
        Self {
            access_token: t.access_token,
            refresh_token: t.refresh_token,
            token_type: "Bearer",
            expires_in: t.expires_in,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyView {
    pub id: Uuid,
    pub name: String,
    /// The key's first characters, to tell keys apart. Never the key.
    pub prefix: String,
    /// An organisation key's scopes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<String>>,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub created_at: DateTime<Utc>,
    /// When the key was last used, to the minute.
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub last_used_at: Option<DateTime<Utc>>,
}

impl From<ApiKey> for ApiKeyView {
    fn from(k: ApiKey) -> Self {
        Self {
            id: k.id.as_uuid(),
            name: k.name,
            prefix: k.prefix,
            scopes: k
                .scopes
                .map(|s| s.iter().map(|s| s.as_str().to_owned()).collect()),
            created_at: k.created_at,
            last_used_at: k.last_used_at,
        }
    }
}

/// A member's role in an organisation.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoleView {
    Owner,
    Admin,
    Member,
}

impl From<Role> for RoleView {
    fn from(r: Role) -> Self {
        match r {
            Role::Owner => Self::Owner,
            Role::Admin => Self::Admin,
            Role::Member => Self::Member,
        }
    }
}

impl From<RoleView> for Role {
    fn from(r: RoleView) -> Self {
        match r {
            RoleView::Owner => Self::Owner,
            RoleView::Admin => Self::Admin,
            RoleView::Member => Self::Member,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OrgView {
    pub id: Uuid,
    pub name: String,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub created_at: DateTime<Utc>,
}

impl From<Org> for OrgView {
    fn from(o: Org) -> Self {
        Self {
            id: o.id.as_uuid(),
            name: o.name,
            created_at: o.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MemberView {
    pub user_id: Uuid,
    pub email: String,
    pub name: String,
    pub role: RoleView,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub joined_at: DateTime<Utc>,
}

impl From<Member> for MemberView {
    fn from(m: Member) -> Self {
        Self {
            user_id: m.user_id.as_uuid(),
            email: m.email,
            name: m.name,
            role: m.role.into(),
            joined_at: m.joined_at,
        }
    }
}

/// A listing's hardware as the provider claims it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct HardwareView {
    pub gpu_model: String,
    pub gpu_count: i32,
    pub vram_gb: i32,
    pub cpu_model: String,
    pub ram_gb: i32,
}

/// A price per GPU-hour in integer minor units (cents) of an ISO 4217 currency.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PriceView {
    pub amount_per_gpu_hour: i64,
    pub currency: String,
    /// The lowest bid per GPU-hour, in the same minor units, it takes for an interruptible
    /// booking; `null`: it takes none.
    #[serde(default)]
    pub min_bid_per_gpu_hour: Option<i64>,
}

/// The engine verification measures. `base_url` is shown to the provider's members only;
/// the API key never is, only whether one is set.
#[derive(Debug, Serialize, ToSchema)]
pub struct EngineView {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    pub model: String,
    /// The engine the provider states it runs (`vllm`, `llamacpp`, `sglang`, `tgi`); absent
    /// when it states none. The verified report names the engine it measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub has_api_key: bool,
}

/// When the machine may be booked: `[from, until)`; an absent end is open.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AvailabilityWindowView {
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub from: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub until: Option<DateTime<Utc>>,
}

/// SSH access to a machine.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SshView {
    pub host: String,
    pub port: i64,
    pub user: String,
}

/// How renters reach the machine. The details are shown to the provider's members and,
/// through `GET /v1/bookings/{id}/access`, to renters; everyone sees `methods`.
#[derive(Debug, Serialize, ToSchema)]
pub struct AccessView {
    /// `ssh`, `https` and/or `containers`.
    pub methods: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ssh: Option<SshView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub https_url: Option<String>,
    /// What a booking may run in a container of its own (public: a renter chooses by it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub containers: Option<ContainerAccessView>,
}

impl AccessView {
    pub fn of(r: &app::market::listings::Listing, with_details: bool) -> Self {
        let ssh = r.ssh.as_ref().map(|ssh| SshView {
            host: ssh.host.clone(),
            port: i64::from(ssh.port),
            user: ssh.user.clone(),
        });
        let mut methods = Vec::new();
        if ssh.is_some() {
            methods.push("ssh");
        }
        if r.https_url.is_some() {
            methods.push("https");
        }
        if r.containers.is_some() {
            methods.push("containers");
        }
        Self {
            methods,
            ssh: ssh.filter(|_| with_details),
            https_url: r.https_url.clone().filter(|_| with_details),
            containers: r.containers.clone().map(ContainerAccessView::from),
        }
    }
}

/// The latest compliant verification and its headline figures.
#[derive(Debug, Serialize, ToSchema)]
pub struct VerificationSummaryView {
    pub report_id: Uuid,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub verified_at: DateTime<Utc>,
    /// When the badge ends unless an unannounced spot check renews it.
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub expires_at: Option<DateTime<Utc>>,
    /// Seconds since the report was made.
    pub age_s: i64,
    /// Best valid total tok/s of any decode cell.
    pub best_total_tok_s: Option<f64>,
    /// Per-request tok/s of one stream at the smallest context.
    pub single_stream_tok_s: Option<f64>,
    /// Whether the figures were checked against the physical limit of the catalog GPU for
    /// the catalog model (both `catalog` ids set); `false`: nothing checked them.
    pub hardware_checked: bool,
}

/// A listing's catalog entries: ids of `GET /v1/hardware` and `GET /v1/models`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CatalogView {
    #[serde(default)]
    pub gpu: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
}

/// A listing's performance guarantee.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GuaranteeView {
    /// The share of the verified per-stream speed guaranteed (above 0, at most 1): a
    /// five-minute bucket delivered below it, at a load the report measured as valid and to
    /// a client reading fast enough, credits the booking that bucket's share of its price.
    pub min_fraction: f64,
}

/// What the listing's last verification (or spot check) cost its GPU (standard, "Cost").
#[derive(Debug, Serialize, ToSchema)]
pub struct VerificationCostView {
    /// Seconds the run took.
    pub wall_s: f64,
    /// Seconds the engine had at least one of the harness's requests open.
    pub gpu_s_estimate: f64,
    /// Decode cells measured.
    pub cells_run: u64,
    /// Decode cells skipped as over capacity.
    pub cells_skipped: u64,
}

impl From<app::market::listings::VerificationCost> for VerificationCostView {
    fn from(c: app::market::listings::VerificationCost) -> Self {
        Self {
            wall_s: c.wall_s,
            gpu_s_estimate: c.gpu_s_estimate,
            cells_run: c.cells_run,
            cells_skipped: c.cells_skipped,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ListingView {
    pub id: Uuid,
    pub org_id: Uuid,
    pub title: String,
    pub hardware: HardwareView,
    /// `true`: the machine's agent reports the hardware claimed ("confirmed by agent") — the
    /// machine's word, not a cryptographic attestation; `false`: as claimed by the provider.
    pub hardware_confirmed: bool,
    pub region: String,
    pub price: PriceView,
    pub engine: EngineView,
    pub availability: AvailabilityWindowView,
    pub access: AccessView,
    /// `active`, or `delisted` (no longer found or bookable).
    pub status: String,
    pub verified: bool,
    /// `unverified`, `verified`, `expired` (no spot check renewed the badge in time) or
    /// `demoted` (a spot check found the machine or engine no longer as verified).
    pub verification_state: &'static str,
    pub verification: Option<VerificationSummaryView>,
    /// What the last verification or spot check cost the provider's GPU.
    pub last_verification_cost: Option<VerificationCostView>,
    /// The claimed GPU's and model's catalog entries, when given.
    pub catalog: Option<CatalogView>,
    /// The performance guarantee new bookings get, when the listing offers one.
    pub guarantee: Option<GuaranteeView>,
    /// The 30-day uptime from liveness probes, 0 to 1 (time in maintenance announced in
    /// time left out); `null` before the first probe. `GET /v1/listings/{id}/uptime` has
    /// the rest.
    pub reliability: Option<f64>,
    /// The engine as last observed by a probe (or a gateway request that could not reach
    /// it); `null` before the first.
    pub liveness: Option<LivenessView>,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub created_at: DateTime<Utc>,
}

/// The measured figures a hit was found and ordered by.
#[derive(Debug, Serialize, ToSchema)]
pub struct MatchView {
    /// Verified total tok/s at the requested cell, or the listing's best.
    pub total_tok_s: Option<f64>,
    /// Price per million output tokens in minor units: the machine's price per hour
    /// (price per GPU-hour × GPUs) ÷ (total tok/s × 3600) × 10⁶.
    pub price_per_mtok: Option<f64>,
    /// Energy per output token at the requested cell, J: the GPUs' energy over the cell's
    /// window as the machine's agent sampled it (`source: agent`); `null` without a cell, or
    /// where the report has none.
    pub energy_j_per_token: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SearchHitView {
    #[serde(flatten)]
    pub listing: ListingView,
    #[serde(rename = "match")]
    pub figures: MatchView,
}

/// A machine's engine as last observed.
#[derive(Debug, Serialize, ToSchema)]
pub struct LivenessView {
    /// `up` or `down`.
    pub state: &'static str,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub since: DateTime<Utc>,
}

impl ListingView {
    /// `with_endpoint`: the viewer (a member of the provider) may see the engine's address
    /// and the access details.
    pub fn new(listing: app::market::listings::Listing, with_endpoint: bool) -> Self {
        let now = Utc::now();
        let access = AccessView::of(&listing, with_endpoint);
        let age = listing.verification_age_s(now);
        let r = listing;
        let hardware_checked = r.catalog_gpu.is_some() && r.catalog_model.is_some();
        let catalog = (r.catalog_gpu.is_some() || r.catalog_model.is_some()).then(|| CatalogView {
            gpu: r.catalog_gpu.clone(),
            model: r.catalog_model.clone(),
        });
        let verification = match (r.latest_report_id, r.verified_at) {
            (Some(report_id), Some(verified_at)) => Some(VerificationSummaryView {
                report_id: report_id.into(),
                verified_at,
                expires_at: r.verification_expires_at,
                age_s: age.unwrap_or_default(),
                best_total_tok_s: r.headline_total_tok_s,
                single_stream_tok_s: r.headline_per_request_tok_s,
                hardware_checked,
            }),
            _ => None,
        };
        Self {
            id: r.id.into(),
            org_id: r.org_id.into(),
            title: r.title,
            hardware: HardwareView {
                gpu_model: r.gpu_model,
                gpu_count: r.gpu_count,
                vram_gb: r.vram_gb,
                cpu_model: r.cpu_model,
                ram_gb: r.ram_gb,
            },
            hardware_confirmed: r.hardware_confirmed,
            region: r.region,
            price: PriceView {
                amount_per_gpu_hour: r.price.minor(),
                currency: r.price.currency().code().to_owned(),
                min_bid_per_gpu_hour: r.min_bid.map(|min| min.minor()),
            },
            engine: EngineView {
                base_url: with_endpoint.then_some(r.engine_base_url),
                model: r.engine_model,
                name: r.engine_name,
                has_api_key: r.has_engine_api_key,
            },
            availability: AvailabilityWindowView {
                from: r.available_from,
                until: r.available_until,
            },
            access,
            status: r.status.as_str().to_owned(),
            verified: verification.is_some(),
            verification_state: r.verification_state.as_str(),
            verification,
            last_verification_cost: r.last_verification_cost.map(Into::into),
            catalog,
            guarantee: r.guarantee_min_bp.map(|bp| GuaranteeView {
                min_fraction: f64::from(bp) / 10_000.0,
            }),
            reliability: r.reliability,
            liveness: r.liveness.map(|(up, since)| LivenessView {
                state: if up { "up" } else { "down" },
                since,
            }),
            created_at: r.created_at,
        }
    }
}

/// A verification run.
#[derive(Debug, Serialize, ToSchema)]
pub struct RunView {
    pub id: Uuid,
    pub listing_id: Uuid,
    pub org_id: Uuid,
    /// `quick` or `standard`.
    pub profile: String,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    pub attempts: i32,
    /// Why it failed or was cancelled: `cancelled`, `listing_changed`, `deadline_exceeded`,
    /// `address_not_allowed`, `engine_unreachable`, `engine_unsupported` (`engine_not_vllm`
    /// on runs recorded before it), `engine_model_missing`, `engine_mismatch` (the listing
    /// states another engine), `engine_error` or `setup_failed`.
    pub failure_code: Option<String>,
    /// The detail (members of the listing's organisation only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    pub report_id: Option<Uuid>,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub created_at: DateTime<Utc>,
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(serialize_with = "crate::rfc3339::write_option")]
    pub finished_at: Option<DateTime<Utc>>,
    /// `public`, or `private` (its report is shown to the organisation and share links only).
    pub visibility: String,
}

impl From<app::trust::verification::Run> for RunView {
    fn from(r: app::trust::verification::Run) -> Self {
        Self {
            id: r.id.into(),
            listing_id: r.listing_id.into(),
            org_id: r.org_id.into(),
            profile: r.profile,
            status: r.status.as_str().to_owned(),
            attempts: r.attempts,
            failure_code: r.failure_code,
            failure_reason: r.failure_reason,
            report_id: r.report_id.map(Into::into),
            created_at: r.created_at,
            started_at: r.started_at,
            finished_at: r.finished_at,
            visibility: r.visibility,
        }
    }
}

/// A signed report. `envelope` is the DSSE envelope; verify it against `/v1/signing-keys`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReportView {
    pub id: Uuid,
    pub listing_id: Uuid,
    pub run_id: Uuid,
    pub org_id: Uuid,
    pub compliant: bool,
    /// `verification`, or `spot_check` (an unannounced re-measurement; never a headline).
    pub kind: String,
    pub key_id: String,
    /// `null` when withheld.
    #[schema(value_type = Object)]
    pub envelope: serde_json::Value,
    /// Only the listing's organisation is shown this (older) report's envelope: it names
    /// the engine's address.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub envelope_withheld: bool,
    #[schema(value_type = Object)]
    pub summary: serde_json::Value,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub created_at: DateTime<Utc>,
    /// Where the report sits in the transparency log; its proof is at
    /// `GET /v1/reports/{id}/proof`.
    pub log: Option<LogPositionView>,
    /// `public`, or `private` (shown to the organisation's members and share links only;
    /// its log leaf is the SHA-256 of its envelope).
    pub visibility: String,
    /// `true`: when the report was made, the machine's agent reported the hardware the
    /// listing claimed ("confirmed by agent" — the machine's word, not a cryptographic
    /// attestation, and not part of the signed report); `false`: as claimed.
    pub hardware_confirmed: bool,
}

/// A signed report's place in the transparency log.
#[derive(Debug, Serialize, ToSchema)]
pub struct LogPositionView {
    /// The index of its leaf (0-based).
    pub leaf_index: u64,
}

impl LogPositionView {
    pub fn of(index: Option<u64>) -> Option<Self> {
        index.map(|leaf_index| Self { leaf_index })
    }
}

impl From<app::trust::reports::StoredReport> for ReportView {
    fn from(r: app::trust::reports::StoredReport) -> Self {
        Self {
            id: r.id.into(),
            listing_id: r.listing_id.into(),
            run_id: r.run_id.into(),
            org_id: r.org_id.into(),
            compliant: r.compliant,
            kind: r.kind,
            key_id: r.key_id,
            envelope: serde_json::to_value(r.envelope).unwrap_or_default(),
            envelope_withheld: r.envelope_withheld,
            summary: serde_json::to_value(r.summary).unwrap_or_default(),
            created_at: r.created_at,
            log: LogPositionView::of(r.log_index),
            visibility: r.visibility,
            hardware_confirmed: r.hardware_confirmed,
        }
    }
}

/// A money amount in integer minor units.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MoneyView {
    pub amount: i64,
    pub currency: String,
}

impl From<app::Money> for MoneyView {
    fn from(m: app::Money) -> Self {
        Self {
            amount: m.minor(),
            currency: m.currency().code().to_owned(),
        }
    }
}

/// One check's answer.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PreflightCheckView {
    /// `engine_reachable`, `model_served`, `metrics_dialect`, `completion`, `kv_capacity`,
    /// `agent_online`, `hardware_match`, `clock_offset` or `gpu_health`.
    pub check: String,
    /// `pass`, `warn` (would not stop a verification), `fail` (would) or `skip` (not asked:
    /// no agent, or an earlier check failed).
    #[schema(value_type = String, example = "fail")]
    pub state: app::trust::preflight::CheckState,
    /// What was seen (an engine's words bounded and clipped; the agent's are the machine's
    /// word, not an attestation).
    pub evidence: String,
    /// What to do about it; empty when nothing is needed.
    pub suggested_steps: Vec<String>,
}

impl From<app::trust::preflight::Check> for PreflightCheckView {
    fn from(c: app::trust::preflight::Check) -> Self {
        Self {
            check: c.check,
            state: c.state,
            evidence: c.evidence,
            suggested_steps: c.suggested_steps,
        }
    }
}
