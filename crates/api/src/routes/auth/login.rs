use actix_web::{HttpResponse, post, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::error::{ApiError, Problem};
use crate::extract::Json;
use crate::views::TokenPairView;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    pub email: String,
    pub password: String,
}

/// Sign in with email and password.
#[utoipa::path(
    tag = "accounts",
    request_body = LoginRequest,
    responses(
        (status = 200, description = "Signed in", body = TokenPairView),
        (status = 401, description = "Email or password is wrong (`invalid_credentials`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/login")]
pub async fn login(
    app: web::Data<App>,
    Json(body): Json<LoginRequest>,
) -> Result<HttpResponse, ApiError> {
    let tokens = app.login(&body.email, &body.password).await?;
    Ok(HttpResponse::Ok().json(TokenPairView::from(tokens)))
}
