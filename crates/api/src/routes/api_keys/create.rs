use actix_web::{HttpResponse, post, web};
use app::App;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{EmailUnverified, InvalidToken, Unauthenticated, ValidationFailed};
use crate::extract::{Auth, Json};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateApiKeyRequest {
    /// A label to tell keys apart.
    pub name: String,
}

/// A new key. `key` is shown this once and cannot be retrieved again.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedApiKeyView {
    pub id: Uuid,
    pub name: String,
    pub key: String,
    pub prefix: String,
    pub created_at: DateTime<Utc>,
}

/// Create an API key.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "create_api_key", 
    tag = "accounts",
    security(("bearer" = [])),
    request_body = CreateApiKeyRequest,
    responses(
        (status = 201, description = "Created; the key is shown this once", body = CreatedApiKeyView),
        Problems<(InvalidToken, Unauthenticated, EmailUnverified, ValidationFailed)>,
    )
)]
#[post("/api-keys")]
pub async fn create(
    app: web::Data<App>,
    Auth(caller): Auth,
    Json(body): Json<CreateApiKeyRequest>,
) -> Result<HttpResponse, ApiError> {
    let created = app.create_api_key(caller, &body.name).await?;
    Ok(HttpResponse::Created().json(CreatedApiKeyView {
        id: created.key.id.as_uuid(),
        name: created.key.name,
        key: created.secret,
        prefix: created.key.prefix,
        created_at: created.key.created_at,
    }))
}
