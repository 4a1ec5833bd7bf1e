use actix_web::{HttpResponse, get, web};
use app::App;

use super::SshKeyView;
use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{Forbidden, InvalidToken, Unauthenticated};
use crate::extract::Auth;
use crate::views::Page;

/// The caller's SSH public keys, oldest first.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_ssh_keys",
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's keys", body = Page<SshKeyView>),
        Problems<(InvalidToken, Unauthenticated, Forbidden)>,
    )
)]
#[get("/me/ssh-keys")]
pub async fn list(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    let keys = app.ssh_keys(caller).await?;
    Ok(HttpResponse::Ok().json(Page::all(keys.into_iter().map(SshKeyView::from).collect())))
}
