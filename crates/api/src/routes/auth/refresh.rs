use actix_web::{HttpResponse, post, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::InvalidToken;
use crate::extract::Json;
use crate::views::TokenPairView;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshRequest {
    pub refresh_token: String,
}

/// Trade a refresh token for a new pair. Each refresh token works once; presenting a used
/// one revokes every token of its session.
#[utoipa::path(extensions(("x-rate-class" = json!("auth"))), operation_id = "refresh_session", 
    tag = "accounts",
    request_body = RefreshRequest,
    responses(
        (status = 200, description = "A new pair; the old refresh token no longer works", body = TokenPairView),
        Problems<InvalidToken>,
    )
)]
#[post("/auth/refresh")]
pub async fn refresh(
    app: web::Data<App>,
    Json(body): Json<RefreshRequest>,
) -> Result<HttpResponse, ApiError> {
    let tokens = app.refresh(&body.refresh_token).await?;
    Ok(HttpResponse::Ok().json(TokenPairView::from(tokens)))
}
