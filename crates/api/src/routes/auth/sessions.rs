//! Ending sessions: log out of one, change the password (ending the others), or end them all.

use actix_web::{HttpResponse, post, web};
use app::App;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    Forbidden, InvalidCredentials, InvalidToken, Unauthenticated, ValidationFailed,
};
use crate::extract::{Auth, Json};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LogoutRequest {
    pub refresh_token: String,
}

/// End the login session a refresh token belongs to: that token and every one its refreshes
/// issued stop working; its access tokens stop within `access_token_ttl_secs`. Always 204,
/// whether or not the token exists.
#[utoipa::path(extensions(("x-rate-class" = json!("auth"))), operation_id = "logout", 
    tag = "accounts",
    request_body = LogoutRequest,
    responses(
        (status = 204, description = "The session is ended"),
        Problems<ValidationFailed>,
    )
)]
#[post("/auth/logout")]
pub async fn logout(
    app: web::Data<App>,
    Json(body): Json<LogoutRequest>,
) -> Result<HttpResponse, ApiError> {
    app.logout(&body.refresh_token).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordRequest {
    pub current_password: String,
    pub new_password: String,
    /// Keep your personal API keys working (by default a password change revokes them:
    /// whoever knew the old password may have made one).
    #[serde(default)]
    pub keep_api_keys: bool,
}

/// Change the password. Needs the current one and a signed-in session (not an API key);
/// every other login session of the account ends (its access tokens are refused at once),
/// and the account's personal API keys are revoked unless `keep_api_keys` is true.
/// Organisation keys are the organisation's and stay.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "change_password", 
    tag = "accounts",
    security(("bearer" = [])),
    request_body = PasswordRequest,
    responses(
        (status = 204, description = "Changed; other sessions ended, personal API keys revoked unless kept"),
        Problems<(InvalidCredentials, InvalidToken, Unauthenticated, Forbidden, ValidationFailed)>,
    )
)]
#[post("/auth/password")]
pub async fn password(
    app: web::Data<App>,
    Auth(caller): Auth,
    Json(body): Json<PasswordRequest>,
) -> Result<HttpResponse, ApiError> {
    app.change_password(
        caller,
        &body.current_password,
        &body.new_password,
        body.keep_api_keys,
    )
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RevokedView {
    /// Login sessions ended.
    pub revoked: u64,
}

/// Sign out everywhere: every login session of the caller ends, and its access tokens are
/// refused from now on on every replica. API keys stay; revoke them one by one.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "revoke_all_sessions", 
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Every session ended", body = RevokedView),
        Problems<(InvalidToken, Unauthenticated)>,
    )
)]
#[post("/auth/sessions/revoke-all")]
pub async fn revoke_all(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    let revoked = app.revoke_all_sessions(caller).await?;
    Ok(HttpResponse::Ok().json(RevokedView { revoked }))
}
