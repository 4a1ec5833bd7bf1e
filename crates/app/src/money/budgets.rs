//! A person's monthly budget (issue 59): `PUT/GET/DELETE /v1/me/budget`. The cap is checked
//! where bookings and plans are decided (`domain::booking::within_budget`, under the person's
//! lock in the store); this is setting it, reading where it stands, and the alert a refusal
//! sends.

use chrono::{DateTime, Utc};
use domain::Money;
use domain::booking::Refusal;
use domain::budget::{Budget, month_of, month_start, next_month_start};
use uuid::Uuid;

use crate::{App, AppError, Caller};

/// A person's budget and where it stands this month.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetStanding {
    pub amount_per_month: Money,
    /// The calendar month (UTC), `YYYY-MM`, and its bounds.
    pub month: String,
    pub month_starts_at: DateTime<Utc>,
    pub month_ends_at: DateTime<Utc>,
    /// What this month's bookings cost (charges and held bookings less refunds).
    pub spent: Money,
    /// What may still be spent this month.
    pub left: Money,
    pub updated_at: DateTime<Utc>,
}

impl App {
    /// Sets the caller's monthly budget (replacing any); where it stands now.
    pub async fn put_budget(
        &self,
        caller: Caller,
        amount_per_month: i64,
        currency: &str,
    ) -> Result<BudgetStanding, AppError> {
        let caller = caller.person("a budget is")?;
        let budget = Budget::new(amount_per_month, currency)?;
        self.db()
            .put_budget(
                caller.user_id.as_uuid(),
                budget.amount_per_month,
                Utc::now(),
            )
            .await?;
        self.budget(caller).await
    }

    /// The caller's budget and where it stands this month; 404 without one.
    pub async fn budget(&self, caller: Caller) -> Result<BudgetStanding, AppError> {
        let caller = caller.person("a budget is")?;
        let now = Utc::now();
        let (record, month) = self
            .db()
            .budget_of(caller.user_id.as_uuid(), now)
            .await?
            .ok_or(AppError::NotFound("budget"))?;
        Ok(BudgetStanding {
            amount_per_month: month.limit,
            month: month_of(now),
            month_starts_at: month_start(now),
            month_ends_at: next_month_start(now),
            spent: month.limit.with_minor(month.spent),
            left: month.left(),
            updated_at: record.updated_at,
        })
    }

    /// Removes the caller's budget; 404 without one.
    pub async fn delete_budget(&self, caller: Caller) -> Result<(), AppError> {
        let caller = caller.person("a budget is")?;
        if self.db().delete_budget(caller.user_id.as_uuid()).await? {
            Ok(())
        } else {
            Err(AppError::NotFound("budget"))
        }
    }

    /// After a booking or plan of `renter` was refused: when for their budget,
    /// `budget.exhausted` (once this month). A failure to record it is logged: the refusal
    /// stands either way.
    pub(crate) async fn note_budget_refusal(
        &self,
        renter: Uuid,
        refusal: &Refusal,
        now: DateTime<Utc>,
    ) {
        if matches!(refusal, Refusal::Budget { .. })
            && let Err(e) = self.db().budget_refused(renter, now).await
        {
            tracing::error!(error = %e, "a budget's refusal was not recorded");
        }
    }
}
