//! People's monthly budgets (issue 59): the cap, what this month's bookings cost against it —
//! read under the person's lock when a booking is decided, so that it is decided once for every
//! replica — and the alerts each sent once a month, in the transaction of the change that made
//! them due.

use chrono::{DateTime, Utc};
use domain::budget::{BudgetAlert, MonthBudget, month_of, month_start};
use domain::webhook::{BudgetAlerted, Event};
use domain::{Currency, LedgerKind, Money};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect,
};
use uuid::Uuid;

use crate::entities::{bid_raises, bookings, budget_alerts, budgets, ledger_entries};
use crate::outbox::emit;
use crate::status::booking_status;
use crate::{Db, StoreError};

/// A budget as stored.
pub type BudgetRecord = budgets::Model;

/// What this month's bookings of `user` cost in `currency` at `now` (minor units, never below
/// zero): money charged this month less what was refunded or credited this month; the price of
/// each booking holding its GPUs for a payment not made yet and of each bid raise waiting for
/// its payment; and, for bookings made this month
/// where the provider takes no payments (nothing is collected, the price is owed), their price
/// less what their cancellation gave back.
async fn month_spent(
    conn: &impl ConnectionTrait,
    user: Uuid,
    currency: &str,
    now: DateTime<Utc>,
) -> Result<i64, StoreError> {
    let from = month_start(now);
    let moved: Vec<i64> = ledger_entries::Entity::find()
        .select_only()
        .column(ledger_entries::Column::Amount)
        .filter(ledger_entries::Column::RenterId.eq(user))
        .filter(ledger_entries::Column::Currency.eq(currency))
        .filter(ledger_entries::Column::CreatedAt.gte(from))
        .filter(ledger_entries::Column::Kind.is_in([
            LedgerKind::Charge.as_str(),
            LedgerKind::Refund.as_str(),
            LedgerKind::Credit.as_str(),
        ]))
        .into_tuple()
        .all(conn)
        .await?;
    let held: Vec<i64> = bookings::Entity::find()
        .select_only()
        .column(bookings::Column::PriceAmount)
        .filter(bookings::Column::RenterId.eq(user))
        .filter(bookings::Column::Currency.eq(currency))
        .filter(bookings::Column::Status.eq(booking_status::PENDING_PAYMENT))
        .filter(bookings::Column::HoldExpiresAt.gt(now))
        .into_tuple()
        .all(conn)
        .await?;
    // Bid raises waiting for their payment count as held bookings do.
    let raising: Vec<i64> = bid_raises::Entity::find()
        .select_only()
        .column(bid_raises::Column::Amount)
        .filter(bid_raises::Column::RenterId.eq(user))
        .filter(bid_raises::Column::Currency.eq(currency))
        .filter(bid_raises::Column::Status.eq(crate::status::raise_status::PENDING_PAYMENT))
        .filter(bid_raises::Column::HoldExpiresAt.gt(now))
        .into_tuple()
        .all(conn)
        .await?;
    let owed: Vec<(i64, Option<i64>)> = bookings::Entity::find()
        .select_only()
        .column(bookings::Column::PriceAmount)
        .column(bookings::Column::RefundAmount)
        .filter(bookings::Column::RenterId.eq(user))
        .filter(bookings::Column::Currency.eq(currency))
        .filter(bookings::Column::PaymentProvider.is_null())
        .filter(bookings::Column::CreatedAt.gte(from))
        .filter(bookings::Column::Status.is_in([
            booking_status::CONFIRMED,
            booking_status::ACTIVE,
            booking_status::COMPLETED,
            booking_status::CANCELLED,
            booking_status::INTERRUPTING,
            booking_status::INTERRUPTED,
        ]))
        .into_tuple()
        .all(conn)
        .await?;
    let spent = moved.iter().sum::<i64>()
        + held.iter().sum::<i64>()
        + raising.iter().sum::<i64>()
        + owed
            .iter()
            .map(|(price, refund)| price - refund.unwrap_or(0))
            .sum::<i64>();
    Ok(spent.max(0))
}

/// `user`'s budget this month at `now`, when they set one.
pub(crate) async fn month_budget(
    conn: &impl ConnectionTrait,
    user: Uuid,
    now: DateTime<Utc>,
) -> Result<Option<MonthBudget>, StoreError> {
    let Some(budget) = budgets::Entity::find_by_id(user).one(conn).await? else {
        return Ok(None);
    };
    let currency = Currency::parse("currency", &budget.currency)
        .map_err(|e| StoreError::Corrupt(format!("budget of {user}: {}", e.message)))?;
    Ok(Some(MonthBudget {
        limit: Money::new(budget.amount_per_month, currency),
        spent: month_spent(conn, user, &budget.currency, now).await?,
    }))
}

/// Sends `alert` of `user`'s budget, as it stands in `month`, unless it was sent this month:
/// in the caller's transaction, so it exists exactly when the change that made it due does.
pub(crate) async fn alert_once(
    conn: &impl ConnectionTrait,
    user: Uuid,
    month: &MonthBudget,
    alert: BudgetAlert,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let inserted = budget_alerts::Entity::insert(budget_alerts::ActiveModel {
        user_id: Set(user),
        month: Set(month_of(now)),
        kind: Set(alert.as_str().to_owned()),
        created_at: Set(now),
    })
    .on_conflict(
        OnConflict::columns([
            budget_alerts::Column::UserId,
            budget_alerts::Column::Month,
            budget_alerts::Column::Kind,
        ])
        .do_nothing()
        .to_owned(),
    )
    .exec_without_returning(conn)
    .await?;
    if inserted == 1 {
        let alerted = BudgetAlerted {
            user_id: user,
            month: month_of(now),
            amount_per_month: month.limit,
            spent: month.limit.with_minor(month.spent.max(0)),
        };
        let event = match alert {
            BudgetAlert::Warning => Event::BudgetWarning(alerted),
            BudgetAlert::Exhausted => Event::BudgetExhausted(alerted),
        };
        emit(conn, &event, now).await?;
    }
    Ok(())
}

/// Sends the alerts spending `cost` more makes due on `month` (read under the person's lock),
/// in the caller's transaction.
pub(crate) async fn alert_spending(
    conn: &impl ConnectionTrait,
    user: Uuid,
    month: Option<&MonthBudget>,
    cost: i64,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let Some(month) = month else {
        return Ok(());
    };
    let after = MonthBudget {
        spent: month.spent.max(0) + cost.max(0),
        ..*month
    };
    for alert in month.crossed(month.limit.with_minor(cost)) {
        alert_once(conn, user, &after, alert, now).await?;
    }
    Ok(())
}

impl Db {
    /// Sets `user`'s budget (replacing any).
    pub async fn put_budget(
        &self,
        user: Uuid,
        amount_per_month: Money,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        budgets::Entity::insert(budgets::ActiveModel {
            user_id: Set(user),
            amount_per_month: Set(amount_per_month.minor()),
            currency: Set(amount_per_month.currency().code().to_owned()),
            updated_at: Set(now),
        })
        .on_conflict(
            OnConflict::column(budgets::Column::UserId)
                .update_columns([
                    budgets::Column::AmountPerMonth,
                    budgets::Column::Currency,
                    budgets::Column::UpdatedAt,
                ])
                .to_owned(),
        )
        .exec_without_returning(self.conn())
        .await?;
        Ok(())
    }

    /// Removes `user`'s budget; whether there was one.
    pub async fn delete_budget(&self, user: Uuid) -> Result<bool, StoreError> {
        Ok(budgets::Entity::delete_by_id(user)
            .exec(self.conn())
            .await?
            .rows_affected
            == 1)
    }

    /// `user`'s budget, and where it stands this month at `now`.
    pub async fn budget_of(
        &self,
        user: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Option<(BudgetRecord, MonthBudget)>, StoreError> {
        let Some(record) = budgets::Entity::find_by_id(user).one(self.conn()).await? else {
            return Ok(None);
        };
        let month = month_budget(self.conn(), user, now).await?;
        Ok(month.map(|m| (record, m)))
    }

    /// A booking of `user` was refused for their budget: `budget.exhausted`, once this month.
    pub async fn budget_refused(&self, user: Uuid, now: DateTime<Utc>) -> Result<(), StoreError> {
        let txn = self.write().await?;
        if let Some(month) = month_budget(&txn, user, now).await? {
            alert_once(&txn, user, &month, BudgetAlert::Exhausted, now).await?;
        }
        txn.commit().await?;
        Ok(())
    }
}
