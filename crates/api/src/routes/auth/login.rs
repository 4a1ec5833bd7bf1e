use actix_web::{HttpResponse, post, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::error::{ApiError, Problem};
use crate::extract::{ClientNetwork, Json};
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
        (status = 429, description = "Too many failed logins for this account from this address, or from this address (`rate_limited`, with `Retry-After`)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/login")]
pub async fn login(
    app: web::Data<App>,
    ClientNetwork(client): ClientNetwork,
    Json(body): Json<LoginRequest>,
) -> Result<HttpResponse, ApiError> {
    let tokens = app.login(&body.email, &body.password, client).await?;
    Ok(HttpResponse::Ok().json(TokenPairView::from(tokens)))
}
