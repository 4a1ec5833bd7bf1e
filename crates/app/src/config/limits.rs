//! `[limits]`: the rate budgets, quotas and sizes of what one caller may do.

use documented::{Documented, DocumentedFields};
use serde::{Deserialize, Serialize};

/// Request rates, quotas and ceilings of the free plan (Pro's are in `[pro]`).
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct LimitSettings {
    /// Whether request rates are limited (`false` for benchmarks and fuzzing;
    /// `search-bench` turns it off).
    pub rate_limits: bool,
    /// Requests a minute to the auth routes (register, login, refresh, logout), by client
    /// address.
    pub rate_limit_auth_per_minute: u32,
    /// Write requests a minute, by credential (a digest of the API key or access token),
    /// else by client address.
    pub rate_limit_writes_per_minute: u32,
    /// Read requests a minute, by credential, else by client address.
    pub rate_limit_reads_per_minute: u32,
    /// Searches (`GET /v1/listings`) a minute, by credential, else by client address.
    pub rate_limit_search_per_minute: u32,
    /// Live event streams opened a minute, by credential, else by client address.
    pub rate_limit_events_per_minute: u32,
    /// Requests a minute through one booking's gateway, by credential: the booking's stream
    /// slots bound how many run at once, this only the rate of refused or tiny requests.
    pub rate_limit_gateway_per_minute: u32,
    /// Failed logins a minute from one network (an IPv4 address, an IPv6 /64), whatever the
    /// account. (Failed logins of one account from one network back off: each failure
    /// doubles the wait, 1 s to 15 min, until a success.)
    pub failed_logins_per_address_per_minute: u32,
    /// Failed logins an hour of one account from every network together; past it only
    /// networks that signed in to the account in the last 90 days are let try (so a
    /// stranger's guessing cannot lock the owner out).
    pub login_failures_per_account_per_hour: u32,
    /// Verification runs an organisation may ask for in any 24 hours (429 `rate_limited`
    /// with `Retry-After` beyond).
    pub verification_runs_per_org_per_day: u32,
    /// Community runs one account may submit in any 24 hours (429 `rate_limited` with
    /// `Retry-After` beyond).
    pub community_runs_per_day: u32,
    /// Bookings one renter may have waiting for their payment at once.
    pub pending_bookings_per_renter: u32,
    /// Bookings one renter may hold that have not ended, in every payment mode (429
    /// `rate_limited` with `Retry-After` beyond).
    pub max_open_bookings: u32,
    /// GPU-hours one renter may hold booked ahead of now, in every payment mode; a single
    /// booking larger than this is refused as invalid.
    pub max_booked_gpu_hours: u32,
    /// Live event streams (`GET /v1/verifications/{id}/events`) one client address may hold
    /// open at once.
    pub event_streams_per_client: u32,
    /// Live event streams one server process holds open at most.
    pub event_streams_total: u32,
    /// Listings one organisation may hold that are not delisted (409
    /// `listing_quota_reached` beyond): nobody floods search, the prober and spot checks
    /// with machines.
    pub max_listings_per_org: u32,
}

impl Default for LimitSettings {
    fn default() -> Self {
        Self {
            rate_limits: true,
            rate_limit_auth_per_minute: 60,
            rate_limit_writes_per_minute: 120,
            rate_limit_reads_per_minute: 600,
            rate_limit_search_per_minute: 120,
            rate_limit_events_per_minute: 60,
            rate_limit_gateway_per_minute: 6000,
            failed_logins_per_address_per_minute: 100,
            login_failures_per_account_per_hour: 100,
            verification_runs_per_org_per_day: 50,
            community_runs_per_day: 50,
            pending_bookings_per_renter: 5,
            max_open_bookings: 5,
            max_booked_gpu_hours: 168,
            event_streams_per_client: 20,
            event_streams_total: 2000,
            max_listings_per_org: 100,
        }
    }
}
