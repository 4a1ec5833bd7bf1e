use actix_web::{HttpResponse, post, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidCredentials, RateLimited};
use crate::extract::{ClientNetwork, Json};
use crate::views::TokenPairView;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    pub email: String,
    pub password: String,
}

/// Sign in with email and password.
#[utoipa::path(extensions(("x-rate-class" = json!("auth"))), operation_id = "login", 
    tag = "accounts",
    request_body = LoginRequest,
    responses(
        (status = 200, description = "Signed in", body = TokenPairView),
        Problems<(InvalidCredentials, RateLimited)>,
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
