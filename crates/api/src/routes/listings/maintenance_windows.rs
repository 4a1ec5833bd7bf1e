//! Maintenance windows of a listing: announced, listed and deleted by members of its
//! organisation.

use actix_web::{HttpResponse, delete, get, post, web};
use app::App;
use app::market::maintenance_windows::NewWindow;
use app::windows::MaintenanceWindow;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    Forbidden, InvalidToken, MaintenanceOverlapsBookings, MaintenanceWindowKept, NotFound,
    RateLimited, Unauthenticated, ValidationFailed,
};
use crate::extract::{Auth, Json};

/// A maintenance window as a provider announces it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewWindowRequest {
    /// Start of the half-open interval `[from, until)`, RFC 3339: not in the past (422; within
    /// a minute of grace for clocks, the window starts now).
    pub from: DateTime<Utc>,
    /// Its end: in the future, at most 14 days after `from`.
    pub until: DateTime<Utc>,
    /// Why, for the organisation's members (at most 500 characters; not shown publicly).
    #[serde(default)]
    pub reason: String,
    /// Interrupt the bookings that hold the machine over the window (the name is older than
    /// interruptions; nothing is cancelled): each keeps its interval, has no access over the
    /// window (the gateway refuses it and ends its streams at the window's start, its access
    /// token is inactive) and is given back the share of its price the window takes
    /// (transfer and fee in proportion). Without it such bookings refuse the window (409
    /// `maintenance_overlaps_bookings`). A window that interrupted bookings can no longer be
    /// deleted.
    #[serde(default)]
    pub cancel_overlapping: bool,
}

/// A maintenance window: the whole machine is out of service over `[from, until)`.
#[derive(Debug, Serialize, ToSchema)]
pub struct MaintenanceWindowView {
    pub id: Uuid,
    pub listing_id: Uuid,
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    /// Members only (`null` in public views).
    pub reason: Option<String>,
    pub announced_at: DateTime<Utc>,
    /// Announced at least `maintenance_notice_secs` (default 24 h) before `from`: its time is
    /// left out of uptime. Announced later, it counts as downtime.
    pub in_time: bool,
    /// Bookings it cancelled with a full refund: windows announced before windows interrupted
    /// bookings (0 for newer ones).
    pub cancelled_bookings: i64,
    /// Bookings it interrupted: each kept its interval, had no access over the window and was
    /// given back the share of its price the window takes.
    pub interrupted_bookings: i64,
}

impl MaintenanceWindowView {
    /// `with_reason`: the viewer is a member of the listing's organisation.
    pub fn new(w: MaintenanceWindow, with_reason: bool) -> Self {
        Self {
            id: w.id,
            listing_id: w.listing_id.into(),
            from: w.from,
            until: w.until,
            reason: with_reason.then_some(w.reason),
            announced_at: w.announced_at,
            in_time: w.in_time,
            cancelled_bookings: w.cancelled_bookings,
            interrupted_bookings: w.interrupted_bookings,
        }
    }
}

/// A window announced, and the bookings it interrupted.
#[derive(Debug, Serialize, ToSchema)]
pub struct AnnouncedView {
    pub window: MaintenanceWindowView,
    /// Bookings interrupted over the window: each keeps its interval and is given back the
    /// share of its price the window takes.
    pub interrupted_booking_ids: Vec<Uuid>,
    /// Of those, the ones whose share is still owed: awaiting their payment (given back once
    /// paid), or the payment provider failed (the sweep gives it back shortly).
    pub refund_pending_ids: Vec<Uuid>,
    /// A window never cancels a booking: always empty (kept for older clients).
    pub cancelled_booking_ids: Vec<Uuid>,
    /// Always empty (kept for older clients).
    pub pending_cancellation_ids: Vec<Uuid>,
}

/// Announce a maintenance window (members of the listing's organisation). Over its interval
/// the whole machine is taken: availability shows no free GPU, search over the interval
/// leaves it out, bookings are refused (409 `maintenance`), offers' plans skip it. Bookings
/// that hold the machine over it refuse it unless `cancel_overlapping` interrupts them.
/// `from` may not be in the past. Announced
/// at least `maintenance_notice_secs` ahead its time is left out of uptime; later, it
/// counts as downtime.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "create_maintenance_window",
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    request_body = NewWindowRequest,
    responses(
        (status = 201, description = "Announced", body = AnnouncedView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, MaintenanceOverlapsBookings, ValidationFailed, RateLimited)>,
    )
)]
#[post("/listings/{id}/maintenance")]
pub async fn create(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    Json(body): Json<NewWindowRequest>,
) -> Result<HttpResponse, ApiError> {
    let announced = app
        .add_maintenance_window(
            caller,
            id.into_inner().into(),
            NewWindow {
                from: body.from,
                until: body.until,
                reason: body.reason,
                cancel_overlapping: body.cancel_overlapping,
            },
        )
        .await?;
    Ok(HttpResponse::Created().json(AnnouncedView {
        window: MaintenanceWindowView::new(announced.window, true),
        interrupted_booking_ids: announced.interrupted,
        refund_pending_ids: announced.refund_pending,
        cancelled_booking_ids: Vec::new(),
        pending_cancellation_ids: Vec::new(),
    }))
}

/// A listing's maintenance windows that have not ended, soonest first (members of its
/// organisation; `GET /v1/listings/{id}/uptime` shows them publicly, without the reason).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_maintenance_windows",
    tag = "listings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The listing's id")),
    responses(
        (status = 200, description = "The windows", body = Vec<MaintenanceWindowView>),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[get("/listings/{id}/maintenance")]
pub async fn list(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let windows = app
        .maintenance_windows(caller, id.into_inner().into())
        .await?;
    Ok(HttpResponse::Ok().json(
        windows
            .into_iter()
            .map(|w| MaintenanceWindowView::new(w, true))
            .collect::<Vec<_>>(),
    ))
}

/// Delete a maintenance window before it begins (members of the listing's organisation). One
/// that cancelled bookings stands (409 `maintenance_window_kept`): its interval cannot be let
/// again; so does one that has begun: its time in the machine's uptime cannot be taken back.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "delete_maintenance_window",
    tag = "listings",
    security(("bearer" = [])),
    params(
        ("id" = Uuid, Path, description = "The listing's id"),
        ("window_id" = Uuid, Path, description = "The window's id"),
    ),
    responses(
        (status = 204, description = "Deleted"),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, MaintenanceWindowKept)>,
    )
)]
#[delete("/listings/{id}/maintenance/{window_id}")]
pub async fn remove(
    app: web::Data<App>,
    Auth(caller): Auth,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (id, window) = path.into_inner();
    app.delete_maintenance_window(caller, id.into(), window)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
