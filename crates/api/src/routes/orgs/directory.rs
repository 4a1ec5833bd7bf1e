use actix_web::{HttpResponse, get, web};
use app::App;
use chrono::{DateTime, Utc};
use domain::OrgId;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{InvalidParameter, ValidationFailed};
use crate::extract::Query;
use crate::views::{Page, cursor_after};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct DirectoryQuery {
    /// `next_cursor` of the previous page.
    pub cursor: Option<Uuid>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<u64>,
}

/// An organisation of the public directory.
#[derive(Debug, Serialize, ToSchema)]
pub struct PublicOrgView {
    pub id: Uuid,
    pub name: String,
    /// Its active listings.
    pub listings: u64,
    /// Those of them that carry the verified badge now.
    pub verified_listings: u64,
    /// Its signed report: `GET /v1/orgs/{id}/report`.
    pub report: String,
    #[serde(serialize_with = "crate::rfc3339::write")]
    pub created_at: DateTime<Utc>,
}

impl From<app::identity::orgs::PublicOrg> for PublicOrgView {
    fn from(p: app::identity::orgs::PublicOrg) -> Self {
        let id = p.org.id.as_uuid();
        Self {
            id,
            name: p.org.name,
            listings: p.listings,
            verified_listings: p.verified_listings,
            report: format!("/v1/orgs/{id}/report"),
            created_at: p.org.created_at,
        }
    }
}

/// The public directory of providers: organisations with at least one active listing, by
/// name, a page at a time. Public. (`GET /v1/orgs` is the caller's own organisations.)
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_organizations",
    tag = "organisations",
    params(DirectoryQuery),
    responses(
        (status = 200, description = "A page of organisations", body = Page<PublicOrgView>),
        Problems<(InvalidParameter, ValidationFailed)>,
    )
)]
#[get("/organizations")]
pub async fn directory(
    app: web::Data<App>,
    query: Query<DirectoryQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = app::market::listings::page_limit(query.limit).map_err(app::AppError::from)?;
    let orgs = app
        .public_orgs(query.cursor.map(OrgId::from_uuid), limit)
        .await?;
    let next_cursor = cursor_after(&orgs, limit, |o| o.org.id.as_uuid().to_string());
    Ok(HttpResponse::Ok().json(Page {
        items: orgs.into_iter().map(PublicOrgView::from).collect(),
        next_cursor,
    }))
}
