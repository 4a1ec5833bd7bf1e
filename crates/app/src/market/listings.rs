//! Listings: created, edited and delisted by members of the provider organisation, readable
//! and searchable by anyone.

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Duration, Utc};
use domain::booking::{MAX_BOOKING_DAYS, on_demand_segments};
use domain::{
    ListingId, ListingInput, ListingSpec, ListingStatus, OrgId, Role, SshInput, ValidationError,
};
use serde::{Deserialize, Serialize};
use store::{After, ListingHit, ListingQuery, ListingRecord, SharedListing, SortKey};
use uuid::Uuid;

use crate::identity::audit::action;
use crate::{App, AppError, Caller};

pub use crate::records::{Listing, VerificationCost};

/// A listing found by a search, with the figures it was found and ordered by. It holds the
/// record search shares (in memory, the index's own) and reads it into a [`Listing`] when
/// asked, so a layer above can keep what it makes of a listing with the record instead
/// ([`SearchHit::derived`]).
#[derive(Debug, Clone)]
pub struct SearchHit {
    record: Arc<SharedListing>,
    /// Total tok/s at the query's cell (or the best cell).
    pub total_tok_s: Option<f64>,
    pub price_per_mtok: Option<f64>,
    /// Energy per token at the query's cell, J.
    pub energy_j_per_token: Option<f64>,
}

impl SearchHit {
    /// The listing, read from the shared record.
    pub fn listing(&self) -> Result<Listing, AppError> {
        Listing::try_from(&**self.record)
    }

    /// What `derive` makes of the listing, made once per stored version of it and kept with
    /// the shared record: the API's JSON of a listing is written once, not for every search
    /// that finds it. `None` when a value of another type was kept there.
    pub fn derived<T: std::any::Any + Send + Sync>(
        &self,
        derive: impl FnOnce(Result<Listing, AppError>) -> T,
    ) -> Option<&T> {
        self.record
            .derived(|record| derive(Listing::try_from(record)))
    }
}

fn hits(items: Vec<ListingHit>) -> Vec<SearchHit> {
    items
        .into_iter()
        .map(|h| SearchHit {
            record: h.listing,
            total_tok_s: h.total_tok_s,
            price_per_mtok: h.price_per_mtok,
            energy_j_per_token: h.energy_j_per_token,
        })
        .collect()
}

/// A change to a listing: absent fields stay; for the optional ones, `Some(None)` clears.
#[derive(Debug, Clone, Default)]
pub struct ListingPatch {
    pub title: Option<String>,
    pub gpu_model: Option<String>,
    pub gpu_count: Option<i64>,
    pub vram_gb: Option<i64>,
    pub cpu_model: Option<String>,
    pub ram_gb: Option<i64>,
    pub region: Option<String>,
    pub price_per_gpu_hour: Option<i64>,
    /// `Some(None)` stops taking interruptible bookings (those made keep their bids).
    pub min_bid_per_gpu_hour: Option<Option<i64>>,
    pub currency: Option<String>,
    pub engine_base_url: Option<String>,
    pub engine_model: Option<String>,
    /// `Some(None)` no longer states the engine.
    pub engine_name: Option<Option<String>>,
    pub engine_api_key: Option<Option<String>>,
    pub available_from: Option<Option<DateTime<Utc>>>,
    pub available_until: Option<Option<DateTime<Utc>>>,
    pub ssh: Option<Option<(String, i64, String)>>,
    pub https_url: Option<Option<String>>,
    /// `Some(None)` removes the catalog entries.
    pub catalog: Option<Option<(Option<String>, Option<String>)>>,
    /// `Some(None)` withdraws the guarantee (bookings already made keep theirs).
    pub guarantee_min_fraction: Option<Option<f64>>,
    /// `Some(None)` stops offering containers (bookings already made keep theirs).
    pub containers: Option<Option<domain::container::ContainerAccess>>,
}

/// A search as a client asks it, before checking.
#[derive(Debug, Clone, Default)]
pub struct SearchParams {
    pub gpu_model: Option<String>,
    /// A catalog GPU's id, name or alias.
    pub gpu: Option<String>,
    pub min_vram_gb: Option<i64>,
    pub max_price: Option<i64>,
    pub currency: Option<String>,
    pub region: Option<String>,
    pub verified: Option<bool>,
    /// Only listings whose machine's agent confirms the claimed hardware.
    pub hardware_confirmed: Option<bool>,
    pub min_total_tok_s: Option<f64>,
    /// At most this energy per token at the cell `context`×`concurrency` (required), J.
    pub max_j_per_token: Option<f64>,
    pub context: Option<i64>,
    pub concurrency: Option<i64>,
    pub available_from: Option<DateTime<Utc>>,
    pub available_until: Option<DateTime<Utc>>,
    pub gpu_count: Option<i64>,
    /// The 30-day uptime at least this, 0 to 1.
    pub min_reliability: Option<f64>,
    /// The engine the verified report measured: `vllm`, `llamacpp`, `sglang` or `tgi`.
    pub engine: Option<String>,
    /// `price` (default), `tok_s`, `price_per_mtok`, `reliability` or `j_per_token`.
    pub sort: Option<String>,
    pub cursor: Option<String>,
    pub limit: Option<u64>,
}

/// One page of search results.
#[derive(Debug, Clone)]
pub struct SearchPage {
    pub items: Vec<SearchHit>,
    pub next_cursor: Option<String>,
}

/// Free GPUs of a listing over time.
#[derive(Debug, Clone)]
pub struct Availability {
    pub listing: Listing,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    /// `(start, end, free_gpus, interruptible_gpus)`, consecutive, covering `[from, to)`:
    /// GPUs free for an on-demand booking, of which `interruptible_gpus` are held by
    /// interruptible bookings it would displace.
    pub segments: Vec<(DateTime<Utc>, DateTime<Utc>, i32, i32)>,
}

pub const DEFAULT_PAGE: u64 = 20;
pub const MAX_PAGE: u64 = 100;

/// The opaque cursor: where the previous page ended, and in which order.
#[derive(Debug, Serialize, Deserialize)]
struct Cursor {
    sort: String,
    value: f64,
    id: Uuid,
}

const SORTS: [(&str, SortKey); 5] = [
    ("price", SortKey::Price),
    ("tok_s", SortKey::TokS),
    ("price_per_mtok", SortKey::PricePerMtok),
    ("reliability", SortKey::Reliability),
    ("j_per_token", SortKey::JPerToken),
];

fn sort_key(raw: Option<&str>) -> Result<SortKey, ValidationError> {
    let raw = raw.unwrap_or("price");
    SORTS
        .iter()
        .find(|(name, _)| *name == raw)
        .map(|&(_, key)| key)
        .ok_or_else(|| {
            ValidationError::new(
                "sort",
                "must be one of price, tok_s, price_per_mtok, reliability, j_per_token",
            )
        })
}

/// The name a client uses for `sort`.
fn sort_name(sort: SortKey) -> &'static str {
    SORTS
        .iter()
        .find(|&&(_, key)| key == sort)
        .map_or("price", |&(name, _)| name)
}

/// The catalog GPU a search's `gpu` names (its id, name or an alias, in any case): its id
/// and the names a listing's `gpu_model` may give it.
fn catalog_gpu(raw: &str) -> Result<(String, Vec<String>), ValidationError> {
    let unknown = || {
        ValidationError::new(
            "gpu",
            "names no GPU of the catalog (GET /v1/hardware lists their ids and aliases)",
        )
    };
    let catalog = catalog::Catalog::get().map_err(|_| unknown())?;
    let gpu = catalog.gpu_named(raw).ok_or_else(unknown)?;
    let names = std::iter::once(&gpu.name)
        .chain(&gpu.aliases)
        .cloned()
        .collect();
    Ok((gpu.id.clone(), names))
}

/// A client's page size: default [`DEFAULT_PAGE`], at most [`MAX_PAGE`].
pub fn page_limit(requested: Option<u64>) -> Result<u64, ValidationError> {
    match requested {
        None => Ok(DEFAULT_PAGE),
        Some(n) if (1..=MAX_PAGE).contains(&n) => Ok(n),
        Some(_) => Err(ValidationError::new(
            "limit",
            format!("must be between 1 and {MAX_PAGE}"),
        )),
    }
}

fn encode_cursor(sort: SortKey, after: After) -> String {
    let json = serde_json::json!({"sort": sort_name(sort), "value": after.value, "id": after.id})
        .to_string();
    URL_SAFE_NO_PAD.encode(json)
}

fn decode_cursor(raw: &str, sort: SortKey) -> Result<After, ValidationError> {
    let bad = || ValidationError::new("cursor", "is not a cursor this search returned");
    let bytes = URL_SAFE_NO_PAD.decode(raw).map_err(|_| bad())?;
    let cursor: Cursor = serde_json::from_slice(&bytes).map_err(|_| bad())?;
    if cursor.sort != sort_name(sort) {
        return Err(ValidationError::new(
            "cursor",
            format!("belongs to a search sorted by {}", cursor.sort),
        ));
    }
    Ok(After {
        value: cursor.value,
        id: cursor.id,
    })
}

fn positive(
    field: &'static str,
    value: Option<i64>,
    max: i64,
) -> Result<Option<i64>, ValidationError> {
    match value {
        Some(v) if v < 1 || v > max => Err(ValidationError::new(
            field,
            format!("must be between 1 and {max}"),
        )),
        other => Ok(other),
    }
}

/// An interval `[from, until)` over which a machine must be available.
pub type Window = (DateTime<Utc>, DateTime<Utc>);

/// `available_from` and `available_until` as asked: both or neither, in order, at most
/// [`MAX_BOOKING_DAYS`] apart.
pub(crate) fn requested_window(
    from: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
) -> Result<Option<Window>, ValidationError> {
    match (from, until) {
        (None, None) => Ok(None),
        (Some(from), Some(until)) if until > from => {
            if until - from > Duration::days(MAX_BOOKING_DAYS) {
                return Err(ValidationError::new(
                    "available_until",
                    format!("the interval may last at most {MAX_BOOKING_DAYS} days"),
                ));
            }
            Ok(Some((from, until)))
        }
        (Some(_), Some(_)) => Err(ValidationError::new(
            "available_until",
            "must be after available_from",
        )),
        (Some(_), None) => Err(ValidationError::new(
            "available_until",
            "is required with available_from",
        )),
        (None, Some(_)) => Err(ValidationError::new(
            "available_from",
            "is required with available_until",
        )),
    }
}

/// A `min_reliability` as asked: a share from 0 to 1.
pub(crate) fn reliability_floor(raw: Option<f64>) -> Result<Option<f64>, ValidationError> {
    match raw {
        Some(min) if !(min.is_finite() && (0.0..=1.0).contains(&min)) => Err(ValidationError::new(
            "min_reliability",
            "must be a number from 0 to 1",
        )),
        other => Ok(other),
    }
}

/// Empty strings are absent filters.
fn text(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

impl SearchParams {
    /// The checked query, and whether free capacity over an interval must be checked.
    fn into_query(self) -> Result<(ListingQuery, Option<i32>), ValidationError> {
        let sort = sort_key(self.sort.as_deref())?;
        let cell = match (self.context, self.concurrency) {
            (None, None) => None,
            (Some(context), Some(concurrency)) => {
                positive("context", Some(context), 10_000_000)?;
                positive("concurrency", Some(concurrency), 100_000)?;
                Some((context, concurrency))
            }
            (None, Some(_)) => {
                return Err(ValidationError::new(
                    "context",
                    "is required with concurrency",
                ));
            }
            (Some(_), None) => {
                return Err(ValidationError::new(
                    "concurrency",
                    "is required with context",
                ));
            }
        };
        if let Some(min) = self.min_total_tok_s
            && !(min.is_finite() && min >= 0.0)
        {
            return Err(ValidationError::new(
                "min_total_tok_s",
                "must be a non-negative number",
            ));
        }
        if let Some(max) = self.max_j_per_token
            && !(max.is_finite() && max >= 0.0)
        {
            return Err(ValidationError::new(
                "max_j_per_token",
                "must be a non-negative number",
            ));
        }
        if cell.is_none() && (sort == SortKey::JPerToken || self.max_j_per_token.is_some()) {
            return Err(ValidationError::new(
                "context",
                "energy per token is a cell's figure: give context and concurrency",
            ));
        }
        let min_reliability = reliability_floor(self.min_reliability)?;
        let window = requested_window(self.available_from, self.available_until)?;
        let gpu_count = positive("gpu_count", self.gpu_count, 64)?;
        let limit = page_limit(self.limit)?;
        let after = self
            .cursor
            .as_deref()
            .map(|c| decode_cursor(c, sort))
            .transpose()?;
        let gpus = gpu_count.map(|n| i32::try_from(n).unwrap_or(i32::MAX));
        let query = ListingQuery {
            gpu_model: text(self.gpu_model),
            gpu: text(self.gpu).map(|g| catalog_gpu(&g)).transpose()?,
            min_vram_gb: positive("min_vram_gb", self.min_vram_gb, 1_000_000)?
                .map(|n| i32::try_from(n).unwrap_or(i32::MAX)),
            max_price: positive("max_price", self.max_price, i64::MAX)?,
            currency: text(self.currency).map(|c| c.to_ascii_uppercase()),
            region: text(self.region),
            verified_only: self.verified.unwrap_or(false),
            hardware_confirmed: self.hardware_confirmed.unwrap_or(false),
            min_gpu_count: gpus,
            cell,
            min_total_tok_s: self.min_total_tok_s,
            max_j_per_token: self.max_j_per_token,
            min_reliability,
            window,
            engine: text(self.engine)
                .map(|name| domain::engine_name("engine", &name))
                .transpose()?,
            sort,
            after,
            limit,
        };
        Ok((query, window.map(|_| gpus.unwrap_or(1))))
    }
}

impl ListingPatch {
    /// The listing with this change applied, as input to check.
    fn apply<'a>(&'a self, r: &'a ListingRecord) -> ListingInput<'a> {
        let current_ssh = r.ssh().map(|(host, port, user)| SshInput {
            host,
            port: i64::from(port),
            user,
        });
        ListingInput {
            title: self.title.as_deref().unwrap_or(&r.title),
            gpu_model: self.gpu_model.as_deref().unwrap_or(&r.gpu_model),
            gpu_count: self.gpu_count.unwrap_or(i64::from(r.gpu_count)),
            vram_gb: self.vram_gb.unwrap_or(i64::from(r.vram_gb)),
            cpu_model: self.cpu_model.as_deref().unwrap_or(&r.cpu_model),
            ram_gb: self.ram_gb.unwrap_or(i64::from(r.ram_gb)),
            region: self.region.as_deref().unwrap_or(&r.region),
            price_per_gpu_hour: self.price_per_gpu_hour.unwrap_or(r.price_amount),
            min_bid_per_gpu_hour: self.min_bid_per_gpu_hour.unwrap_or(r.min_bid_per_gpu_hour),
            currency: self.currency.as_deref().unwrap_or(&r.currency),
            engine_base_url: self
                .engine_base_url
                .as_deref()
                .unwrap_or(&r.engine_base_url),
            engine_model: self.engine_model.as_deref().unwrap_or(&r.engine_model),
            engine_name: match &self.engine_name {
                Some(name) => name.as_deref(),
                None => r.engine_name.as_deref(),
            },
            engine_api_key: match &self.engine_api_key {
                Some(key) => key.as_deref(),
                // The stored key is for the engine it was given with: a base URL at another
                // origin does not get it.
                None if self
                    .engine_base_url
                    .as_deref()
                    .is_some_and(|url| !same_origin(url, &r.engine_base_url)) =>
                {
                    None
                }
                None => r.engine_api_key.as_deref(),
            },
            available_from: self.available_from.unwrap_or(r.available_from),
            available_until: self.available_until.unwrap_or(r.available_until),
            ssh: match &self.ssh {
                Some(Some((host, port, user))) => Some(SshInput {
                    host,
                    port: *port,
                    user,
                }),
                Some(None) => None,
                None => current_ssh,
            },
            https_url: match &self.https_url {
                Some(url) => url.as_deref(),
                None => r.access_https_url.as_deref(),
            },
            catalog_gpu: match &self.catalog {
                Some(catalog) => catalog.as_ref().and_then(|(gpu, _)| gpu.as_deref()),
                None => r.catalog_gpu.as_deref(),
            },
            catalog_model: match &self.catalog {
                Some(catalog) => catalog.as_ref().and_then(|(_, model)| model.as_deref()),
                None => r.catalog_model.as_deref(),
            },
            guarantee_min_fraction: match self.guarantee_min_fraction {
                Some(fraction) => fraction,
                None => r.guarantee_min_bp.map(|bp| f64::from(bp) / 10_000.0),
            },
            containers: match &self.containers {
                Some(containers) => containers.clone(),
                None => crate::records::stored_containers(r),
            },
        }
    }
}

/// Whether two URLs have the same scheme, host and port.
fn same_origin(a: &str, b: &str) -> bool {
    match (url::Url::parse(a.trim()), url::Url::parse(b.trim())) {
        (Ok(a), Ok(b)) => a.origin() == b.origin(),
        _ => false,
    }
}

/// Whether `spec` describes a different machine or engine than `record` (so the record's
/// verification no longer applies).
fn changes_what_was_measured(record: &ListingRecord, spec: &ListingSpec) -> bool {
    record.gpu_model != spec.gpu_model
        || record.gpu_count != spec.gpu_count
        || record.vram_gb != spec.vram_gb
        || record.cpu_model != spec.cpu_model
        || record.ram_gb != spec.ram_gb
        || record.engine_base_url != spec.engine_base_url
        || record.engine_model != spec.engine_model
        || record.engine_name != spec.engine_name
        || record.catalog_gpu != spec.catalog_gpu
        || record.catalog_model != spec.catalog_model
}

/// What an edit changes, for the organisation's audit trail: the parts changed, and the price
/// from and to when it changed (never the engine's key).
fn edit_details(before: &ListingRecord, spec: &ListingSpec) -> serde_json::Value {
    let price = |amount: i64, currency: &str| serde_json::json!({"amount_per_gpu_hour": amount, "currency": currency});
    let new_price = (spec.price.minor(), spec.price.currency().code());
    let parts = [
        ("title", before.title != spec.title),
        (
            "hardware",
            before.gpu_model != spec.gpu_model
                || before.gpu_count != spec.gpu_count
                || before.vram_gb != spec.vram_gb
                || before.cpu_model != spec.cpu_model
                || before.ram_gb != spec.ram_gb,
        ),
        ("region", before.region != spec.region),
        (
            "price",
            (before.price_amount, before.currency.as_str()) != new_price,
        ),
        (
            "min_bid",
            before.min_bid_per_gpu_hour != spec.min_bid.map(|min| min.minor()),
        ),
        (
            "engine",
            before.engine_base_url != spec.engine_base_url
                || before.engine_model != spec.engine_model
                || before.engine_name != spec.engine_name,
        ),
        (
            "availability",
            before.available_from != spec.available_from
                || before.available_until != spec.available_until,
        ),
        (
            "access",
            before.access_ssh_host != spec.ssh.as_ref().map(|s| s.host.clone())
                || before.access_ssh_port != spec.ssh.as_ref().map(|s| s.port)
                || before.access_ssh_user != spec.ssh.as_ref().map(|s| s.user.clone())
                || before.access_https_url != spec.https_url
                || before.access_containers
                    != spec
                        .containers
                        .as_ref()
                        .and_then(|c| serde_json::to_string(c).ok()),
        ),
        (
            "catalog",
            before.catalog_gpu != spec.catalog_gpu || before.catalog_model != spec.catalog_model,
        ),
        (
            "guarantee",
            before.guarantee_min_bp != spec.guarantee_min_bp,
        ),
    ];
    let changed: Vec<&str> = parts.iter().filter(|(_, c)| *c).map(|(n, _)| *n).collect();
    let mut details = serde_json::json!({ "changed": changed });
    if changed.contains(&"price") {
        details["price"] = serde_json::json!({
            "from": price(before.price_amount, &before.currency),
            "to": price(new_price.0, new_price.1),
        });
    }
    details
}

impl App {
    pub async fn create_listing(
        &self,
        caller: Caller,
        org: OrgId,
        input: &ListingInput<'_>,
    ) -> Result<Listing, AppError> {
        let mut spec = ListingSpec::parse(input)?;
        self.check_engine_address(&spec).await?;
        if self.db().org_by_id(org).await?.is_none() {
            return Err(ValidationError::new("org_id", "no such organisation").into());
        }
        self.require_role(caller, org, Role::Member).await?;
        self.require_verified_email(caller).await?;
        let id = Uuid::now_v7();
        spec.engine_api_key = spec
            .engine_api_key
            .map(|key| self.seal_engine_key(id, &key))
            .transpose()?;
        let quota = self.config().limits.max_listings_per_org;
        let audit = caller.audit(
            org,
            action::LISTING_CREATED,
            id,
            serde_json::json!({
                "title": spec.title,
                "gpu_model": spec.gpu_model,
                "gpu_count": spec.gpu_count,
                "price": {
                    "amount_per_gpu_hour": spec.price.minor(),
                    "currency": spec.price.currency().code(),
                },
            }),
        );
        let record = self
            .db()
            .insert_listing_within(id, org, &spec, Utc::now(), u64::from(quota), Some(&audit))
            .await?
            .ok_or(AppError::ListingQuotaReached(quota))?;
        Listing::try_from(record)
    }

    /// The listing, when the caller is a member of its organisation.
    pub(crate) async fn own_listing(
        &self,
        caller: Caller,
        id: Uuid,
    ) -> Result<ListingRecord, AppError> {
        let listing = self.listing_record(id).await?;
        self.require_role(caller, OrgId::from_uuid(listing.org_id), Role::Member)
            .await?;
        Ok(listing)
    }

    /// Edits a listing (members of its organisation). Changing the hardware or the engine
    /// withdraws its verification: the latest report no longer describes the machine.
    pub async fn update_listing(
        &self,
        caller: Caller,
        id: ListingId,
        patch: &ListingPatch,
    ) -> Result<Listing, AppError> {
        let id = id.as_uuid();
        let listing = self.own_listing(caller, id).await?;
        if listing.status != ListingStatus::Active {
            return Err(AppError::ListingDelisted);
        }
        // The patch applies to the listing with its key opened; the result is sealed again.
        let mut opened = listing.clone();
        opened.engine_api_key = self
            .engine_key_of(&listing)?
            .map(|key| key.expose().to_owned());
        let mut spec = ListingSpec::parse(&patch.apply(&opened))?;
        if spec.engine_base_url != listing.engine_base_url {
            self.check_engine_address(&spec).await?;
        }
        spec.engine_api_key = spec
            .engine_api_key
            .map(|key| self.seal_engine_key(id, &key))
            .transpose()?;
        let unverify = changes_what_was_measured(&listing, &spec);
        let audit = caller.audit(
            OrgId::from_uuid(listing.org_id),
            action::LISTING_UPDATED,
            id,
            edit_details(&listing, &spec),
        );
        let mut record = self
            .db()
            .update_listing(id, &spec, unverify, Utc::now(), Some(&audit))
            .await?
            .ok_or(AppError::ListingDelisted)?;
        if unverify {
            // A run measuring the old machine or engine must not verify the new one.
            self.cancel_runs_of(id, "the listing's hardware or engine was changed")
                .await?;
        }
        // The claim changed: does the machine's agent still confirm it?
        record.hardware_confirmed = self.recheck_hardware(&record).await?;
        Listing::try_from(record)
    }

    /// Refuses an engine address the platform may not connect to, naming `engine.base_url`
    /// (checked again at every connection: DNS can change).
    async fn check_engine_address(&self, spec: &ListingSpec) -> Result<(), AppError> {
        outbound::check_resolved(&spec.engine_base_url, self.outbound_policy())
            .await
            .map(|_| ())
            .map_err(|refused| ValidationError::new("engine.base_url", refused.to_string()).into())
    }

    /// Delists a listing (members of its organisation): it can no longer be found or booked.
    /// Bookings already made stand. Delisting twice is not an error.
    pub async fn delist_listing(&self, caller: Caller, id: ListingId) -> Result<(), AppError> {
        let id = id.as_uuid();
        let listing = self.own_listing(caller, id).await?;
        let audit = caller.audit(
            OrgId::from_uuid(listing.org_id),
            action::LISTING_DELISTED,
            id,
            serde_json::json!({}),
        );
        self.db()
            .delist_listing(id, Utc::now(), Some(&audit))
            .await?;
        Ok(())
    }

    /// Searches active listings. With an interval, only machines whose window covers it and
    /// that have `gpu_count` GPUs (default 1) free over all of it are returned.
    pub async fn search_listings(&self, params: SearchParams) -> Result<SearchPage, AppError> {
        let (query, capacity_check) = params.into_query()?;
        let limit = query.limit;
        let Some(needed) = capacity_check else {
            let items = self.db().search_listings(&query).await?;
            let next_cursor = next_cursor(&items, limit, query.sort);
            return Ok(SearchPage {
                items: hits(items),
                next_cursor,
            });
        };
        // Capacity over an interval is decided exactly, per machine, from what holds its GPUs.
        let page = self.db().search_free(&query, needed, Utc::now()).await?;
        Ok(SearchPage {
            items: hits(page.items),
            next_cursor: page.next.map(|after| encode_cursor(query.sort, after)),
        })
    }

    /// Free GPUs of a listing over `[from, to)`, as segments. Public.
    pub async fn availability(
        &self,
        id: ListingId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<Availability, AppError> {
        let id = id.as_uuid();
        if to <= from {
            return Err(ValidationError::new("to", "must be after from").into());
        }
        if to - from > Duration::days(MAX_BOOKING_DAYS) {
            return Err(ValidationError::new(
                "to",
                format!("the range may span at most {MAX_BOOKING_DAYS} days"),
            )
            .into());
        }
        let listing = self.listing_record(id).await?;
        let booked: Vec<_> = self
            .db()
            .holding_bookings(&[id], from, to, Utc::now())
            .await?
            .into_iter()
            .map(|(_, holding)| holding)
            .collect();
        let capacity = if listing.status == ListingStatus::Active {
            listing.gpu_count
        } else {
            0
        };
        let segments = on_demand_segments(
            capacity,
            (listing.available_from, listing.available_until),
            &booked,
            from,
            to,
        );
        Ok(Availability {
            listing: Listing::try_from(listing)?,
            from,
            to,
            segments,
        })
    }
}

/// The cursor after a full page, none after the last.
fn next_cursor(items: &[ListingHit], limit: u64, sort: SortKey) -> Option<String> {
    if (items.len() as u64) < limit {
        return None;
    }
    let last = items.last()?;
    Some(encode_cursor(
        sort,
        After {
            value: last.sort_value(sort).unwrap_or_default(),
            id: last.listing.id,
        },
    ))
}
