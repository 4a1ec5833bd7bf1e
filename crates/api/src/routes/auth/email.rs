//! Confirming an email address and resetting a password, through links mailed to it.

use actix_web::{HttpResponse, post, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, NotFound, Unauthenticated, ValidationFailed};
use crate::extract::{Auth, ClientNetwork, Json};
use crate::views::UserView;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfirmRequest {
    /// The token of the link mailed to the address (`…/confirm-email?token=`).
    pub token: String,
}

/// Confirm an email address with the link mailed to it: single use, for 24 hours. When the
/// address had been registered again before it was confirmed, the account takes the
/// password and name of the registration whose link this is, and every earlier session and
/// personal API key ends.
#[utoipa::path(extensions(("x-rate-class" = json!("auth"))), operation_id = "confirm_email", 
    tag = "accounts",
    request_body = ConfirmRequest,
    responses(
        (status = 200, description = "Confirmed", body = UserView),
        Problems<NotFound>,
    )
)]
#[post("/auth/email/confirm")]
pub async fn confirm(
    app: web::Data<App>,
    Json(body): Json<ConfirmRequest>,
) -> Result<HttpResponse, ApiError> {
    let user = app.confirm_email(&body.token).await?;
    Ok(HttpResponse::Ok().json(UserView::from(user)))
}

/// Mail the caller's address a fresh confirmation link (nothing when it is confirmed).
#[utoipa::path(extensions(("x-rate-class" = json!("auth"))), operation_id = "resend_email_confirmation", 
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Sent, or nothing to confirm"),
        Problems<(InvalidToken, Unauthenticated)>,
    )
)]
#[post("/auth/email/resend")]
pub async fn resend(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    app.resend_confirmation(caller).await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetRequest {
    pub email: String,
}

/// Ask for a password-reset link. The answer is the same whether an account has the address
/// (the link, valid an hour, goes to it if so).
#[utoipa::path(extensions(("x-rate-class" = json!("auth"))), operation_id = "request_password_reset", 
    tag = "accounts",
    request_body = ResetRequest,
    responses((status = 202, description = "If an account has this address, a link is on its way")),
)]
#[post("/auth/password-reset")]
pub async fn reset(
    app: web::Data<App>,
    Json(body): Json<ResetRequest>,
) -> Result<HttpResponse, ApiError> {
    app.request_password_reset(&body.email).await?;
    Ok(HttpResponse::Accepted().finish())
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetConfirmRequest {
    /// The token of the link mailed to the address (`…/reset-password?token=`).
    pub token: String,
    pub password: String,
}

/// Set a new password with a reset link (single use, for an hour). The address counts as
/// confirmed; every session and personal API key of the account ends.
#[utoipa::path(extensions(("x-rate-class" = json!("auth"))), operation_id = "reset_password", 
    tag = "accounts",
    request_body = ResetConfirmRequest,
    responses(
        (status = 204, description = "The password is set"),
        Problems<(NotFound, ValidationFailed)>,
    )
)]
#[post("/auth/password-reset/confirm")]
pub async fn reset_confirm(
    app: web::Data<App>,
    ClientNetwork(client): ClientNetwork,
    Json(body): Json<ResetConfirmRequest>,
) -> Result<HttpResponse, ApiError> {
    app.reset_password(&body.token, &body.password, client)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
