use actix_web::{HttpResponse, get, web};
use app::App;

use crate::error::{ApiError, Problem};
use crate::extract::Auth;
use crate::views::UserView;

/// The caller's account.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller", body = UserView),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me")]
pub async fn me(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    let user = app.me(caller).await?;
    Ok(HttpResponse::Ok().json(UserView::from(user)))
}
