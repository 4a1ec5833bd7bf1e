use actix_web::{HttpResponse, post, web};
use app::App;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{EmailTaken, ValidationFailed};
use crate::extract::Json;
use crate::views::{TokenPairView, UserView};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterRequest {
    pub email: String,
    /// At least 10 characters.
    pub password: String,
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RegisterResponse {
    pub user: UserView,
    #[serde(flatten)]
    pub tokens: TokenPairView,
}

/// Create an account; the answer signs it in.
#[utoipa::path(extensions(("x-rate-class" = json!("auth"))), operation_id = "register", 
    tag = "accounts",
    request_body = RegisterRequest,
    responses(
        (status = 201, description = "Account created", body = RegisterResponse),
        Problems<(EmailTaken, ValidationFailed)>,
    )
)]
#[post("/auth/register")]
pub async fn register(
    app: web::Data<App>,
    Json(body): Json<RegisterRequest>,
) -> Result<HttpResponse, ApiError> {
    let (user, tokens) = app
        .register(&body.email, &body.password, &body.name)
        .await?;
    Ok(HttpResponse::Created().json(RegisterResponse {
        user: user.into(),
        tokens: tokens.into(),
    }))
}
