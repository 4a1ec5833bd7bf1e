//! `POST /v1/gateway/{booking_id}/v1/chat/completions`.

use actix_web::{HttpRequest, HttpResponse, post, web};
use app::App;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    BookingNotActive, EngineUnavailable, Forbidden, InvalidToken, NotFound, Unauthenticated,
    UnsupportedRequest, ValidationFailed, WrongTokenAudience,
};

/// A chat completion on the booked machine, metered. One sequence per request (`n`,
/// `best_of` above 1 and beam search are refused: `unsupported_request`); `max_tokens` (or
/// `max_completion_tokens`) at most `gateway_max_tokens` (set to it when absent); streams are
/// passed through as they arrive; at most the booking's share of streams at once (429).
#[utoipa::path(extensions(("x-rate-class" = json!("gateway"))), operation_id = "gateway_chat_completions", 
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    request_body(content = Object, description = "An OpenAI chat completion request"),
    responses(
        (status = 200, description = "The engine's answer, unchanged (JSON, or an event stream)", body = Object),
        Problems<(InvalidToken, Unauthenticated, WrongTokenAudience, Forbidden, NotFound, BookingNotActive, UnsupportedRequest, ValidationFailed, EngineUnavailable)>,
    )
)]
#[post("/gateway/{booking_id}/v1/chat/completions")]
pub async fn chat(
    app: web::Data<App>,
    req: HttpRequest,
    booking: web::Path<Uuid>,
    payload: web::Payload,
) -> Result<HttpResponse, ApiError> {
    let booking = booking.into_inner();
    super::generate::generate(app, req, booking, payload, "/v1/chat/completions").await
}
