//! `GET /v1/gateway/{booking_id}/v1/models` and `…/version`: what the engine serves.

use actix_web::{HttpRequest, HttpResponse, get, web};
use app::App;
use uuid::Uuid;

use super::proxy::{self, Answers};
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    BookingNotActive, EngineUnavailable, Forbidden, InvalidToken, NotFound, Unauthenticated,
    WrongTokenAudience,
};

/// The booked engine's models.
#[utoipa::path(extensions(("x-rate-class" = json!("gateway"))), operation_id = "gateway_models", 
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    responses(
        (status = 200, description = "The engine's answer, unchanged", body = Object),
        Problems<(InvalidToken, Unauthenticated, WrongTokenAudience, Forbidden, NotFound, BookingNotActive, EngineUnavailable)>,
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

/// The booked engine's `/version`, in vLLM's shape (`{version}`) whatever the engine: vLLM's
/// answer passes unchanged; llama.cpp's build (`/props`), SGLang's and TGI's versions are
/// translated; 404 when the engine states none.
#[utoipa::path(extensions(("x-rate-class" = json!("gateway"))), operation_id = "gateway_version", 
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    responses(
        (status = 200, description = "The engine's answer, unchanged", body = Object),
        Problems<(InvalidToken, Unauthenticated, WrongTokenAudience, Forbidden, NotFound, BookingNotActive, EngineUnavailable)>,
    )
)]
#[get("/gateway/{booking_id}/version")]
pub async fn version(
    app: web::Data<App>,
    req: HttpRequest,
    booking: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let target = proxy::target_of(&app, &req, booking.into_inner()).await?;
    if let Some(translated) = app.gateway_version(&target).await? {
        return Ok(HttpResponse::Ok().json(translated));
    }
    proxy::pass(
        proxy::request(&app, &target, "/version", None)?,
        Answers::Json,
    )
    .await
}
