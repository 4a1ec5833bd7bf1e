//! Which due webhook deliveries a worker claims, fairly: the budgets of sends in flight per
//! endpoint and per owner, counted from the database ([`domain::webhook::fair_claims`]).

use chrono::{DateTime, Utc};
use domain::webhook::{DueEndpoint, fair_claims};
use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use crate::entities::{webhook_deliveries, webhook_endpoints, webhook_events};
use crate::operations::webhooks::{
    ClaimBudget, DeliveryClaim, WebhookEndpointRecord, delivery_status,
};
use crate::{Db, StoreError};

impl Db {
    /// Claims up to `limit` deliveries due at `now` to enabled endpoints, each until `now +
    /// lease(endpoint)` (then another worker may try it again), fairly
    /// ([`domain::webhook::fair_claims`]): first deliveries sent by hand (test events and
    /// redeliveries) within `budget.manual_per_owner` in flight per owner, then the rest one
    /// owner at a time, within `budget.per_endpoint` and `budget.per_owner` in flight. What is
    /// in flight is read from the database (`claimed_until`), so every worker counts every
    /// worker's sends (two claiming at the same instant may each take the last place).
    pub async fn claim_webhook_deliveries(
        &self,
        now: DateTime<Utc>,
        lease: impl Fn(&WebhookEndpointRecord) -> chrono::Duration,
        limit: u64,
        budget: ClaimBudget,
    ) -> Result<Vec<DeliveryClaim>, StoreError> {
        use webhook_deliveries::Column as D;
        let enabled = Query::select()
            .column(webhook_endpoints::Column::Id)
            .from(webhook_endpoints::Entity)
            .and_where(webhook_endpoints::Column::Enabled.eq(true))
            .to_owned();
        // What is due, per endpoint and kind (by hand or not), oldest first.
        let mut due: Vec<(Uuid, bool, i64, DateTime<Utc>)> = webhook_deliveries::Entity::find()
            .select_only()
            .column(D::EndpointId)
            .column(D::Manual)
            .column_as(Expr::col(D::Id).count(), "due")
            .column_as(Expr::col(D::NextAttemptAt).min(), "oldest")
            .filter(D::Status.eq(delivery_status::PENDING))
            .filter(D::NextAttemptAt.lte(now))
            .filter(D::EndpointId.in_subquery(enabled))
            .group_by(D::EndpointId)
            .group_by(D::Manual)
            .into_tuple()
            .all(self.conn())
            .await?;
        if due.is_empty() {
            return Ok(Vec::new());
        }
        due.sort_by_key(|&(endpoint, _, _, oldest)| (oldest, endpoint));
        let in_flight: Vec<(Uuid, bool, i64)> = webhook_deliveries::Entity::find()
            .select_only()
            .column(D::EndpointId)
            .column(D::Manual)
            .column_as(Expr::col(D::Id).count(), "sending")
            .filter(D::Status.eq(delivery_status::PENDING))
            .filter(D::ClaimedUntil.gt(now))
            .group_by(D::EndpointId)
            .group_by(D::Manual)
            .into_tuple()
            .all(self.conn())
            .await?;
        let mut ids: Vec<Uuid> = due.iter().map(|d| d.0).collect();
        ids.extend(in_flight.iter().map(|f| f.0));
        ids.sort_unstable();
        ids.dedup();
        let endpoints = webhook_endpoints::Entity::find()
            .filter(webhook_endpoints::Column::Id.is_in(ids))
            .all(self.conn())
            .await?;
        let owner = |endpoint: Uuid| {
            endpoints
                .iter()
                .find(|e| e.id == endpoint)
                .map(|e| e.owner_org_id.or(e.owner_user_id).unwrap_or(e.id))
        };
        let sending = |endpoint: Uuid, manual: bool| -> u64 {
            in_flight
                .iter()
                .filter(|f| f.0 == endpoint && f.1 == manual)
                .map(|f| u64::try_from(f.2).unwrap_or(0))
                .sum()
        };
        let owner_sending = |who: Uuid, manual: bool| -> u64 {
            in_flight
                .iter()
                .filter(|f| f.1 == manual && owner(f.0) == Some(who))
                .map(|f| u64::try_from(f.2).unwrap_or(0))
                .sum()
        };
        let mut claims = Vec::new();
        let mut room = limit;
        for (manual, per_endpoint, per_owner) in [
            (true, budget.manual_per_owner, budget.manual_per_owner),
            (false, budget.per_endpoint, budget.per_owner),
        ] {
            let wanted: Vec<DueEndpoint<Uuid>> = due
                .iter()
                .filter(|d| d.1 == manual)
                .filter_map(|&(endpoint, _, count, _)| {
                    Some(DueEndpoint {
                        endpoint,
                        owner: owner(endpoint)?,
                        due: u64::try_from(count).unwrap_or(0),
                        in_flight: sending(endpoint, manual),
                    })
                })
                .collect();
            let counts = fair_claims(
                &wanted,
                |who| owner_sending(who, manual),
                (per_endpoint, per_owner),
                room,
            );
            for (d, n) in wanted.iter().zip(counts) {
                let Some(endpoint) = endpoints.iter().find(|e| e.id == d.endpoint) else {
                    continue;
                };
                let taken = self
                    .claim_of_endpoint(endpoint, manual, n, now, now + lease(endpoint))
                    .await?;
                room = room.saturating_sub(taken.len() as u64);
                claims.extend(taken);
            }
        }
        Ok(claims)
    }

    /// Claims up to `n` of `endpoint`'s due deliveries (sent by hand or not: `manual`),
    /// oldest first, each until `until`.
    async fn claim_of_endpoint(
        &self,
        endpoint: &WebhookEndpointRecord,
        manual: bool,
        n: u64,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<DeliveryClaim>, StoreError> {
        use webhook_deliveries::Column as D;
        if n == 0 {
            return Ok(Vec::new());
        }
        let due = webhook_deliveries::Entity::find()
            .filter(D::EndpointId.eq(endpoint.id))
            .filter(D::Manual.eq(manual))
            .filter(D::Status.eq(delivery_status::PENDING))
            .filter(D::NextAttemptAt.lte(now))
            .order_by_asc(D::NextAttemptAt)
            .order_by_asc(D::Id)
            .limit(n)
            .all(self.conn())
            .await?;
        let mut claims = Vec::with_capacity(due.len());
        for delivery in due {
            let claimed = webhook_deliveries::Entity::update_many()
                .col_expr(D::NextAttemptAt, Expr::value(until))
                .col_expr(D::ClaimedUntil, Expr::value(until))
                .filter(D::Id.eq(delivery.id))
                .filter(D::Status.eq(delivery_status::PENDING))
                .filter(D::NextAttemptAt.eq(delivery.next_attempt_at))
                .exec(self.conn())
                .await?
                .rows_affected
                == 1;
            if !claimed {
                continue;
            }
            let event = webhook_events::Entity::find_by_id(delivery.event_id)
                .one(self.conn())
                .await?;
            if let Some(event) = event {
                claims.push(DeliveryClaim {
                    delivery: delivery.id,
                    lease_until: until,
                    attempts: delivery.attempts,
                    event,
                    endpoint: endpoint.clone(),
                });
            }
        }
        Ok(claims)
    }
}
