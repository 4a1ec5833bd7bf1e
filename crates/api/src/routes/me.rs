use std::collections::BTreeMap;

use actix_web::{HttpResponse, delete, get, web};
use app::App;
use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    BookingsNotEnded, Forbidden, InvalidToken, LastOwner, Unauthenticated,
};
use crate::extract::Auth;
use crate::views::UserView;

/// The caller's account.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_me", 
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller", body = UserView),
        Problems<(InvalidToken, Unauthenticated)>,
    )
)]
#[get("/me")]
pub async fn me(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    let user = app.me(caller).await?;
    Ok(HttpResponse::Ok().json(UserView::from(user)))
}

/// Everything held about a person.
#[derive(Debug, Serialize, ToSchema)]
pub struct PersonExport {
    pub user_id: Uuid,
    pub exported_at: DateTime<Utc>,
    /// Each table that names a person (`users`, `memberships`, `api_keys`, `ssh_keys`,
    /// `refresh_tokens` — the sessions —, `login_networks`, `email_tokens`, `invitations`,
    /// `bookings`, `bid_raises`, `booking_plans`, `ledger_entries` — the payments —,
    /// `budgets`, `budget_alerts`, `webhook_endpoints`, `webhook_events`,
    /// `maintenance_windows`, `report_shares`, `verification_runs`, `community_runs`, `org_audit`) with the person's
    /// rows, every column but digests of secrets and payment secrets.
    #[schema(value_type = Object)]
    pub tables: BTreeMap<String, Vec<serde_json::Value>>,
}

/// Everything held about the caller, as JSON (a session or the person's own API key).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "export_me",
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The caller's data", body = PersonExport),
        Problems<(InvalidToken, Unauthenticated, Forbidden)>,
    )
)]
#[get("/me/export")]
pub async fn export(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    let tables = app.export_person(caller).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(PersonExport {
            user_id: caller.user_id.as_uuid(),
            exported_at: Utc::now(),
            tables: tables
                .into_iter()
                .map(|(table, rows)| (table.to_owned(), rows))
                .collect(),
        }))
}

/// Erase the caller's account (a signed-in session only): sessions end and keys are revoked,
/// personal data is erased; bookings and the ledger keep the account's id only. 409
/// `last_owner` while the caller is an organisation's only owner, 409 `bookings_not_ended`
/// while a booking of theirs has not ended.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "delete_me",
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Erased"),
        Problems<(InvalidToken, Unauthenticated, Forbidden, LastOwner, BookingsNotEnded)>,
    )
)]
#[delete("/me")]
pub async fn delete_me(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    app.delete_person(caller).await?;
    Ok(HttpResponse::NoContent().finish())
}
