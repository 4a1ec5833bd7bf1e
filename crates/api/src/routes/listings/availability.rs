use actix_web::{HttpResponse, get, web};
use app::App;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, NotFound, ValidationFailed};
use crate::extract::Query;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AvailabilityQuery {
    /// Start of the range, RFC 3339.
    pub from: DateTime<Utc>,
    /// End of the range (exclusive), at most 366 days after `from`.
    pub to: DateTime<Utc>,
}

/// A stretch of time with the same number of free GPUs.
#[derive(Debug, Serialize, ToSchema)]
pub struct FreeSegmentView {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    /// GPUs free for an on-demand booking (which displaces interruptible ones).
    pub free_gpus: i32,
    /// Of `free_gpus`, those held by interruptible bookings: free for on demand, taken for a
    /// bid at or below theirs (see `GET /v1/quote`).
    pub interruptible_gpus: i32,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AvailabilityView {
    pub listing_id: Uuid,
    pub gpu_count: i32,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    /// Consecutive segments covering `[from, to)`; none are free outside the listing's
    /// availability window or once it is delisted.
    pub segments: Vec<FreeSegmentView>,
}

/// Free GPUs of a listing over time. Public.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_listing_availability", 
    tag = "listings",
    params(("id" = Uuid, Path, description = "The listing's id"), AvailabilityQuery),
    responses(
        (status = 200, description = "Free GPUs over the range", body = AvailabilityView),
        Problems<(InvalidParameter, NotFound, ValidationFailed)>,
    )
)]
#[get("/listings/{id}/availability")]
pub async fn availability(
    app: web::Data<App>,
    id: web::Path<Uuid>,
    query: Query<AvailabilityQuery>,
) -> Result<HttpResponse, ApiError> {
    let found = app
        .availability(id.into_inner().into(), query.from, query.to)
        .await?;
    Ok(HttpResponse::Ok().json(AvailabilityView {
        listing_id: found.listing.id.into(),
        gpu_count: found.listing.gpu_count,
        from: found.from,
        to: found.to,
        segments: found
            .segments
            .into_iter()
            .map(
                |(from, to, free_gpus, interruptible_gpus)| FreeSegmentView {
                    from,
                    to,
                    free_gpus,
                    interruptible_gpus,
                },
            )
            .collect(),
    }))
}
