//! `POST /v1/gateway/{booking_id}/tokenize`: the engine's token count, holding one of the
//! booking's stream slots while it runs (tokenising is the engine's work too).

use actix_web::{HttpRequest, HttpResponse, post, web};
use app::App;
use uuid::Uuid;

use super::proxy::{self, Answers};
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    BookingNotActive, EngineUnavailable, Forbidden, InvalidToken, NotFound, RateLimited,
    Unauthenticated, WrongTokenAudience,
};

/// The booked engine's `/tokenize`.
#[utoipa::path(extensions(("x-rate-class" = json!("gateway"))), operation_id = "gateway_tokenize", 
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    request_body(content = Object, description = "vLLM's tokenize request"),
    responses(
        (status = 200, description = "The engine's answer, unchanged", body = Object),
        Problems<(InvalidToken, Unauthenticated, WrongTokenAudience, Forbidden, NotFound, BookingNotActive, RateLimited, EngineUnavailable)>,
    )
)]
#[post("/gateway/{booking_id}/tokenize")]
pub async fn tokenize(
    app: web::Data<App>,
    req: HttpRequest,
    booking: web::Path<Uuid>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let target = proxy::target_of(&app, &req, booking.into_inner()).await?;
    let body = proxy::read_body(payload, app.config().gateway.max_body_bytes).await?;
    let slot = app.gateway_slot(&target).await?;
    let request = proxy::request(&app, &target, "/tokenize", Some(body.to_vec()));
    let answer = match request {
        Ok(request) => proxy::pass(request, Answers::Json).await,
        Err(e) => Err(e),
    };
    slot.release().await;
    answer
}
