use actix_web::{HttpResponse, get, web};
use app::App;
use chrono::{DateTime, NaiveDate, Utc};
use domain::uptime::Liveness;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::maintenance_windows::MaintenanceWindowView;
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, NotFound};

/// The machine's state now.
#[derive(Debug, Serialize, ToSchema)]
pub struct LivenessStateView {
    /// `up`, `down`, `maintenance` (inside a window) or `unknown` (never probed).
    pub state: &'static str,
    /// Since when it has been `up` or `down`.
    pub since: Option<DateTime<Utc>>,
    /// When the maintenance window it is in ends.
    pub until: Option<DateTime<Utc>>,
}

/// One day's uptime.
#[derive(Debug, Serialize, ToSchema)]
pub struct DayUptimeView {
    /// The day, UTC.
    #[schema(value_type = String, format = Date)]
    pub date: NaiveDate,
    /// `null` when nothing was observed that day.
    pub uptime: Option<f64>,
}

/// A signed statement of the machine's uptime over one period.
#[derive(Debug, Serialize, ToSchema)]
pub struct UptimeStatementView {
    /// Its id: its log entry's (`GET /v1/reports/{id}/proof`).
    pub id: Uuid,
    pub period_start: DateTime<Utc>,
    pub period_end: DateTime<Utc>,
    pub uptime: Option<f64>,
    /// The DSSE envelope of an in-toto statement whose `predicateType` is
    /// `https://gpumarket.dev/attestations/uptime/v1`.
    pub envelope: serde_json::Value,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct UptimeView {
    pub listing_id: Uuid,
    pub current: LivenessStateView,
    /// Shares of the last 24 hours, 7 and 30 days the machine was up, 0 to 1: time-weighted
    /// over what probes observed (a state holds from the probe that first saw it to the one
    /// that first saw otherwise; probes more than three periods apart leave the time between
    /// unknown, and unknown time is left out). Time inside a maintenance window announced in
    /// time is left out; inside one announced late, it counts as down. `null` when nothing
    /// was observed.
    pub uptime_24h: Option<f64>,
    pub uptime_7d: Option<f64>,
    pub uptime_30d: Option<f64>,
    /// The listing's reliability: its 30-day uptime as of the last observation (what search's
    /// `min_reliability` and `sort=reliability` use).
    pub reliability: Option<f64>,
    /// The last 30 days, oldest first.
    pub days: Vec<DayUptimeView>,
    /// Maintenance windows that have not ended, soonest first (without their reason).
    pub maintenance: Vec<MaintenanceWindowView>,
    /// What the provider's maintenance windows announced in the last 30 days took of
    /// renters' bookings (begun or not).
    pub interruptions_30d: InterruptionsView,
    /// The latest signed uptime statements, newest first (at most 30): one per period of
    /// `uptime_statement_secs` (UTC days by default) in which the machine was observed.
    /// Verify one with `gpumarket verify` (the item as a file); each is in the transparency
    /// log (`GET /v1/reports/{id}/proof`).
    pub statements: Vec<UptimeStatementView>,
    /// Seconds between probes: outages are measured to within this at either end.
    pub probe_every_secs: u64,
}

/// Bookings maintenance windows interrupted: each kept its interval, had no access over the
/// window, and was given back the share of its price the window took.
#[derive(Debug, Serialize, ToSchema)]
pub struct InterruptionsView {
    /// Windows that interrupted at least one booking.
    pub windows: u64,
    /// Bookings interrupted.
    pub bookings: u64,
    /// GPU-hours of bookings the windows took.
    pub gpu_hours: f64,
}

/// A listing's uptime and reliability from liveness probes, its state now and its coming
/// maintenance. Public.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_listing_uptime",
    tag = "listings",
    params(("id" = Uuid, Path, description = "The listing's id")),
    responses(
        (status = 200, description = "Uptime", body = UptimeView),
        Problems<(InvalidParameter, NotFound)>,
    )
)]
#[get("/listings/{id}/uptime")]
pub async fn uptime(app: web::Data<App>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let found = app.uptime(id.into_inner().into()).await?;
    let (since, until) = match found.state {
        Liveness::Up { since } | Liveness::Down { since } => (Some(since), None),
        Liveness::Maintenance { until } => (None, Some(until)),
        Liveness::Unknown => (None, None),
    };
    Ok(HttpResponse::Ok().json(UptimeView {
        listing_id: found.listing_id.into(),
        current: LivenessStateView {
            state: found.state.name(),
            since,
            until,
        },
        uptime_24h: found.last_24h,
        uptime_7d: found.last_7d,
        uptime_30d: found.last_30d,
        reliability: found.reliability,
        days: found
            .days
            .into_iter()
            .map(|(date, uptime)| DayUptimeView { date, uptime })
            .collect(),
        maintenance: found
            .windows
            .into_iter()
            .map(|w| MaintenanceWindowView::new(w, false))
            .collect(),
        interruptions_30d: InterruptionsView {
            windows: found.interruptions_30d.windows,
            bookings: found.interruptions_30d.bookings,
            gpu_hours: found.interruptions_30d.gpu_hours,
        },
        statements: found
            .statements
            .into_iter()
            .map(|s| UptimeStatementView {
                id: s.id,
                period_start: s.period_start,
                period_end: s.period_end,
                uptime: s.uptime,
                envelope: s.envelope,
            })
            .collect(),
        probe_every_secs: found.probe_every_secs,
    }))
}
