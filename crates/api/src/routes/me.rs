use actix_web::{HttpResponse, get, web};
use app::App;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, Unauthenticated};
use crate::extract::Auth;
use crate::views::UserView;

/// The caller's account.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_me", 
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller", body = UserView),
        Problems<(InvalidToken, Unauthenticated)>,
    )
)]
#[get("/me")]
pub async fn me(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    let user = app.me(caller).await?;
    Ok(HttpResponse::Ok().json(UserView::from(user)))
}
