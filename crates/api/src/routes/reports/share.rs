//! Share links of private reports: whoever holds one reads the report (its JSON, exports,
//! proof and page) until it expires or is revoked.

use actix_web::{HttpResponse, delete, get, post, web};
use app::App;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{Forbidden, InvalidToken, NotFound, Unauthenticated, ValidationFailed};
use crate::extract::{Auth, Json};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ShareRequest {
    /// How long the link lasts: 60 s to 90 days (default 7 days).
    pub expires_in_secs: Option<u64>,
}

/// A share link; `token` is shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct ShareView {
    /// Names the link when it is listed or revoked.
    pub id: Uuid,
    /// The report's page with the token (`?share=`); the JSON, exports and proof take the
    /// same parameter.
    pub url: String,
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

/// A share link of a report, for members of its organisation (a private report is
/// otherwise shown to them only).
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "share_report", 
    tag = "reports",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The report's id")),
    request_body = ShareRequest,
    responses(
        (status = 201, description = "The link", body = ShareView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, ValidationFailed)>,
    )
)]
#[post("/reports/{id}/share")]
pub async fn share(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    Json(body): Json<ShareRequest>,
) -> Result<HttpResponse, ApiError> {
    let link = app
        .share_report(caller, id.into_inner().into(), body.expires_in_secs)
        .await?;
    Ok(HttpResponse::Created().json(ShareView {
        id: link.id,
        url: link.url,
        token: link.token,
        expires_at: link.expires_at,
    }))
}

/// A live share link as listed: never its token.
#[derive(Debug, Serialize, ToSchema)]
pub struct SharedLinkView {
    pub id: Uuid,
    /// The token's first characters (`gms_` and 8 more), to tell links apart; null on links
    /// made before prefixes were kept.
    pub prefix: Option<String>,
    /// The member who made it.
    pub created_by: Uuid,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SharedLinksView {
    /// Newest first.
    pub items: Vec<SharedLinkView>,
}

/// The report's share links that are neither revoked nor expired, for members of its
/// organisation (tokens are never shown again).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_report_shares", 
    tag = "reports",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The report's id")),
    responses(
        (status = 200, description = "The live links", body = SharedLinksView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[get("/reports/{id}/share")]
pub async fn list(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let links = app.shares(caller, id.into_inner().into()).await?;
    Ok(HttpResponse::Ok().json(SharedLinksView {
        items: links
            .into_iter()
            .map(|l| SharedLinkView {
                id: l.id,
                prefix: l.prefix,
                created_by: l.created_by.as_uuid(),
                created_at: l.created_at,
                expires_at: l.expires_at,
            })
            .collect(),
    }))
}

/// Revokes a share link at once, named by its id (from the list) or its token. Links a
/// member made are revoked when they leave the organisation.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "revoke_report_share", 
    tag = "reports",
    security(("bearer" = [])),
    params(
        ("id" = Uuid, Path, description = "The report's id"),
        ("token" = String, Path, description = "The link's id, or its token"),
    ),
    responses(
        (status = 204, description = "Revoked"),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[delete("/reports/{id}/share/{token}")]
pub async fn revoke(
    app: web::Data<App>,
    Auth(caller): Auth,
    path: web::Path<(Uuid, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, token) = path.into_inner();
    app.revoke_share(caller, id.into(), &token).await?;
    Ok(HttpResponse::NoContent().finish())
}
