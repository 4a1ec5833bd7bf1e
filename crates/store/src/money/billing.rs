//! Organisations' Stripe Billing state: their Customer (kept once) and their subscription as
//! last read from Stripe.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};
use uuid::Uuid;

use crate::entities::org_billing;
use crate::{Db, StoreError};

pub type BillingRecord = org_billing::Model;

/// A subscription's state as Stripe holds it, to record for an organisation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionState {
    pub id: String,
    pub status: String,
    pub current_period_end: Option<DateTime<Utc>>,
    pub cancel_at_period_end: bool,
    /// Since when a payment is overdue (`past_due`), else `None`.
    pub past_due_since: Option<DateTime<Utc>>,
}

impl Db {
    pub async fn billing_of(&self, org: Uuid) -> Result<Option<BillingRecord>, StoreError> {
        Ok(org_billing::Entity::find_by_id(org)
            .one(self.conn())
            .await?)
    }

    pub async fn billing_of_customer(
        &self,
        customer: &str,
    ) -> Result<Option<BillingRecord>, StoreError> {
        Ok(org_billing::Entity::find()
            .filter(org_billing::Column::StripeCustomerId.eq(customer))
            .one(self.conn())
            .await?)
    }

    /// Records an organisation's Customer unless it has one; returns the row kept.
    pub async fn keep_customer(
        &self,
        org: Uuid,
        customer: &str,
        now: DateTime<Utc>,
    ) -> Result<BillingRecord, StoreError> {
        let row = org_billing::ActiveModel {
            org_id: Set(org),
            stripe_customer_id: Set(customer.to_owned()),
            subscription_id: Set(None),
            subscription_status: Set(None),
            current_period_end: Set(None),
            cancel_at_period_end: Set(false),
            past_due_since: Set(None),
            created_at: Set(now),
            updated_at: Set(now),
        };
        // Any conflict, not only on the organisation: two callers racing with the same new
        // Customer would otherwise meet on its id's unique index before the organisation's
        // (PostgreSQL raises a conflict outside the named target).
        org_billing::Entity::insert(row)
            .on_conflict(OnConflict::new().do_nothing().to_owned())
            .exec_without_returning(self.conn())
            .await?;
        self.billing_of(org)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("billing of {org} vanished")))
    }

    /// Records `state` as the organisation's subscription; `false` when it has no row.
    pub async fn record_subscription(
        &self,
        org: Uuid,
        state: &SubscriptionState,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let update = org_billing::Entity::update_many()
            .col_expr(
                org_billing::Column::SubscriptionId,
                Expr::value(state.id.clone()),
            )
            .col_expr(
                org_billing::Column::SubscriptionStatus,
                Expr::value(state.status.clone()),
            )
            .col_expr(
                org_billing::Column::CurrentPeriodEnd,
                Expr::value(state.current_period_end),
            )
            .col_expr(
                org_billing::Column::CancelAtPeriodEnd,
                Expr::value(state.cancel_at_period_end),
            )
            .col_expr(
                org_billing::Column::PastDueSince,
                Expr::value(state.past_due_since),
            )
            .col_expr(org_billing::Column::UpdatedAt, Expr::value(now))
            .filter(org_billing::Column::OrgId.eq(org));
        Ok(update.exec(self.conn()).await?.rows_affected > 0)
    }
}
