//! Webhooks: users and organisations register endpoints and are told of events as they
//! happen, following the Standard Webhooks convention (<https://www.standardwebhooks.com>):
//! each request carries `webhook-id` (the event's id, the same on every attempt),
//! `webhook-timestamp` (the attempt's time, Unix seconds) and `webhook-signature`
//! (`v1,` and the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` under the endpoint's
//! secret; two, space-separated, for a while after a rotation). The body is
//! `{"type", "timestamp", "data"}`: the event's type and time, and ids and states — never a
//! secret or an engine's address.
//!
//! Events are written to an outbox in the transaction of the change they tell of (see
//! `store::operations::webhooks`); workers fan them out and send them through the outbound rules, at
//! least once, retried on `webhook_retry_schedule_secs`. An endpoint whose deliveries have
//! all failed for `webhook_disable_after_secs` is disabled and its owners are told.

use std::time::{Duration as StdDuration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Duration, Utc};
use domain::webhook;
use domain::{OrgId, Role, ValidationError};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use store::{AttemptOutcome, DeliveryClaim, WebhookEndpointRecord, WebhookOwner};
use uuid::Uuid;

use crate::identity::audit::action;
use crate::sealed::Place;
use crate::{App, AppError, Caller, Credential};

/// What a registered endpoint's secret starts with (Standard Webhooks' convention).
const SECRET_PREFIX: &str = "whsec_";
/// The most of a receiver's answer kept with an attempt, bytes.
const ANSWER_KEPT: usize = 512;
/// Deliveries one worker sends at once.
pub const CLAIMS_PER_PASS: usize = 32;
/// Events fanned out per pass.
const FAN_OUT_PER_PASS: u64 = 200;
/// How long delivered and failed events are kept (with their attempts) for the owners to see.
const KEPT_FOR_DAYS: i64 = 30;

/// A registered endpoint as its owners see it (never its secret).
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    pub id: Uuid,
    pub url: String,
    pub events: Vec<String>,
    pub enabled: bool,
    /// Since when every attempt has failed.
    pub failing_since: Option<DateTime<Utc>>,
    pub disabled_at: Option<DateTime<Utc>>,
    pub disabled_reason: Option<String>,
    /// Until when deliveries are signed with the secret the last rotation replaced, too.
    pub previous_secret_until: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl From<WebhookEndpointRecord> for Endpoint {
    fn from(r: WebhookEndpointRecord) -> Self {
        Self {
            id: r.id,
            url: r.url,
            events: r.events.split(' ').map(str::to_owned).collect(),
            enabled: r.enabled,
            failing_since: r.failing_since,
            disabled_at: r.disabled_at,
            disabled_reason: r.disabled_reason,
            previous_secret_until: r.previous_secret_until,
            created_at: r.created_at,
        }
    }
}

/// An endpoint with its secret, shown this once (at registration and at each rotation).
/// Its `Debug` never prints the secret.
#[derive(Clone)]
pub struct WithSecret {
    pub endpoint: Endpoint,
    pub secret: String,
}

impl std::fmt::Debug for WithSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WithSecret")
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

/// One delivery of an event to an endpoint, with its attempts.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub id: Uuid,
    /// The event's id: the `webhook-id` of every attempt.
    pub event_id: Uuid,
    pub event_type: String,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub attempts: Vec<Attempt>,
}

/// One attempt and the receiver's answer.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub at: DateTime<Utc>,
    pub status_code: Option<i32>,
    /// The start of the answer's body (at most 512 bytes).
    pub answer: Option<String>,
    /// Why there was no answer.
    pub error: Option<String>,
    pub duration_ms: i64,
}

/// The Standard Webhooks signature of `body` sent as `id` at `timestamp` under `secret`
/// (`whsec_` and base64 of the key): `v1,` and the base64 HMAC-SHA256 of
/// `{id}.{timestamp}.{body}`.
pub fn signature(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String, AppError> {
    let key = STANDARD
        .decode(secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret))
        .map_err(|_| AppError::Internal("a stored webhook secret is not base64".into()))?;
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key);
    let mut context = ring::hmac::Context::with_key(&key);
    context.update(id.as_bytes());
    context.update(b".");
    context.update(timestamp.to_string().as_bytes());
    context.update(b".");
    context.update(body);
    Ok(format!("v1,{}", STANDARD.encode(context.sign().as_ref())))
}

/// A new signing secret: `whsec_` and 32 random bytes, base64.
fn new_secret() -> Result<String, AppError> {
    Ok(format!(
        "{SECRET_PREFIX}{}",
        STANDARD.encode(crate::secrets::random_bytes::<32>()?)
    ))
}

/// The body of a delivery: `{"type", "timestamp", "data"}`.
pub fn payload(kind: &str, occurred_at: DateTime<Utc>, data: &str) -> Vec<u8> {
    let data: serde_json::Value =
        serde_json::from_str(data).unwrap_or_else(|_| serde_json::json!({}));
    serde_json::json!({
        "type": kind,
        "timestamp": occurred_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        "data": data,
    })
    .to_string()
    .into_bytes()
}

/// The start of a receiver's answer as kept: at most [`ANSWER_KEPT`] bytes, cut at a
/// character, without control characters.
fn kept_answer(body: &[u8]) -> Option<String> {
    if body.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(&body[..body.len().min(ANSWER_KEPT + 4)]);
    let mut kept = String::new();
    for c in text.chars() {
        if kept.len() + c.len_utf8() > ANSWER_KEPT {
            break;
        }
        kept.push(if c.is_control() && c != '\n' { ' ' } else { c });
    }
    Some(kept)
}

/// The client webhooks are sent with: the outbound rules (no redirects, every address
/// checked at each connection, internal ones only with `webhook_allow_private`).
pub(crate) fn client(allow_private: bool) -> Result<reqwest::Client, AppError> {
    outbound::client_builder(outbound::Policy::guarded(allow_private))
        .connect_timeout(StdDuration::from_secs(10))
        .pool_idle_timeout(StdDuration::from_secs(2))
        .user_agent(concat!("gpumarket-webhooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| AppError::Internal(format!("the webhooks' HTTP client: {e}")))
}

impl App {
    fn webhook_policy(&self) -> outbound::Policy {
        outbound::Policy::guarded(self.config().webhooks.webhook_allow_private)
    }

    /// Whose endpoints `caller` manages here: their own (`org` = `None`; a person, signed in
    /// or by their own key — an organisation's key acts for its organisation only), or an
    /// organisation's (its admins).
    async fn webhook_owner(
        &self,
        caller: Caller,
        org: Option<OrgId>,
    ) -> Result<WebhookOwner, AppError> {
        match org {
            Some(org) => {
                if matches!(caller.via, Credential::OrgKey { .. }) {
                    return Err(AppError::Forbidden(
                        "an organisation's webhooks are managed by its admins, not by an API key \
                         of it"
                            .into(),
                    ));
                }
                self.require_role(caller, org, Role::Admin).await?;
                Ok(WebhookOwner::Org(org.as_uuid()))
            }
            None => {
                if matches!(caller.via, Credential::OrgKey { .. }) {
                    return Err(AppError::Forbidden(
                        "an organisation's API key acts for its organisation: use \
                         /v1/orgs/{id}/webhook-endpoints"
                            .into(),
                    ));
                }
                Ok(WebhookOwner::User(caller.user_id.as_uuid()))
            }
        }
    }

    async fn owned_endpoint(
        &self,
        owner: WebhookOwner,
        id: Uuid,
    ) -> Result<WebhookEndpointRecord, AppError> {
        self.db()
            .webhook_endpoint(owner, id)
            .await?
            .ok_or(AppError::NotFound("webhook endpoint"))
    }

    /// Registers an endpoint for `events` (`*` for every type its owner can hear of); its
    /// secret is returned this once. The URL must be one the platform may connect to.
    pub async fn create_webhook_endpoint(
        &self,
        caller: Caller,
        org: Option<OrgId>,
        url: &str,
        events: &[String],
    ) -> Result<WithSecret, AppError> {
        let owner = self.webhook_owner(caller, org).await?;
        // An endpoint outlives sessions, and makes the platform send requests: an account
        // that has not confirmed its address registers none.
        self.require_verified_email(caller).await?;
        let url = url.trim();
        if url.chars().count() > webhook::MAX_URL_CHARS {
            return Err(ValidationError::new(
                "url",
                format!("at most {} characters", webhook::MAX_URL_CHARS),
            )
            .into());
        }
        outbound::check_resolved(url, self.webhook_policy())
            .await
            .map_err(|refused| ValidationError::new("url", refused.to_string()))?;
        let kinds = webhook::subscription(events, matches!(owner, WebhookOwner::User(_)))?;
        let id = Uuid::now_v7();
        let secret = new_secret()?;
        let (owner_user_id, owner_org_id) = match owner {
            WebhookOwner::User(user) => (Some(user), None),
            WebhookOwner::Org(org) => (None, Some(org)),
        };
        let record = WebhookEndpointRecord {
            id,
            owner_user_id,
            owner_org_id,
            url: url.to_owned(),
            events: kinds
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            secret: self.inner.sealer.seal(Place::WebhookSecret(id), &secret)?,
            previous_secret: None,
            previous_secret_until: None,
            enabled: true,
            failing_since: None,
            disabled_at: None,
            disabled_reason: None,
            created_by: caller.user_id.as_uuid(),
            created_at: Utc::now(),
            timeout_streak: 0,
        };
        let most = self.config().webhooks.webhook_endpoints_per_owner;
        let audit = org_audit(
            caller,
            org,
            action::ENDPOINT_CREATED,
            id,
            // Where it sends, not its whole URL: a path often carries a receiver's secret.
            json!({"origin": origin_of(&record.url), "events": record.events}),
        );
        if !self
            .db()
            .insert_webhook_endpoint(record.clone(), u64::from(most), audit.as_ref())
            .await?
        {
            return Err(AppError::WebhookConflict(format!(
                "at most {most} webhook endpoints each (webhook_endpoints_per_owner): delete one first"
            )));
        }
        Ok(WithSecret {
            endpoint: record.into(),
            secret,
        })
    }

    /// The caller's (or the organisation's) endpoints, oldest first.
    pub async fn webhook_endpoints(
        &self,
        caller: Caller,
        org: Option<OrgId>,
    ) -> Result<Vec<Endpoint>, AppError> {
        let owner = self.webhook_owner(caller, org).await?;
        Ok(self
            .db()
            .webhook_endpoints_of(owner)
            .await?
            .into_iter()
            .map(Endpoint::from)
            .collect())
    }

    /// Deletes an endpoint with its deliveries: nothing more is sent to it.
    pub async fn delete_webhook_endpoint(
        &self,
        caller: Caller,
        org: Option<OrgId>,
        id: Uuid,
    ) -> Result<(), AppError> {
        let owner = self.webhook_owner(caller, org).await?;
        let audit = org_audit(caller, org, action::ENDPOINT_DELETED, id, json!({}));
        if !self
            .db()
            .delete_webhook_endpoint(owner, id, audit.as_ref())
            .await?
        {
            return Err(AppError::NotFound("webhook endpoint"));
        }
        Ok(())
    }

    /// Gives an endpoint a new secret, returned this once. Deliveries are signed with the
    /// old one too for `webhook_secret_overlap_secs`, so the receiver can switch over.
    pub async fn rotate_webhook_secret(
        &self,
        caller: Caller,
        org: Option<OrgId>,
        id: Uuid,
    ) -> Result<WithSecret, AppError> {
        let owner = self.webhook_owner(caller, org).await?;
        let record = self.owned_endpoint(owner, id).await?;
        let sealer = &self.inner.sealer;
        let old = sealer.open(Place::WebhookSecret(id), &record.secret)?;
        let secret = new_secret()?;
        let until = Utc::now()
            + Duration::seconds(self.config().webhooks.webhook_secret_overlap_secs as i64);
        let rotated = self
            .db()
            .rotate_webhook_secret(
                id,
                &record.secret,
                (
                    &sealer.seal(Place::WebhookSecret(id), &secret)?,
                    &sealer.seal(Place::WebhookPreviousSecret(id), old.expose_secret())?,
                ),
                until,
                org_audit(caller, org, action::ENDPOINT_SECRET_ROTATED, id, json!({})).as_ref(),
            )
            .await?;
        if !rotated {
            return Err(AppError::WebhookConflict(
                "the secret was rotated at the same time by another request: try again".into(),
            ));
        }
        Ok(WithSecret {
            endpoint: self.owned_endpoint(owner, id).await?.into(),
            secret,
        })
    }

    /// Sends an endpoint a `webhook.test` event (delivered and retried like any other);
    /// the event's id. A disabled endpoint is enabled again first: testing is how an owner
    /// checks a receiver they fixed.
    pub async fn test_webhook_endpoint(
        &self,
        caller: Caller,
        org: Option<OrgId>,
        id: Uuid,
    ) -> Result<Uuid, AppError> {
        let owner = self.webhook_owner(caller, org).await?;
        let record = self.owned_endpoint(owner, id).await?;
        if !record.enabled {
            let audit = org_audit(
                caller,
                org,
                action::ENDPOINT_ENABLED,
                id,
                json!({"by_test": true}),
            );
            self.db()
                .enable_webhook_endpoint(id, audit.as_ref())
                .await?;
        }
        let now = Utc::now();
        Ok(self.db().emit_test_event(id, now).await?)
    }

    /// Enables an endpoint that was disabled: its pending deliveries resume.
    pub async fn enable_webhook_endpoint(
        &self,
        caller: Caller,
        org: Option<OrgId>,
        id: Uuid,
    ) -> Result<Endpoint, AppError> {
        let owner = self.webhook_owner(caller, org).await?;
        let record = self.owned_endpoint(owner, id).await?;
        // Enabling an enabled endpoint changes nothing the trail records.
        let audit = org_audit(caller, org, action::ENDPOINT_ENABLED, id, json!({}))
            .filter(|_| !record.enabled);
        self.db()
            .enable_webhook_endpoint(id, audit.as_ref())
            .await?;
        Ok(self.owned_endpoint(owner, id).await?.into())
    }

    /// An endpoint's deliveries, newest first, with their attempts.
    pub async fn webhook_deliveries(
        &self,
        caller: Caller,
        org: Option<OrgId>,
        id: Uuid,
        (before, limit): (Option<Uuid>, u64),
    ) -> Result<Vec<Delivery>, AppError> {
        let owner = self.webhook_owner(caller, org).await?;
        self.owned_endpoint(owner, id).await?;
        Ok(self
            .db()
            .webhook_deliveries(id, before, limit)
            .await?
            .into_iter()
            .map(|d| Delivery {
                id: d.id,
                event_id: d.event_id,
                event_type: d.kind,
                status: d.status,
                next_attempt_at: d.next_attempt_at,
                created_at: d.created_at,
                delivered_at: d.delivered_at,
                attempts: d
                    .attempts
                    .into_iter()
                    .map(|a| Attempt {
                        at: a.attempted_at,
                        status_code: a.status_code,
                        answer: a.answer,
                        error: a.error,
                        duration_ms: a.duration_ms,
                    })
                    .collect(),
            })
            .collect())
    }

    /// Sends one delivery again now, from the start of the retry schedule, under the same
    /// `webhook-id` (a receiver that already has it can tell).
    pub async fn redeliver_webhook(
        &self,
        caller: Caller,
        org: Option<OrgId>,
        id: Uuid,
        delivery: Uuid,
    ) -> Result<(), AppError> {
        let owner = self.webhook_owner(caller, org).await?;
        self.owned_endpoint(owner, id).await?;
        if !self
            .db()
            .redeliver_webhook(id, delivery, Utc::now())
            .await?
        {
            return Err(AppError::NotFound("delivery"));
        }
        Ok(())
    }

    /// What a webhook worker sends next: new events fanned out to their endpoints, then up
    /// to `room` deliveries that are due, claimed for this worker (each for its attempt's
    /// timeout and 5 s).
    pub async fn due_webhooks(&self, room: usize) -> Result<Vec<DeliveryClaim>, AppError> {
        while self
            .db()
            .fan_out_webhook_events(Utc::now(), FAN_OUT_PER_PASS)
            .await? as u64
            == FAN_OUT_PER_PASS
        {}
        let settings = &self.config().webhooks;
        // A claim outlives its attempt (bounded by its timeout): another worker tries again
        // only once it is over. Taken now, after the fan-out, so the lease is whole.
        let lease = |endpoint: &WebhookEndpointRecord| {
            Duration::milliseconds(settings.attempt_timeout(endpoint) as i64) + Duration::seconds(5)
        };
        Ok(self
            .db()
            .claim_webhook_deliveries(Utc::now(), lease, room as u64, settings.claim_budget())
            .await?)
    }

    /// Deletes what has been delivered (or given up) for 30 days; how many events.
    pub async fn prune_webhooks(&self) -> Result<u64, AppError> {
        let before = Utc::now() - Duration::days(KEPT_FOR_DAYS);
        let mut pruned = 0;
        loop {
            let gone = self.db().prune_webhook_events(before).await?;
            pruned += gone;
            if gone < 1000 {
                return Ok(pruned);
            }
        }
    }

    /// Sends what is due now and waits for every attempt: one pass, for tests and tools
    /// (the worker keeps sending while it claims). How many attempts.
    pub async fn dispatch_webhooks(&self) -> Result<usize, AppError> {
        let claims = self.due_webhooks(CLAIMS_PER_PASS).await?;
        let attempts = claims.len();
        for claim in claims {
            self.deliver_webhook(claim).await?;
        }
        Ok(attempts)
    }

    /// Sends one claimed delivery and records how it went.
    pub async fn deliver_webhook(&self, claim: DeliveryClaim) -> Result<(), AppError> {
        let endpoint = &claim.endpoint;
        let timeout = StdDuration::from_millis(self.config().webhooks.attempt_timeout(endpoint));
        let sealer = &self.inner.sealer;
        let now = Utc::now();
        let id = claim.event.id.to_string();
        let timestamp = now.timestamp();
        let body = payload(
            &claim.event.kind,
            claim.event.occurred_at,
            &claim.event.data,
        );
        let mut signatures = vec![signature(
            sealer
                .open(Place::WebhookSecret(endpoint.id), &endpoint.secret)?
                .expose_secret(),
            &id,
            timestamp,
            &body,
        )?];
        if let (Some(previous), Some(until)) =
            (&endpoint.previous_secret, endpoint.previous_secret_until)
            && until > now
        {
            signatures.push(signature(
                sealer
                    .open(Place::WebhookPreviousSecret(endpoint.id), previous)?
                    .expose_secret(),
                &id,
                timestamp,
                &body,
            )?);
        }
        let started = Instant::now();
        let outcome = match outbound::check_url(&endpoint.url, self.webhook_policy()) {
            Err(refused) => AttemptOutcome {
                status_code: None,
                answer: None,
                error: Some(format!("the URL {refused}")),
                duration_ms: 0,
                delivered: false,
                timed_out: false,
            },
            Ok(url) => {
                let request = self
                    .inner
                    .operations
                    .webhook_client
                    .post(url)
                    .header("content-type", "application/json")
                    .header("webhook-id", &id)
                    .header("webhook-timestamp", timestamp.to_string())
                    .header("webhook-signature", signatures.join(" "))
                    .body(body)
                    .timeout(timeout);
                let exchange = async {
                    let mut response = request.send().await?;
                    let status = response.status();
                    let body = bench::bounds::read_body(&mut response, bench::bounds::SMALL_BODY)
                        .await?
                        .unwrap_or_default();
                    Ok::<_, reqwest::Error>((status, body))
                };
                let result = tokio::time::timeout(timeout, exchange).await;
                let duration_ms = started.elapsed().as_millis() as i64;
                match result {
                    Ok(Ok((status, answer))) => AttemptOutcome {
                        status_code: Some(i32::from(status.as_u16())),
                        answer: kept_answer(&answer),
                        error: None,
                        duration_ms,
                        delivered: status.is_success(),
                        timed_out: false,
                    },
                    Ok(Err(e)) => AttemptOutcome {
                        status_code: None,
                        answer: None,
                        error: Some(send_error(&e)),
                        duration_ms,
                        delivered: false,
                        timed_out: e.is_timeout(),
                    },
                    Err(_) => AttemptOutcome {
                        status_code: None,
                        answer: None,
                        error: Some(format!("no answer within {} ms", timeout.as_millis())),
                        duration_ms,
                        delivered: false,
                        timed_out: true,
                    },
                }
            }
        };
        let settings = &self.config().webhooks;
        let attempts = u32::try_from(claim.attempts + 1).unwrap_or(u32::MAX);
        let retry_at = (!outcome.delivered)
            .then(|| webhook::next_attempt(now, attempts, &settings.webhook_retry_schedule_secs))
            .flatten();
        let streak = Duration::seconds(settings.webhook_disable_after_secs as i64);
        let disabled = self
            .db()
            .record_webhook_attempt(&claim, outcome, (now, retry_at), streak)
            .await?;
        if let Some(endpoint) = disabled {
            self.tell_disabled(&endpoint).await;
        }
        Ok(())
    }

    /// Tells an endpoint's owners it was disabled: the person, or the organisation's admins
    /// and owners, by mail when a mail server is configured; always in the log and in the
    /// endpoint's `disabled_reason`.
    async fn tell_disabled(&self, endpoint: &WebhookEndpointRecord) {
        tracing::warn!(endpoint = %endpoint.id, "a webhook endpoint was disabled: every delivery failed for webhook_disable_after_secs");
        let recipients: Vec<String> = match (endpoint.owner_user_id, endpoint.owner_org_id) {
            (_, Some(org)) => match self.db().members_of(OrgId::from(org)).await {
                Ok(members) => members
                    .into_iter()
                    .filter(|m| m.role.satisfies(Role::Admin))
                    .map(|m| m.email)
                    .collect(),
                Err(_) => Vec::new(),
            },
            (Some(user), None) => self
                .db()
                .user_by_id(user.into())
                .await
                .ok()
                .flatten()
                .map(|u| vec![u.email])
                .unwrap_or_default(),
            (None, None) => Vec::new(),
        };
        let after = self.config().webhooks.webhook_disable_after_secs;
        let period = if after >= 3600 {
            format!("{} hours", after / 3600)
        } else {
            format!("{} minutes", after.div_ceil(60))
        };
        let body = format!(
            "Every delivery to your webhook endpoint {} failed for {period}, so it was \
             disabled; events are no longer sent to it, and events that happen while it is \
             disabled are not kept for it.\n\nIts deliveries and the answers they got are \
             listed at GET …/webhook-endpoints/{}/deliveries. Once the receiver works again, \
             send it a test event (POST …/webhook-endpoints/{}/test): that enables it again, \
             and the deliveries still pending resume.\n",
            endpoint.id, endpoint.id, endpoint.id
        );
        for to in recipients {
            if let Err(e) = self
                .mailer()
                .send(
                    &to,
                    "Your gpumarket webhook endpoint was disabled",
                    body.clone(),
                )
                .await
            {
                tracing::warn!(error = %e, "telling an owner of a disabled webhook endpoint failed");
            }
        }
    }
}

/// What went wrong sending, in our words (never the receiver's).
fn send_error(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "no answer in time".into()
    } else if e.is_connect() {
        // The outbound rules refuse internal addresses at connection time too.
        "could not connect (refused, unreachable, or an address the platform does not connect to)"
            .into()
    } else {
        "the exchange failed before a complete answer".into()
    }
}

/// `scheme://host[:port]` of a URL.
fn origin_of(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    url[after_scheme..]
        .find('/')
        .map_or(url, |end| &url[..after_scheme + end])
}

/// The audit trail's row of a change to an organisation's endpoint (none for a person's own).
fn org_audit(
    caller: Caller,
    org: Option<OrgId>,
    what: &'static str,
    id: Uuid,
    details: Value,
) -> Option<store::Audit> {
    org.map(|org| caller.audit(org, what, id, details))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_webhook_secret_never_prints() {
        let shown = WithSecret {
            endpoint: Endpoint {
                id: Uuid::nil(),
                url: "https://hooks.example.com/in".into(),
                events: vec!["booking.confirmed".into()],
                enabled: true,
                failing_since: None,
                disabled_at: None,
                disabled_reason: None,
                previous_secret_until: None,
                created_at: Utc::now(),
            },
            secret: "whsec_the_secret_part".into(),
        };
        let shown = format!("{shown:?}");
        assert!(
            !shown.contains("the_secret_part") && shown.contains("hooks.example.com"),
            "{shown}"
        );
    }

    #[test]
    fn the_signature_is_standard_webhooks() {
        // The example of the Standard Webhooks specification's reference libraries.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body).unwrap(),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn a_kept_answer_is_bounded_and_printable() {
        assert_eq!(kept_answer(b""), None);
        assert_eq!(kept_answer(b"ok\x07").as_deref(), Some("ok "));
        let long = "é".repeat(1000);
        let kept = kept_answer(long.as_bytes()).unwrap();
        assert!(kept.len() <= ANSWER_KEPT && kept.chars().all(|c| c == 'é'));
    }

    #[test]
    fn a_payload_carries_type_time_and_data() {
        let at = DateTime::parse_from_rfc3339("2026-12-04T01:02:03Z")
            .unwrap()
            .with_timezone(&Utc);
        let body: serde_json::Value =
            serde_json::from_slice(&payload("booking.confirmed", at, r#"{"booking_id":"b"}"#))
                .unwrap();
        assert_eq!(body["type"], "booking.confirmed");
        assert_eq!(body["timestamp"], "2026-12-04T01:02:03.000Z");
        assert_eq!(body["data"]["booking_id"], "b");
    }
}
