//! `GET /v1/gateway/{booking_id}/v1/models` and `…/version`: what the engine serves.

use actix_web::{HttpRequest, HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use super::proxy::{self, Answers};
use crate::error::{ApiError, Problem};

/// The booked engine's models.
#[utoipa::path(
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    responses(
        (status = 200, description = "The engine's answer, unchanged", body = Object),
        (status = 401, description = "No or invalid credential; the booking's access token (`wrong_token_audience`)", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An organisation key", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such booking (or not yours)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The booking gives no access now (`booking_not_active`)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The engine did not answer, redirected, refused the gateway, or answered another content type (`engine_unavailable`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/gateway/{booking_id}/v1/models")]
pub async fn models(
    app: web::Data<App>,
    req: HttpRequest,
    booking: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let target = proxy::target_of(&app, &req, booking.into_inner()).await?;
    proxy::pass(
        proxy::request(&app, &target, "/v1/models", None)?,
        Answers::Json,
    )
    .await
}

/// The booked engine's `/version`.
#[utoipa::path(
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    responses(
        (status = 200, description = "The engine's answer, unchanged", body = Object),
        (status = 401, description = "No or invalid credential; the booking's access token (`wrong_token_audience`)", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An organisation key", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such booking (or not yours)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The booking gives no access now (`booking_not_active`)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The engine did not answer, redirected, refused the gateway, or answered another content type (`engine_unavailable`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/gateway/{booking_id}/version")]
pub async fn version(
    app: web::Data<App>,
    req: HttpRequest,
    booking: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let target = proxy::target_of(&app, &req, booking.into_inner()).await?;
    proxy::pass(
        proxy::request(&app, &target, "/version", None)?,
        Answers::Json,
    )
    .await
}
