use actix_web::{HttpResponse, get, web};
use app::App;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, Unauthenticated};
use crate::extract::Auth;
use crate::views::{ApiKeyView, Page};

/// The caller's API keys that are not revoked (never their secrets).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_api_keys", 
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's keys, newest first", body = Page<ApiKeyView>),
        Problems<(InvalidToken, Unauthenticated)>,
    )
)]
#[get("/api-keys")]
pub async fn list(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    let keys = app.api_keys(caller).await?;
    Ok(HttpResponse::Ok().json(Page::all(keys.into_iter().map(ApiKeyView::from).collect())))
}
