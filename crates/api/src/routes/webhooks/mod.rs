//! Webhook endpoints: a person's (`/v1/webhook-endpoints`, their bookings' events) and an
//! organisation's (`/v1/orgs/{id}/webhook-endpoints`, its admins; its listings', reports'
//! and bookings' events). The two sets of routes do the same things for their owner.

pub mod mine;
pub mod org;

use app::operations::webhooks::{Attempt, Delivery, Endpoint, WithSecret};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::error::ApiError;
use crate::views::{Page, cursor_after};

/// An endpoint to register.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewEndpointRequest {
    /// Where deliveries are POSTed: an `http://` or `https://` URL without credentials,
    /// query or fragment, on an address the platform may connect to (internal addresses
    /// only with `webhook_allow_private`).
    pub url: String,
    /// The event types to receive (`booking.confirmed`, ...), or `["*"]` for every type the
    /// owner can hear of (a person's endpoint: `booking.*` only).
    pub events: Vec<String>,
}

/// A registered endpoint (never its secret).
#[derive(Debug, Serialize, ToSchema)]
pub struct EndpointView {
    pub id: Uuid,
    pub url: String,
    pub events: Vec<String>,
    /// Disabled endpoints receive nothing (their deliveries wait); `POST …/{id}/test` or
    /// `…/{id}/enable` enables one again.
    pub enabled: bool,
    /// Since when every attempt has failed; after `webhook_disable_after_secs` (3 days by
    /// default) the endpoint is disabled and its owners are told.
    pub failing_since: Option<DateTime<Utc>>,
    pub disabled_at: Option<DateTime<Utc>>,
    pub disabled_reason: Option<String>,
    /// Until when deliveries are also signed with the secret the last rotation replaced.
    pub previous_secret_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl From<Endpoint> for EndpointView {
    fn from(e: Endpoint) -> Self {
        Self {
            id: e.id,
            url: e.url,
            events: e.events,
            enabled: e.enabled,
            failing_since: e.failing_since,
            disabled_at: e.disabled_at,
            disabled_reason: e.disabled_reason,
            previous_secret_until: e.previous_secret_until,
            created_at: e.created_at,
        }
    }
}

/// An endpoint with its signing secret, shown this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct EndpointWithSecretView {
    pub endpoint: EndpointView,
    /// `whsec_` and the base64 key: verify deliveries with it (any Standard Webhooks
    /// library does). Shown this once; rotate to get a new one.
    pub secret: String,
}

impl From<WithSecret> for EndpointWithSecretView {
    fn from(w: WithSecret) -> Self {
        Self {
            endpoint: w.endpoint.into(),
            secret: w.secret,
        }
    }
}

/// A test event queued for an endpoint.
#[derive(Debug, Serialize, ToSchema)]
pub struct TestEventView {
    /// The event's id: the delivery's `webhook-id`.
    pub event_id: Uuid,
}

/// One attempt of a delivery.
#[derive(Debug, Serialize, ToSchema)]
pub struct AttemptView {
    pub at: DateTime<Utc>,
    /// The receiver's HTTP status; null when no answer came.
    pub status_code: Option<i32>,
    /// The start of the receiver's answer (at most 512 bytes).
    pub answer: Option<String>,
    /// Why no answer came.
    pub error: Option<String>,
    pub duration_ms: i64,
}

impl From<Attempt> for AttemptView {
    fn from(a: Attempt) -> Self {
        Self {
            at: a.at,
            status_code: a.status_code,
            answer: a.answer,
            error: a.error,
            duration_ms: a.duration_ms,
        }
    }
}

/// One event's delivery to an endpoint.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryView {
    pub id: Uuid,
    /// The event's id: every attempt's `webhook-id`.
    pub event_id: Uuid,
    /// The event's type.
    #[serde(rename = "type")]
    pub event_type: String,
    /// `pending`, `delivered`, or `failed` (the retry schedule is spent).
    pub status: String,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    /// Oldest first.
    pub attempts: Vec<AttemptView>,
}

impl From<Delivery> for DeliveryView {
    fn from(d: Delivery) -> Self {
        Self {
            id: d.id,
            event_id: d.event_id,
            event_type: d.event_type,
            status: d.status,
            next_attempt_at: d.next_attempt_at,
            created_at: d.created_at,
            delivered_at: d.delivered_at,
            attempts: d.attempts.into_iter().map(AttemptView::from).collect(),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeliveryPageQuery {
    /// `next_cursor` of the previous page.
    pub cursor: Option<Uuid>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<u64>,
}

impl DeliveryPageQuery {
    fn limit(&self) -> Result<u64, ApiError> {
        app::market::listings::page_limit(self.limit).map_err(|e| app::AppError::from(e).into())
    }

    fn page(deliveries: Vec<Delivery>, limit: u64) -> Page<DeliveryView> {
        let next_cursor = cursor_after(&deliveries, limit, |d| d.id.to_string());
        Page {
            items: deliveries.into_iter().map(DeliveryView::from).collect(),
            next_cursor,
        }
    }
}
