//! `POST /v1/gateway/{booking_id}/v1/completions`.

use actix_web::{HttpRequest, HttpResponse, post, web};
use app::App;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    BookingNotActive, EngineUnavailable, Forbidden, InvalidToken, NotFound, Unauthenticated,
    UnsupportedRequest, ValidationFailed, WrongTokenAudience,
};

/// A completion on the booked machine, metered (as chat completions). `prompt` is one
/// prompt: a string, or one list of token ids; a list of several prompts is refused
/// (`unsupported_request`).
#[utoipa::path(extensions(("x-rate-class" = json!("gateway"))), operation_id = "gateway_completions", 
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    request_body(content = Object, description = "An OpenAI completion request"),
    responses(
        (status = 200, description = "The engine's answer, unchanged (JSON, or an event stream)", body = Object),
        Problems<(InvalidToken, Unauthenticated, WrongTokenAudience, Forbidden, NotFound, BookingNotActive, UnsupportedRequest, ValidationFailed, EngineUnavailable)>,
    )
)]
#[post("/gateway/{booking_id}/v1/completions")]
pub async fn completions(
    app: web::Data<App>,
    req: HttpRequest,
    booking: web::Path<Uuid>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let booking = booking.into_inner();
    super::generate::generate(app, req, booking, payload, "/v1/completions").await
}
