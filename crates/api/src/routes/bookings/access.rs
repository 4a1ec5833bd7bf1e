use actix_web::{HttpResponse, get, post, web};
use app::App;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{BookingNotActive, Forbidden, InvalidToken, NotFound, Unauthenticated};
use crate::extract::{Auth, Json};
use crate::views::{AccessView, SshView};

/// How to reach a rented machine, and the token it accepts.
#[derive(Debug, Serialize, ToSchema)]
pub struct AccessGrantView {
    pub booking_id: Uuid,
    pub listing_id: Uuid,
    /// Present the token as `Authorization: Bearer <token>` to the machine's HTTPS endpoint
    /// (or as the provider's SSH gateway asks). It is good from `valid_from` until
    /// `valid_until`, and stops working if the booking is cancelled.
    pub token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    pub valid_from: DateTime<Utc>,
    pub valid_until: DateTime<Utc>,
    pub ssh: Option<SshView>,
    pub https_url: Option<String>,
}

/// The renter's way into a confirmed booking's machine: its SSH and/or HTTPS details and a
/// per-booking bearer token valid from `starts_at` to `ends_at`. Each call issues a fresh
/// token; all of them stop working when the booking is cancelled or ends.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_booking_access", 
    tag = "bookings",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The booking's id")),
    responses(
        (status = 200, description = "Connection details and a token", body = AccessGrantView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, BookingNotActive)>,
    )
)]
#[get("/bookings/{id}/access")]
pub async fn access(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let grant = app.booking_access(caller, id.into_inner().into()).await?;
    let details = AccessView::of(&grant.listing, true);
    Ok(HttpResponse::Ok()
        .insert_header(("cache-control", "no-store"))
        .json(AccessGrantView {
            booking_id: grant.booking.id.into(),
            listing_id: grant.booking.listing_id.into(),
            token: grant.token,
            token_type: "Bearer",
            valid_from: grant.booking.starts_at,
            valid_until: grant.booking.ends_at,
            ssh: details.ssh,
            https_url: details.https_url,
        }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IntrospectRequest {
    /// The token a renter presented.
    pub token: String,
}

/// RFC 7662's answer. An inactive token gets `{"active": false}` and nothing else.
#[derive(Debug, Default, Serialize, ToSchema)]
pub struct IntrospectionView {
    pub active: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub booking_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listing_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_count: Option<i32>,
    /// The renter's user id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sub: Option<Uuid>,
    /// Not before (Unix seconds): the booking's start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nbf: Option<i64>,
    /// Expiry (Unix seconds): the booking's end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exp: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_type: Option<&'static str>,
}

/// For the provider's machine: is this renter's token good now? Authenticate with an API
/// key of a member of the organisation that owns the booked listing. Active only while the
/// booking is confirmed or running and `starts_at <= now < ends_at`.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "introspect_access_token", 
    tag = "bookings",
    security(("bearer" = [])),
    request_body = IntrospectRequest,
    responses(
        (status = 200, description = "Whether the token is active, and for what", body = IntrospectionView),
        Problems<(InvalidToken, Unauthenticated, Forbidden)>,
    )
)]
#[post("/access/introspect")]
pub async fn introspect(
    app: web::Data<App>,
    Auth(caller): Auth,
    Json(body): Json<IntrospectRequest>,
) -> Result<HttpResponse, ApiError> {
    let answer = app.introspect(caller, &body.token).await?;
    let view = match answer.active {
        None => IntrospectionView::default(),
        Some(t) => IntrospectionView {
            active: true,
            booking_id: Some(t.booking_id.into()),
            listing_id: Some(t.listing_id.into()),
            gpu_count: Some(t.gpu_count),
            sub: Some(t.renter_id.into()),
            nbf: Some(t.nbf),
            exp: Some(t.exp),
            token_type: Some("Bearer"),
        },
    };
    Ok(HttpResponse::Ok()
        .insert_header(("cache-control", "no-store"))
        .json(view))
}
