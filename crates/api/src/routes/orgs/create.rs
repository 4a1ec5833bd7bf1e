use actix_web::{HttpResponse, post, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{EmailUnverified, InvalidToken, Unauthenticated, ValidationFailed};
use crate::extract::{Auth, Json};
use crate::views::OrgView;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateOrgRequest {
    pub name: String,
}

/// Create an organisation; the caller becomes its owner.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "create_org", 
    tag = "organisations",
    security(("bearer" = [])),
    request_body = CreateOrgRequest,
    responses(
        (status = 201, description = "Created", body = OrgView),
        Problems<(InvalidToken, Unauthenticated, EmailUnverified, ValidationFailed)>,
    )
)]
#[post("/orgs")]
pub async fn create(
    app: web::Data<App>,
    Auth(caller): Auth,
    Json(body): Json<CreateOrgRequest>,
) -> Result<HttpResponse, ApiError> {
    let org = app.create_org(caller, &body.name).await?;
    Ok(HttpResponse::Created().json(OrgView::from(org)))
}
