//! `POST /v1/gateway/{booking_id}/v1/chat/completions`.

use actix_web::{HttpRequest, HttpResponse, post, web};
use app::App;
use uuid::Uuid;

use crate::error::{ApiError, Problem};

/// A chat completion on the booked machine, metered. One sequence per request (`n`,
/// `best_of` above 1 and beam search are refused: `unsupported_request`); `max_tokens` (or
/// `max_completion_tokens`) at most `gateway_max_tokens` (set to it when absent); streams are
/// passed through as they arrive; at most the booking's share of streams at once (429).
#[utoipa::path(
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    request_body(content = Object, description = "An OpenAI chat completion request"),
    responses(
        (status = 200, description = "The engine's answer, unchanged (JSON, or an event stream)", body = Object),
        (status = 401, description = "No or invalid credential; the booking's access token (`wrong_token_audience`)", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An organisation key", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such booking (or not yours)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The booking gives no access now (`booking_not_active`)", body = Problem, content_type = "application/problem+json"),
        (status = 502, description = "The engine did not answer, redirected, refused the gateway, or answered another content type (`engine_unavailable`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "More than one sequence (`unsupported_request`), or a field out of bounds", body = Problem, content_type = "application/problem+json"),
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
