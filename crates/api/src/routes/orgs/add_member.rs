use actix_web::{HttpResponse, post, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::error::{ApiError, Problem};
use crate::extract::{Admin, InOrg, Json};
use crate::views::{MemberView, RoleView};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddMemberRequest {
    /// The email of an existing account.
    pub email: String,
    pub role: RoleView,
}

/// Add a member. Admins add members and admins; only owners add owners.
#[utoipa::path(
    tag = "organisations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    request_body = AddMemberRequest,
    responses(
        (status = 201, description = "Added", body = MemberView),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not an admin, or an admin appointing an owner", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such organisation", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already a member (`already_member`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid email or role, or no account with that email", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/orgs/{id}/members")]
pub async fn add_member(
    app: web::Data<App>,
    access: InOrg<Admin>,
    Json(body): Json<AddMemberRequest>,
) -> Result<HttpResponse, ApiError> {
    let member = app
        .add_member(access.caller, access.org_id, &body.email, body.role.into())
        .await?;
    Ok(HttpResponse::Created().json(MemberView::from(member)))
}
