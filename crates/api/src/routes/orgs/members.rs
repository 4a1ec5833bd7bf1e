//! Membership by consent: invitations (also what `POST /orgs/{id}/members` makes), their
//! acceptance, role changes and removals.

use actix_web::{HttpResponse, delete, patch, post, web};
use app::App;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    AlreadyMember, EmailUnverified, Forbidden, InvalidToken, LastOwner, NotFound, Unauthenticated,
    ValidationFailed,
};
use crate::extract::{Admin, Auth, InOrg, Json};
use crate::views::{MemberView, RoleView};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InviteRequest {
    /// Whom to invite: they accept signed in with this email.
    pub email: String,
    pub role: RoleView,
}

/// An invitation just made. `token` is shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct InvitationView {
    pub id: Uuid,
    pub org_id: Uuid,
    pub email: String,
    pub role: RoleView,
    pub token: String,
    /// `POST` here, signed in as the invited email, to join.
    pub url: String,
    pub expires_at: DateTime<Utc>,
}

impl From<app::identity::orgs::Invitation> for InvitationView {
    fn from(i: app::identity::orgs::Invitation) -> Self {
        Self {
            id: i.id,
            org_id: i.org.into(),
            email: i.email,
            role: i.role.into(),
            token: i.token,
            url: i.url,
            expires_at: i.expires_at,
        }
    }
}

async fn invite_into(
    app: web::Data<App>,
    access: InOrg<Admin>,
    body: InviteRequest,
) -> Result<HttpResponse, ApiError> {
    let invitation = app
        .invite(access.caller, access.org_id, &body.email, body.role.into())
        .await?;
    Ok(HttpResponse::Created().json(InvitationView::from(invitation)))
}

/// Invite someone into the organisation: a single-use link for one email and role (admins
/// invite members and admins; only owners invite owners). The same answer whether or not an
/// account has that email; the person joins when they accept.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "invite_member", 
    tag = "organisations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    request_body = InviteRequest,
    responses(
        (status = 201, description = "Invited; the token is shown this once", body = InvitationView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, ValidationFailed)>,
    )
)]
#[post("/orgs/{id}/invitations")]
pub async fn invite(
    app: web::Data<App>,
    access: InOrg<Admin>,
    Json(body): Json<InviteRequest>,
) -> Result<HttpResponse, ApiError> {
    invite_into(app, access, body).await
}

/// Add a member: since members join by consent, this invites them (as
/// `POST /orgs/{id}/invitations` does) and answers the invitation.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "add_member", 
    tag = "organisations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    request_body = InviteRequest,
    responses(
        (status = 201, description = "Invited; the token is shown this once", body = InvitationView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, ValidationFailed)>,
    )
)]
#[post("/orgs/{id}/members")]
pub async fn add_member(
    app: web::Data<App>,
    access: InOrg<Admin>,
    Json(body): Json<InviteRequest>,
) -> Result<HttpResponse, ApiError> {
    invite_into(app, access, body).await
}

/// Accept an invitation, signed in as the invited email: the caller joins with the
/// invitation's role. An unknown, used or expired token, or another account, is 404.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "accept_invitation", 
    tag = "organisations",
    security(("bearer" = [])),
    params(("token" = String, Path, description = "The invitation's token")),
    responses(
        (status = 200, description = "Joined", body = MemberView),
        Problems<(InvalidToken, Unauthenticated, EmailUnverified, NotFound, AlreadyMember)>,
    )
)]
#[post("/invitations/{token}/accept")]
pub async fn accept(
    app: web::Data<App>,
    Auth(caller): Auth,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let member = app.accept_invitation(caller, &token).await?;
    Ok(HttpResponse::Ok().json(MemberView::from(member)))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoleChange {
    pub role: RoleView,
}

/// Change a member's role (admins; only owners appoint or demote owners). The last owner
/// keeps the role (409 `last_owner`).
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "set_member_role", 
    tag = "organisations",
    security(("bearer" = [])),
    params(
        ("id" = Uuid, Path, description = "The organisation's id"),
        ("user_id" = Uuid, Path, description = "The member's user id"),
    ),
    request_body = RoleChange,
    responses(
        (status = 200, description = "The member now", body = MemberView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, LastOwner)>,
    )
)]
#[patch("/orgs/{id}/members/{user_id}")]
pub async fn set_role(
    app: web::Data<App>,
    access: InOrg<Admin>,
    path: web::Path<(Uuid, Uuid)>,
    Json(body): Json<RoleChange>,
) -> Result<HttpResponse, ApiError> {
    let (_, user) = path.into_inner();
    let member = app
        .set_member_role(access.caller, access.org_id, user.into(), body.role.into())
        .await?;
    Ok(HttpResponse::Ok().json(MemberView::from(member)))
}

/// Remove a member (admins; owners only by an owner), or leave (any member, for themself).
/// The last owner cannot leave (409 `last_owner`).
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "remove_member", 
    tag = "organisations",
    security(("bearer" = [])),
    params(
        ("id" = Uuid, Path, description = "The organisation's id"),
        ("user_id" = Uuid, Path, description = "The member's user id"),
    ),
    responses(
        (status = 204, description = "Removed"),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, LastOwner)>,
    )
)]
#[delete("/orgs/{id}/members/{user_id}")]
pub async fn remove(
    app: web::Data<App>,
    Auth(caller): Auth,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (org, user) = path.into_inner();
    app.remove_member(caller, org.into(), user.into()).await?;
    Ok(HttpResponse::NoContent().finish())
}
