//! An organisation's audit trail: who changed its listings and prices, keys, members, webhook
//! endpoints and maintenance windows, when and from which network.

use actix_web::{HttpResponse, get, web};
use app::App;
use app::identity::audit::AuditItem;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    Forbidden, InvalidParameter, InvalidToken, NotFound, Unauthenticated, ValidationFailed,
};
use crate::extract::{Admin, InOrg, Query};
use crate::views::{Page, cursor_after};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct AuditQuery {
    /// `next_cursor` of the previous page.
    pub cursor: Option<Uuid>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<u64>,
}

/// Who made a change.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuditActorView {
    pub user_id: Uuid,
    /// Their name now: `erased account` once their account is erased.
    pub name: Option<String>,
    /// With what: `session`, `api_key` (their own) or `org_key` (a key they made).
    pub via: String,
    /// The network the change came from (an IPv4 address, an IPv6 address's prefix); null
    /// once their account is erased.
    pub network: Option<String>,
}

/// One change of the organisation's.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuditEntryView {
    pub id: Uuid,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub at: DateTime<Utc>,
    pub actor: AuditActorView,
    /// `listing.created`, `listing.updated` (with `changed`, and the price `from` and `to`),
    /// `listing.delisted`, `api_key.created`, `api_key.revoked`, `member.invited`,
    /// `member.joined`, `member.role_changed` (`from`, `to`), `member.removed`,
    /// `webhook_endpoint.created`, `webhook_endpoint.deleted`,
    /// `webhook_endpoint.secret_rotated`, `webhook_endpoint.enabled`,
    /// `maintenance_window.created`, `maintenance_window.deleted`.
    pub action: String,
    /// What it changed: a listing's, key's, member's, endpoint's or window's id.
    pub target_id: Option<String>,
    #[schema(value_type = Object)]
    pub details: serde_json::Value,
}

impl From<AuditItem> for AuditEntryView {
    fn from(item: AuditItem) -> Self {
        Self {
            id: item.id,
            at: item.at,
            actor: AuditActorView {
                user_id: item.actor_id.as_uuid(),
                name: item.actor_name,
                via: item.via,
                network: item.network,
            },
            action: item.action,
            target_id: item.target_id,
            details: item.details,
        }
    }
}

/// The organisation's audit trail, newest first (admins): each change written with the change
/// itself, kept a year.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "org_audit",
    tag = "organisations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id"), AuditQuery),
    responses(
        (status = 200, description = "A page of the trail", body = Page<AuditEntryView>),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/orgs/{id}/audit")]
pub async fn audit(
    app: web::Data<App>,
    access: InOrg<Admin>,
    query: Query<AuditQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = app::market::listings::page_limit(query.limit).map_err(app::AppError::from)?;
    let items = app
        .org_audit(access.caller, access.org_id, query.cursor, limit)
        .await?;
    let next_cursor = cursor_after(&items, limit, |i| i.id.to_string());
    Ok(HttpResponse::Ok().json(Page {
        items: items.into_iter().map(AuditEntryView::from).collect(),
        next_cursor,
    }))
}
