use actix_web::{HttpResponse, get, web};
use app::App;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    BookingNotActive, Forbidden, InvalidToken, NotFound, NotReady, Unauthenticated,
    ValidationFailed,
};
use crate::extract::{Auth, Query};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LogsQuery {
    /// The last lines to read, 1 to 5000 (default 200).
    pub tail: Option<i64>,
}

/// A booking's container's logs, read by its machine's agent just now.
#[derive(Debug, Serialize, ToSchema)]
pub struct ContainerLogsView {
    pub booking_id: Uuid,
    /// Standard output and error as the container wrote them, at most 256 KiB.
    pub text: String,
    pub read_at: DateTime<Utc>,
    /// Always `agent`: read on the machine by the provider's agent.
    pub source: &'static str,
}

/// The booking's container's logs (the renter, while the booking gives access): its
/// machine's agent reads them from dockerd when asked, within 10 s (503 with `Retry-After`
/// when it does not answer; 404 for a booking without a container).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_booking_logs",
    tag = "bookings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The booking's id"), LogsQuery),
    responses(
        (status = 200, description = "The container's last lines", body = ContainerLogsView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, BookingNotActive, ValidationFailed, NotReady)>,
    )
)]
#[get("/bookings/{id}/logs")]
pub async fn logs(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    query: Query<LogsQuery>,
) -> Result<HttpResponse, ApiError> {
    let read = app
        .booking_logs(caller, id.into_inner().into(), query.tail)
        .await?;
    Ok(HttpResponse::Ok().json(ContainerLogsView {
        booking_id: read.booking_id,
        text: read.text,
        read_at: read.read_at,
        source: "agent",
    }))
}
