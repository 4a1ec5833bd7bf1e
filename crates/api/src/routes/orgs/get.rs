use actix_web::{HttpResponse, get, web};
use app::App;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{Forbidden, InvalidToken, NotFound, Unauthenticated};
use crate::extract::{InOrg, Member};
use crate::views::{MemberView, OrgView, RoleView};

#[derive(Debug, Serialize, ToSchema)]
pub struct OrgDetailsView {
    #[serde(flatten)]
    pub org: OrgView,
    /// The caller's own role.
    pub role: RoleView,
    pub members: Vec<MemberView>,
}

/// An organisation and its members; for its members.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_org", 
    tag = "organisations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    responses(
        (status = 200, description = "The organisation", body = OrgDetailsView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[get("/orgs/{id}")]
pub async fn get(app: web::Data<App>, access: InOrg<Member>) -> Result<HttpResponse, ApiError> {
    let details = app.org_details(access.caller, access.org_id).await?;
    Ok(HttpResponse::Ok().json(OrgDetailsView {
        org: details.org.into(),
        role: access.role.into(),
        members: details.members.into_iter().map(MemberView::from).collect(),
    }))
}
