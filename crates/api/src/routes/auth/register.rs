use actix_web::{HttpResponse, post, web};
use app::App;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::{ApiError, Problem};
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
#[utoipa::path(
    tag = "accounts",
    request_body = RegisterRequest,
    responses(
        (status = 201, description = "Account created", body = RegisterResponse),
        (status = 409, description = "The email is taken (`email_taken`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A field is invalid (`validation_failed`)", body = Problem, content_type = "application/problem+json"),
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
