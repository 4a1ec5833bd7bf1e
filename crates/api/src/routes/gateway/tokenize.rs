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
    Unauthenticated, ValidationFailed, WrongTokenAudience,
};

/// The booked engine's `/tokenize`, in vLLM's shape (`{model, prompt}` or `{model,
/// messages}` → `{count, max_model_len, tokens}`) whatever the engine: vLLM's answer passes
/// unchanged; llama.cpp's and TGI's are translated (a text `prompt` only, else 422); SGLang has
/// no tokenizer the gateway knows (404).
#[utoipa::path(extensions(("x-rate-class" = json!("gateway"))), operation_id = "gateway_tokenize", 
    tag = "gateway",
    security(("bearer" = [])),
    params(("booking_id" = Uuid, Path, description = "The booking")),
    request_body(content = Object, description = "vLLM's tokenize request"),
    responses(
        (status = 200, description = "The token count and ids, in vLLM's shape", body = Object),
        Problems<(InvalidToken, Unauthenticated, WrongTokenAudience, Forbidden, NotFound, BookingNotActive, RateLimited, ValidationFailed, EngineUnavailable)>,
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
    let answer = match app.gateway_tokenize(&target, &body).await {
        Ok(Some(translated)) => Ok(HttpResponse::Ok().json(translated)),
        Ok(None) => match proxy::request(&app, &target, "/tokenize", Some(body.to_vec())) {
            Ok(request) => proxy::pass(request, Answers::Json).await,
            Err(e) => Err(e),
        },
        Err(e) => Err(e.into()),
    };
    slot.release().await;
    answer
}
