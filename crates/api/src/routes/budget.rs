//! A person's monthly budget: `PUT/GET/DELETE /v1/me/budget` (issue 59). Bookings and plans
//! that would take this month's spending past it are refused with 409 `budget_exceeded`.

use actix_web::{HttpResponse, delete, get, put, web};
use app::App;
use app::money::budgets::BudgetStanding;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{Forbidden, InvalidToken, NotFound, Unauthenticated, ValidationFailed};
use crate::extract::{Auth, Json};

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutBudgetRequest {
    /// The most this month's bookings may cost, in minor units of `currency` (0 to
    /// 1,000,000,000,000; 0: nothing may be booked).
    pub amount_per_month: i64,
    /// An ISO 4217 code we take (`USD`, `EUR`, …). Bookings priced in another currency are
    /// refused while the budget stands (they cannot be judged against it).
    pub currency: String,
}

/// A person's budget and where it stands this calendar month (UTC).
#[derive(Debug, Serialize, ToSchema)]
pub struct BudgetView {
    /// Minor units of `currency` a month.
    pub amount_per_month: i64,
    pub currency: String,
    /// The month, `YYYY-MM`, and its bounds.
    pub month: String,
    pub month_starts_at: DateTime<Utc>,
    pub month_ends_at: DateTime<Utc>,
    /// What this month's bookings cost: money charged this month, bookings holding their GPUs
    /// for a payment, and bookings where nothing is collected at their price, less what was
    /// refunded or credited this month (never below 0).
    pub spent: i64,
    /// What may still be spent this month.
    pub left: i64,
    pub updated_at: DateTime<Utc>,
}

impl From<BudgetStanding> for BudgetView {
    fn from(b: BudgetStanding) -> Self {
        Self {
            amount_per_month: b.amount_per_month.minor(),
            currency: b.amount_per_month.currency().code().to_owned(),
            month: b.month,
            month_starts_at: b.month_starts_at,
            month_ends_at: b.month_ends_at,
            spent: b.spent.minor(),
            left: b.left.minor(),
            updated_at: b.updated_at,
        }
    }
}

/// Set the caller's monthly budget (replacing any). A person's session or own API key; an
/// organisation's key is refused.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "put_my_budget",
    tag = "payments",
    security(("bearer" = [])),
    request_body = PutBudgetRequest,
    responses(
        (status = 200, description = "The budget as it stands", body = BudgetView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, ValidationFailed)>,
    )
)]
#[put("/me/budget")]
pub async fn put_budget(
    app: web::Data<App>,
    Auth(caller): Auth,
    Json(body): Json<PutBudgetRequest>,
) -> Result<HttpResponse, ApiError> {
    let standing = app
        .put_budget(caller, body.amount_per_month, &body.currency)
        .await?;
    Ok(HttpResponse::Ok().json(BudgetView::from(standing)))
}

/// The caller's monthly budget and where it stands this month.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_my_budget",
    tag = "payments",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The budget as it stands", body = BudgetView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[get("/me/budget")]
pub async fn get_budget(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    let standing = app.budget(caller).await?;
    Ok(HttpResponse::Ok().json(BudgetView::from(standing)))
}

/// Remove the caller's monthly budget.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "delete_my_budget",
    tag = "payments",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Removed"),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[delete("/me/budget")]
pub async fn delete_budget(
    app: web::Data<App>,
    Auth(caller): Auth,
) -> Result<HttpResponse, ApiError> {
    app.delete_budget(caller).await?;
    Ok(HttpResponse::NoContent().finish())
}
