//! A person's webhook endpoints: they hear of the person's own bookings (`booking.*`).

use actix_web::{HttpResponse, delete, get, post, web};
use app::App;
use uuid::Uuid;

use super::{
    DeliveryPageQuery, DeliveryView, EndpointView, EndpointWithSecretView, NewEndpointRequest,
    TestEventView,
};
use crate::error::problem::{
    EmailUnverified, Forbidden, InvalidToken, NotFound, RateLimited, Unauthenticated,
    ValidationFailed, WebhookEndpointConflict,
};
use crate::error::{ApiError, Problems};
use crate::extract::Query;
use crate::extract::{Auth, Json};
use crate::views::Page;

/// Register a webhook endpoint for your bookings' events (`booking.*`). Deliveries follow
/// Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature` headers,
/// signed with the secret returned here (this once).
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "create_webhook_endpoint",
    tag = "webhooks",
    security(("bearer" = [])),
    request_body = NewEndpointRequest,
    responses(
        (status = 201, description = "Registered; the secret is shown this once", body = EndpointWithSecretView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, EmailUnverified, WebhookEndpointConflict, ValidationFailed, RateLimited)>,
    )
)]
#[post("/webhook-endpoints")]
pub async fn create(
    app: web::Data<App>,
    Auth(caller): Auth,
    Json(body): Json<NewEndpointRequest>,
) -> Result<HttpResponse, ApiError> {
    let created = app
        .create_webhook_endpoint(caller, None, &body.url, &body.events)
        .await?;
    Ok(HttpResponse::Created().json(EndpointWithSecretView::from(created)))
}

/// Your webhook endpoints, oldest first (never their secrets).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_webhook_endpoints",
    tag = "webhooks",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Your endpoints", body = Page<EndpointView>),
        Problems<(InvalidToken, Unauthenticated, Forbidden)>,
    )
)]
#[get("/webhook-endpoints")]
pub async fn list(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    let endpoints = app.webhook_endpoints(caller, None).await?;
    Ok(HttpResponse::Ok().json(Page::all(
        endpoints.into_iter().map(EndpointView::from).collect(),
    )))
}

/// Delete one of your webhook endpoints, with its deliveries.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "delete_webhook_endpoint",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("endpoint_id" = Uuid, Path, description = "The endpoint's id")),
    responses(
        (status = 204, description = "Deleted"),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, RateLimited)>,
    )
)]
#[delete("/webhook-endpoints/{endpoint_id}")]
pub async fn remove(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    app.delete_webhook_endpoint(caller, None, id.into_inner())
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Rotate an endpoint's signing secret: the new one is returned this once; deliveries are
/// signed with the old one too for `webhook_secret_overlap_secs` (a day by default).
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "rotate_webhook_secret",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("endpoint_id" = Uuid, Path, description = "The endpoint's id")),
    responses(
        (status = 200, description = "Rotated; the new secret is shown this once", body = EndpointWithSecretView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, WebhookEndpointConflict, RateLimited)>,
    )
)]
#[post("/webhook-endpoints/{endpoint_id}/rotate-secret")]
pub async fn rotate(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let rotated = app
        .rotate_webhook_secret(caller, None, id.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(EndpointWithSecretView::from(rotated)))
}

/// Send an endpoint a `webhook.test` event, delivered and retried like any other (a
/// disabled endpoint is enabled again first).
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "test_webhook_endpoint",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("endpoint_id" = Uuid, Path, description = "The endpoint's id")),
    responses(
        (status = 202, description = "Queued", body = TestEventView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, RateLimited)>,
    )
)]
#[post("/webhook-endpoints/{endpoint_id}/test")]
pub async fn test(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let event_id = app
        .test_webhook_endpoint(caller, None, id.into_inner())
        .await?;
    Ok(HttpResponse::Accepted().json(TestEventView { event_id }))
}

/// Enable an endpoint that was disabled: its pending deliveries resume.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "enable_webhook_endpoint",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("endpoint_id" = Uuid, Path, description = "The endpoint's id")),
    responses(
        (status = 200, description = "Enabled", body = EndpointView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, RateLimited)>,
    )
)]
#[post("/webhook-endpoints/{endpoint_id}/enable")]
pub async fn enable(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let endpoint = app
        .enable_webhook_endpoint(caller, None, id.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(EndpointView::from(endpoint)))
}

/// An endpoint's deliveries, newest first, each with its attempts and the answers they got.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "list_webhook_deliveries",
    tag = "webhooks",
    security(("bearer" = [])),
    params(("endpoint_id" = Uuid, Path, description = "The endpoint's id"), DeliveryPageQuery),
    responses(
        (status = 200, description = "One page of deliveries", body = Page<DeliveryView>),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, ValidationFailed)>,
    )
)]
#[get("/webhook-endpoints/{endpoint_id}/deliveries")]
pub async fn deliveries(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
    query: Query<DeliveryPageQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = query.limit()?;
    let found = app
        .webhook_deliveries(caller, None, id.into_inner(), (query.cursor, limit))
        .await?;
    Ok(HttpResponse::Ok().json(DeliveryPageQuery::page(found, limit)))
}

/// Send one delivery again now, from the start of the retry schedule, under the same
/// `webhook-id`.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "redeliver_webhook",
    tag = "webhooks",
    security(("bearer" = [])),
    params(
        ("endpoint_id" = Uuid, Path, description = "The endpoint's id"),
        ("delivery_id" = Uuid, Path, description = "The delivery's id"),
    ),
    responses(
        (status = 202, description = "Queued"),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, RateLimited)>,
    )
)]
#[post("/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}/redeliver")]
pub async fn redeliver(
    app: web::Data<App>,
    Auth(caller): Auth,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (id, delivery) = path.into_inner();
    app.redeliver_webhook(caller, None, id, delivery).await?;
    Ok(HttpResponse::Accepted().finish())
}
