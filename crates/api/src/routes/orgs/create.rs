use actix_web::{HttpResponse, post, web};
use app::App;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::error::{ApiError, Problem};
use crate::extract::{Auth, Json};
use crate::views::OrgView;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateOrgRequest {
    pub name: String,
}

/// Create an organisation; the caller becomes its owner.
#[utoipa::path(
    tag = "organisations",
    security(("bearer" = [])),
    request_body = CreateOrgRequest,
    responses(
        (status = 201, description = "Created", body = OrgView),
        (status = 401, description = "No or invalid credential", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid name", body = Problem, content_type = "application/problem+json"),
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
