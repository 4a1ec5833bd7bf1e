//! Organisation API keys: made by the organisation's admins, acting for the organisation
//! only, within their scopes.

use actix_web::{HttpResponse, delete, get, post, web};
use app::App;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{Forbidden, InvalidToken, NotFound, Unauthenticated, ValidationFailed};
use crate::extract::{Admin, InOrg, Json};
use crate::views::{ApiKeyView, Page};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateOrgKeyRequest {
    /// A label to tell keys apart.
    pub name: String,
    /// At least one of `access:introspect`, `listings:write`, `verifications:write`, `read`;
    /// or `agent` alone: the provider's agent on the machines of `listing_ids`.
    pub scopes: Vec<String>,
    /// An `agent` key's listings (1 to 100 of the organisation's); no other key has any.
    #[serde(default)]
    pub listing_ids: Vec<Uuid>,
}

/// A new organisation key. `key` is shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedOrgKeyView {
    pub id: Uuid,
    pub name: String,
    pub key: String,
    pub prefix: String,
    pub scopes: Vec<String>,
    /// The listings an `agent` key is bound to.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub listing_ids: Vec<Uuid>,
    pub created_at: DateTime<Utc>,
}

/// Create an organisation API key with scopes (admins, signed in: a key never makes a key).
/// It acts for this organisation only, and only within its scopes: an `access:introspect`
/// key, the one to put on a rented machine, can do nothing but introspect.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "create_org_api_key", 
    tag = "organisations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    request_body = CreateOrgKeyRequest,
    responses(
        (status = 201, description = "Created; the key is shown this once", body = CreatedOrgKeyView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, ValidationFailed)>,
    )
)]
#[post("/orgs/{id}/api-keys")]
pub async fn create(
    app: web::Data<App>,
    access: InOrg<Admin>,
    Json(body): Json<CreateOrgKeyRequest>,
) -> Result<HttpResponse, ApiError> {
    let created = app
        .create_org_key(
            access.caller,
            access.org_id,
            &body.name,
            &body.scopes,
            &body.listing_ids,
        )
        .await?;
    let scopes = created
        .key
        .scopes
        .iter()
        .flatten()
        .map(|s| s.as_str().to_owned())
        .collect();
    Ok(HttpResponse::Created().json(CreatedOrgKeyView {
        id: created.key.id.as_uuid(),
        name: created.key.name,
        key: created.secret,
        prefix: created.key.prefix,
        scopes,
        listing_ids: created.listing_ids,
        created_at: created.key.created_at,
    }))
}

/// The organisation's keys that are not revoked (never the keys themselves).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_org_api_keys", 
    tag = "organisations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    responses(
        (status = 200, description = "The keys", body = Page<ApiKeyView>),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[get("/orgs/{id}/api-keys")]
pub async fn list(app: web::Data<App>, access: InOrg<Admin>) -> Result<HttpResponse, ApiError> {
    let keys = app.org_keys(access.caller, access.org_id).await?;
    Ok(HttpResponse::Ok().json(Page::all(keys.into_iter().map(ApiKeyView::from).collect())))
}

/// Revoke an organisation key: it stops working at once.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "revoke_org_api_key", 
    tag = "organisations",
    security(("bearer" = [])),
    params(
        ("id" = Uuid, Path, description = "The organisation's id"),
        ("key_id" = Uuid, Path, description = "The key's id"),
    ),
    responses(
        (status = 204, description = "Revoked"),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[delete("/orgs/{id}/api-keys/{key_id}")]
pub async fn revoke(
    app: web::Data<App>,
    access: InOrg<Admin>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (_, key) = path.into_inner();
    app.revoke_org_key(access.caller, access.org_id, key.into())
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
