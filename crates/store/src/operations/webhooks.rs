//! Webhooks: endpoints, deliveries and their attempts.
//!
//! A change that tells of itself writes its event to the outbox (`outbox.rs`) **inside its
//! own transaction**: the event exists exactly when the change does, so a crash between the
//! commit and the send loses nothing. Workers then fan each event out to the endpoints that
//! hear of it (one delivery per endpoint and event, made once however many workers race) and
//! claim due deliveries by moving their `next_attempt_at` a lease ahead (a claim re-checks
//! what it read, so two workers never send one attempt twice; a worker that dies mid-send
//! leaves the delivery to be claimed again when the lease runs out: at least once).

use chrono::{DateTime, Utc};
use domain::webhook::{Event, EventKind};
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict, Query};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

use crate::entities::{
    orgs, users, webhook_attempts, webhook_deliveries, webhook_endpoints, webhook_events,
};
use crate::{Db, StoreError};

pub type WebhookEndpointRecord = webhook_endpoints::Model;
pub type WebhookEventRecord = webhook_events::Model;
pub type WebhookAttemptRecord = webhook_attempts::Model;

/// Who an endpoint belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebhookOwner {
    User(Uuid),
    Org(Uuid),
}

/// A delivery's status as stored.
pub(crate) mod delivery_status {
    pub const PENDING: &str = "pending";
    pub const DELIVERED: &str = "delivered";
    pub const FAILED: &str = "failed";
}

/// Deletes the deliveries `which` selects, with their attempts.
async fn delete_deliveries(
    conn: &impl ConnectionTrait,
    which: sea_orm::sea_query::SimpleExpr,
) -> Result<(), StoreError> {
    let deliveries = Query::select()
        .column(webhook_deliveries::Column::Id)
        .from(webhook_deliveries::Entity)
        .and_where(which.clone())
        .to_owned();
    webhook_attempts::Entity::delete_many()
        .filter(webhook_attempts::Column::DeliveryId.in_subquery(deliveries))
        .exec(conn)
        .await?;
    webhook_deliveries::Entity::delete_many()
        .filter(which)
        .exec(conn)
        .await?;
    Ok(())
}

/// One delivery to send now, with what it sends and where.
#[derive(Debug, Clone)]
pub struct DeliveryClaim {
    pub delivery: Uuid,
    /// The lease this claim wrote (`next_attempt_at`): its attempt is recorded only while
    /// the delivery still holds it.
    pub lease_until: DateTime<Utc>,
    /// Attempts made before this one.
    pub attempts: i32,
    pub event: WebhookEventRecord,
    pub endpoint: WebhookEndpointRecord,
}

/// How many sends may be in flight at once (across every worker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimBudget {
    /// To one endpoint.
    pub per_endpoint: u64,
    /// To one owner's endpoints together.
    pub per_owner: u64,
    /// Of one owner's test events and redeliveries (apart from the rest).
    pub manual_per_owner: u64,
}

/// How an attempt ended.
#[derive(Debug, Clone)]
pub struct AttemptOutcome {
    pub status_code: Option<i32>,
    pub answer: Option<String>,
    pub error: Option<String>,
    pub duration_ms: i64,
    /// Whether the receiver took it (a 2xx answer).
    pub delivered: bool,
    /// No answer came within the attempt's timeout.
    pub timed_out: bool,
}

/// A delivery with its event and attempts, as its endpoint's owner sees it.
#[derive(Debug, Clone)]
pub struct DeliveryRecord {
    pub id: Uuid,
    pub event_id: Uuid,
    pub kind: String,
    pub status: String,
    pub attempts: Vec<WebhookAttemptRecord>,
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
}

fn owned_by(owner: WebhookOwner) -> Condition {
    match owner {
        WebhookOwner::User(user) => Condition::all()
            .add(webhook_endpoints::Column::OwnerUserId.eq(user))
            .add(webhook_endpoints::Column::OwnerOrgId.is_null()),
        WebhookOwner::Org(org) => {
            Condition::all().add(webhook_endpoints::Column::OwnerOrgId.eq(org))
        }
    }
}

/// Whether `endpoint` subscribes to `kind`.
fn subscribes(endpoint: &WebhookEndpointRecord, kind: &str) -> bool {
    endpoint.events.split(' ').any(|e| e == kind)
}

impl Db {
    /// Registers an endpoint unless its owner has `most` already; whether it did. The
    /// owner's row is locked first, so racing registrations are counted one after another.
    pub async fn insert_webhook_endpoint(
        &self,
        endpoint: WebhookEndpointRecord,
        most: u64,
        audit: Option<&crate::Audit>,
    ) -> Result<bool, StoreError> {
        use sea_orm::{ActiveModelTrait, PaginatorTrait};
        let owner = match (endpoint.owner_org_id, endpoint.owner_user_id) {
            (Some(org), _) => WebhookOwner::Org(org),
            (None, Some(user)) => WebhookOwner::User(user),
            (None, None) => return Err(StoreError::Corrupt("an endpoint without owner".into())),
        };
        let txn = self.write().await?;
        match owner {
            WebhookOwner::Org(org) => {
                orgs::Entity::update_many()
                    .col_expr(orgs::Column::Name, Expr::col(orgs::Column::Name))
                    .filter(orgs::Column::Id.eq(org))
                    .exec(&txn)
                    .await?;
            }
            WebhookOwner::User(user) => {
                users::Entity::update_many()
                    .col_expr(users::Column::Email, Expr::col(users::Column::Email))
                    .filter(users::Column::Id.eq(user))
                    .exec(&txn)
                    .await?;
            }
        }
        let count = webhook_endpoints::Entity::find()
            .filter(owned_by(owner))
            .count(&txn)
            .await?;
        if count >= most {
            return Ok(false);
        }
        webhook_endpoints::Entity::insert(
            webhook_endpoints::ActiveModel::from(endpoint).reset_all(),
        )
        .exec_without_returning(&txn)
        .await?;
        crate::identity::audit::record(&txn, audit).await?;
        txn.commit().await?;
        Ok(true)
    }

    /// `owner`'s endpoints, oldest first.
    pub async fn webhook_endpoints_of(
        &self,
        owner: WebhookOwner,
    ) -> Result<Vec<WebhookEndpointRecord>, StoreError> {
        Ok(webhook_endpoints::Entity::find()
            .filter(owned_by(owner))
            .order_by_asc(webhook_endpoints::Column::Id)
            .all(self.conn())
            .await?)
    }

    /// One of `owner`'s endpoints; `None` when it is not theirs (or does not exist).
    pub async fn webhook_endpoint(
        &self,
        owner: WebhookOwner,
        id: Uuid,
    ) -> Result<Option<WebhookEndpointRecord>, StoreError> {
        Ok(webhook_endpoints::Entity::find_by_id(id)
            .filter(owned_by(owner))
            .one(self.conn())
            .await?)
    }

    /// Deletes one of `owner`'s endpoints with its deliveries; whether it was there.
    pub async fn delete_webhook_endpoint(
        &self,
        owner: WebhookOwner,
        id: Uuid,
        audit: Option<&crate::Audit>,
    ) -> Result<bool, StoreError> {
        let txn = self.write().await?;
        let mine = webhook_endpoints::Entity::find_by_id(id)
            .filter(owned_by(owner))
            .one(&txn)
            .await?
            .is_some();
        if mine {
            // Attempts and deliveries go with it (cascades), spelled out for SQLite
            // connections without foreign keys.
            delete_deliveries(&txn, webhook_deliveries::Column::EndpointId.eq(id)).await?;
            webhook_endpoints::Entity::delete_by_id(id)
                .exec(&txn)
                .await?;
            crate::identity::audit::record(&txn, audit).await?;
        }
        txn.commit().await?;
        Ok(mine)
    }

    /// Replaces an endpoint's secret with `sealed`, keeping the one it replaces (as `old`,
    /// sealed for its new place) until `until`. Whether the endpoint still held `current`
    /// (a racing rotation won otherwise).
    pub async fn rotate_webhook_secret(
        &self,
        id: Uuid,
        current: &str,
        (sealed, old): (&str, &str),
        until: DateTime<Utc>,
        audit: Option<&crate::Audit>,
    ) -> Result<bool, StoreError> {
        let txn = self.write().await?;
        let result = webhook_endpoints::Entity::update_many()
            .col_expr(webhook_endpoints::Column::Secret, Expr::value(sealed))
            .col_expr(webhook_endpoints::Column::PreviousSecret, Expr::value(old))
            .col_expr(
                webhook_endpoints::Column::PreviousSecretUntil,
                Expr::value(until),
            )
            .filter(webhook_endpoints::Column::Id.eq(id))
            .filter(webhook_endpoints::Column::Secret.eq(current))
            .exec(&txn)
            .await?;
        if result.rows_affected == 1 {
            crate::identity::audit::record(&txn, audit).await?;
        }
        txn.commit().await?;
        Ok(result.rows_affected == 1)
    }

    /// Disables the enabled endpoints of `org` that `member` registered (they lost the admin
    /// role, or left): their deliveries stop, with `why` as the reason. How many.
    pub async fn disable_org_endpoints_made_by(
        &self,
        org: Uuid,
        member: Uuid,
        why: &str,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        Ok(webhook_endpoints::Entity::update_many()
            .col_expr(webhook_endpoints::Column::Enabled, Expr::value(false))
            .col_expr(webhook_endpoints::Column::DisabledAt, Expr::value(now))
            .col_expr(webhook_endpoints::Column::DisabledReason, Expr::value(why))
            .filter(webhook_endpoints::Column::OwnerOrgId.eq(org))
            .filter(webhook_endpoints::Column::CreatedBy.eq(member))
            .filter(webhook_endpoints::Column::Enabled.eq(true))
            .exec(self.conn())
            .await?
            .rows_affected)
    }

    /// Enables an endpoint again: its pending deliveries resume, its failures are forgotten.
    pub async fn enable_webhook_endpoint(
        &self,
        id: Uuid,
        audit: Option<&crate::Audit>,
    ) -> Result<(), StoreError> {
        let txn = self.write().await?;
        webhook_endpoints::Entity::update_many()
            .col_expr(webhook_endpoints::Column::Enabled, Expr::value(true))
            .col_expr(
                webhook_endpoints::Column::FailingSince,
                Expr::value(Option::<DateTime<Utc>>::None),
            )
            .col_expr(
                webhook_endpoints::Column::DisabledAt,
                Expr::value(Option::<DateTime<Utc>>::None),
            )
            .col_expr(
                webhook_endpoints::Column::DisabledReason,
                Expr::value(Option::<String>::None),
            )
            .filter(webhook_endpoints::Column::Id.eq(id))
            .exec(&txn)
            .await?;
        crate::identity::audit::record(&txn, audit).await?;
        txn.commit().await?;
        Ok(())
    }

    /// A test event for one endpoint, delivered like any other; its id.
    pub async fn emit_test_event(
        &self,
        endpoint: Uuid,
        at: DateTime<Utc>,
    ) -> Result<Uuid, StoreError> {
        let event = Event::WebhookTest(domain::webhook::WebhookTest {
            endpoint_id: endpoint,
        });
        crate::outbox::emit(self.conn(), &event, at).await
    }

    /// Makes the deliveries of up to `limit` events not fanned out yet: one per enabled
    /// endpoint that hears of the event and subscribes to its kind. Idempotent: a delivery
    /// exists once per endpoint and event, however many workers race. How many events.
    pub async fn fan_out_webhook_events(
        &self,
        now: DateTime<Utc>,
        limit: u64,
    ) -> Result<usize, StoreError> {
        let txn = self.write().await?;
        let events = webhook_events::Entity::find()
            .filter(webhook_events::Column::FannedOut.eq(false))
            .order_by_asc(webhook_events::Column::Id)
            .limit(limit)
            .all(&txn)
            .await?;
        for event in &events {
            let hears = match (event.endpoint_id, event.renter_id, event.org_id) {
                (Some(endpoint), ..) => {
                    Condition::all().add(webhook_endpoints::Column::Id.eq(endpoint))
                }
                (None, renter, org) => {
                    let renters = event
                        .kind
                        .parse::<EventKind>()
                        .is_ok_and(EventKind::reaches_renters);
                    let mut any = Condition::any();
                    if let Some(renter) = renter.filter(|_| renters) {
                        any = any.add(owned_by(WebhookOwner::User(renter)));
                    }
                    if let Some(org) = org {
                        any = any.add(owned_by(WebhookOwner::Org(org)));
                    }
                    if renter.is_none() && org.is_none() {
                        any = any.add(Expr::value(false));
                    }
                    any
                }
            };
            let endpoints = webhook_endpoints::Entity::find()
                .filter(hears)
                .filter(webhook_endpoints::Column::Enabled.eq(true))
                .all(&txn)
                .await?;
            let deliveries: Vec<_> = endpoints
                .iter()
                .filter(|e| event.endpoint_id.is_some() || subscribes(e, &event.kind))
                .map(|e| webhook_deliveries::ActiveModel {
                    id: Set(Uuid::now_v7()),
                    endpoint_id: Set(e.id),
                    event_id: Set(event.id),
                    status: Set(delivery_status::PENDING.to_owned()),
                    attempts: Set(0),
                    next_attempt_at: Set(Some(now)),
                    created_at: Set(now),
                    delivered_at: Set(None),
                    claimed_until: Set(None),
                    // A test event is sent on its own budget, before any backlog.
                    manual: Set(event.endpoint_id.is_some()),
                })
                .collect();
            if !deliveries.is_empty() {
                webhook_deliveries::Entity::insert_many(deliveries)
                    .on_conflict(
                        OnConflict::columns([
                            webhook_deliveries::Column::EndpointId,
                            webhook_deliveries::Column::EventId,
                        ])
                        .do_nothing()
                        .to_owned(),
                    )
                    .exec_without_returning(&txn)
                    .await?;
            }
            webhook_events::Entity::update_many()
                .col_expr(webhook_events::Column::FannedOut, Expr::value(true))
                .filter(webhook_events::Column::Id.eq(event.id))
                .exec(&txn)
                .await?;
        }
        txn.commit().await?;
        Ok(events.len())
    }

    /// Records an attempt of a claimed delivery and what follows from it: delivered, tried
    /// again at `retry_at`, or (no `retry_at`) failed for good — only while the delivery
    /// still holds the claim's lease (a worker whose lease ran out, or whose delivery was
    /// sent again by hand meanwhile, records the attempt and changes nothing else). A success
    /// ends the endpoint's failing streak; a failure starts one (or a new one, when the last
    /// attempt before it was more than `streak_gap` ago), and an endpoint failing since
    /// `now - streak_gap` or earlier is disabled: then it is returned (its owners are told).
    pub async fn record_webhook_attempt(
        &self,
        claim: &DeliveryClaim,
        outcome: AttemptOutcome,
        (now, retry_at): (DateTime<Utc>, Option<DateTime<Utc>>),
        streak_gap: chrono::Duration,
    ) -> Result<Option<WebhookEndpointRecord>, StoreError> {
        let txn = self.write().await?;
        let delivered = outcome.delivered;
        let outcome_timed_out = outcome.timed_out;
        let endpoint = claim.endpoint.id;
        // The endpoint's attempt before this one, for the failing streak.
        let of_endpoint = Query::select()
            .column(webhook_deliveries::Column::Id)
            .from(webhook_deliveries::Entity)
            .and_where(webhook_deliveries::Column::EndpointId.eq(endpoint))
            .to_owned();
        let previous: Option<DateTime<Utc>> = webhook_attempts::Entity::find()
            .select_only()
            .column(webhook_attempts::Column::AttemptedAt)
            .filter(webhook_attempts::Column::DeliveryId.in_subquery(of_endpoint))
            .order_by_desc(webhook_attempts::Column::AttemptedAt)
            .limit(1)
            .into_tuple()
            .one(&txn)
            .await?;
        webhook_attempts::Entity::insert(webhook_attempts::ActiveModel {
            id: Set(Uuid::now_v7()),
            delivery_id: Set(claim.delivery),
            attempted_at: Set(now),
            status_code: Set(outcome.status_code),
            answer: Set(outcome.answer),
            error: Set(outcome.error),
            duration_ms: Set(outcome.duration_ms),
        })
        .exec_without_returning(&txn)
        .await?;
        let status = match (delivered, retry_at) {
            (true, _) => delivery_status::DELIVERED,
            (false, Some(_)) => delivery_status::PENDING,
            (false, None) => delivery_status::FAILED,
        };
        let held = webhook_deliveries::Entity::update_many()
            .col_expr(webhook_deliveries::Column::Status, Expr::value(status))
            .col_expr(
                webhook_deliveries::Column::Attempts,
                Expr::value(claim.attempts + 1),
            )
            .col_expr(
                webhook_deliveries::Column::NextAttemptAt,
                Expr::value(retry_at.filter(|_| !delivered)),
            )
            .col_expr(
                webhook_deliveries::Column::DeliveredAt,
                Expr::value(delivered.then_some(now)),
            )
            .col_expr(
                webhook_deliveries::Column::ClaimedUntil,
                Expr::value(Option::<DateTime<Utc>>::None),
            )
            .col_expr(webhook_deliveries::Column::Manual, Expr::value(false))
            .filter(webhook_deliveries::Column::Id.eq(claim.delivery))
            .filter(webhook_deliveries::Column::Status.eq(delivery_status::PENDING))
            .filter(webhook_deliveries::Column::NextAttemptAt.eq(claim.lease_until))
            .exec(&txn)
            .await?
            .rows_affected
            == 1;
        if held {
            // Attempts in a row without an answer in time shorten the next one's timeout.
            let streak = if outcome_timed_out {
                Expr::col(webhook_endpoints::Column::TimeoutStreak).add(1)
            } else {
                Expr::value(0)
            };
            webhook_endpoints::Entity::update_many()
                .col_expr(webhook_endpoints::Column::TimeoutStreak, streak)
                .filter(webhook_endpoints::Column::Id.eq(endpoint))
                .exec(&txn)
                .await?;
        }
        let mut disabled = None;
        if held && delivered {
            webhook_endpoints::Entity::update_many()
                .col_expr(
                    webhook_endpoints::Column::FailingSince,
                    Expr::value(Option::<DateTime<Utc>>::None),
                )
                .filter(webhook_endpoints::Column::Id.eq(endpoint))
                .exec(&txn)
                .await?;
        } else if held {
            let quiet = previous.is_none_or(|at| now - at > streak_gap);
            let streak = webhook_endpoints::Entity::update_many()
                .col_expr(webhook_endpoints::Column::FailingSince, Expr::value(now))
                .filter(webhook_endpoints::Column::Id.eq(endpoint));
            if quiet {
                // No attempt for longer than the streak lasts: a new streak starts.
                streak.exec(&txn).await?;
            } else {
                streak
                    .filter(webhook_endpoints::Column::FailingSince.is_null())
                    .exec(&txn)
                    .await?;
            }
            let reason = "every delivery failed for the configured period \
                          (webhook_disable_after_secs)";
            let done = webhook_endpoints::Entity::update_many()
                .col_expr(webhook_endpoints::Column::Enabled, Expr::value(false))
                .col_expr(webhook_endpoints::Column::DisabledAt, Expr::value(now))
                .col_expr(
                    webhook_endpoints::Column::DisabledReason,
                    Expr::value(reason),
                )
                .filter(webhook_endpoints::Column::Id.eq(endpoint))
                .filter(webhook_endpoints::Column::Enabled.eq(true))
                .filter(webhook_endpoints::Column::FailingSince.lte(now - streak_gap))
                .exec(&txn)
                .await?;
            if done.rows_affected == 1 {
                disabled = webhook_endpoints::Entity::find_by_id(endpoint)
                    .one(&txn)
                    .await?;
            }
        }
        txn.commit().await?;
        Ok(disabled)
    }

    /// An endpoint's deliveries, newest first, before the delivery `before` (exclusive),
    /// each with its attempts (oldest first).
    pub async fn webhook_deliveries(
        &self,
        endpoint: Uuid,
        before: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        let mut select = webhook_deliveries::Entity::find()
            .filter(webhook_deliveries::Column::EndpointId.eq(endpoint));
        if let Some(before) = before {
            select = select.filter(webhook_deliveries::Column::Id.lt(before));
        }
        let deliveries = select
            .order_by_desc(webhook_deliveries::Column::Id)
            .limit(limit)
            .all(self.conn())
            .await?;
        let ids: Vec<Uuid> = deliveries.iter().map(|d| d.id).collect();
        let events: Vec<Uuid> = deliveries.iter().map(|d| d.event_id).collect();
        let kinds: std::collections::HashMap<Uuid, String> = webhook_events::Entity::find()
            .select_only()
            .column(webhook_events::Column::Id)
            .column(webhook_events::Column::Kind)
            .filter(webhook_events::Column::Id.is_in(events))
            .into_tuple()
            .all(self.conn())
            .await?
            .into_iter()
            .collect();
        let mut attempts: std::collections::HashMap<Uuid, Vec<WebhookAttemptRecord>> =
            Default::default();
        for attempt in webhook_attempts::Entity::find()
            .filter(webhook_attempts::Column::DeliveryId.is_in(ids))
            .order_by_asc(webhook_attempts::Column::Id)
            .all(self.conn())
            .await?
        {
            attempts
                .entry(attempt.delivery_id)
                .or_default()
                .push(attempt);
        }
        Ok(deliveries
            .into_iter()
            .map(|d| DeliveryRecord {
                id: d.id,
                event_id: d.event_id,
                kind: kinds.get(&d.event_id).cloned().unwrap_or_default(),
                status: d.status,
                attempts: attempts.remove(&d.id).unwrap_or_default(),
                next_attempt_at: d.next_attempt_at,
                created_at: d.created_at,
                delivered_at: d.delivered_at,
            })
            .collect())
    }

    /// Sends a delivery of `endpoint` again from the start of the schedule (same event, same
    /// `webhook-id`); whether it was there.
    pub async fn redeliver_webhook(
        &self,
        endpoint: Uuid,
        delivery: Uuid,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let result = webhook_deliveries::Entity::update_many()
            .col_expr(
                webhook_deliveries::Column::Status,
                Expr::value(delivery_status::PENDING),
            )
            .col_expr(webhook_deliveries::Column::Attempts, Expr::value(0))
            .col_expr(webhook_deliveries::Column::NextAttemptAt, Expr::value(now))
            .col_expr(webhook_deliveries::Column::Manual, Expr::value(true))
            .filter(webhook_deliveries::Column::Id.eq(delivery))
            .filter(webhook_deliveries::Column::EndpointId.eq(endpoint))
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected == 1)
    }

    /// Deletes up to 1,000 events (with their deliveries and attempts) that occurred before
    /// `before` and have nothing left to deliver; how many. A delivery sent again by hand
    /// meanwhile (pending again) keeps itself and its event.
    pub async fn prune_webhook_events(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        let pending = || {
            Query::select()
                .column(webhook_deliveries::Column::EventId)
                .from(webhook_deliveries::Entity)
                .and_where(webhook_deliveries::Column::Status.eq(delivery_status::PENDING))
                .to_owned()
        };
        let old: Vec<Uuid> = webhook_events::Entity::find()
            .select_only()
            .column(webhook_events::Column::Id)
            .filter(webhook_events::Column::OccurredAt.lt(before))
            .filter(webhook_events::Column::FannedOut.eq(true))
            .filter(webhook_events::Column::Id.not_in_subquery(pending()))
            .limit(1000)
            .into_tuple()
            .all(self.conn())
            .await?;
        if old.is_empty() {
            return Ok(0);
        }
        let txn = self.write().await?;
        delete_deliveries(
            &txn,
            webhook_deliveries::Column::EventId
                .is_in(old.clone())
                .and(webhook_deliveries::Column::Status.ne(delivery_status::PENDING)),
        )
        .await?;
        let gone = webhook_events::Entity::delete_many()
            .filter(webhook_events::Column::Id.is_in(old))
            .filter(webhook_events::Column::Id.not_in_subquery(pending()))
            .exec(&txn)
            .await?
            .rows_affected;
        txn.commit().await?;
        Ok(gone)
    }
}
