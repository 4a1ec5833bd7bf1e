use actix_web::{HttpResponse, get, web};
use app::App;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidToken, Unauthenticated};
use crate::extract::Auth;
use crate::views::{OrgView, Page, RoleView};

/// An organisation the caller belongs to, with the caller's role.
#[derive(Debug, Serialize, ToSchema)]
pub struct MyOrgView {
    #[serde(flatten)]
    pub org: OrgView,
    pub role: RoleView,
}

/// The organisations the caller belongs to.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_orgs", 
    tag = "organisations",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's organisations", body = Page<MyOrgView>),
        Problems<(InvalidToken, Unauthenticated)>,
    )
)]
#[get("/orgs")]
pub async fn list(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    let orgs = app.my_orgs(caller).await?;
    let items = orgs
        .into_iter()
        .map(|(org, role)| MyOrgView {
            org: org.into(),
            role: role.into(),
        })
        .collect();
    Ok(HttpResponse::Ok().json(Page::all(items)))
}
