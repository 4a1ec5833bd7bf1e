//! Payments: provider onboarding to Stripe Connect, Stripe's webhooks, and the ledger's sums
//! (a provider's earnings, a renter's spend).

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use app::App;
use app::money::payments::{Payouts, Statement, WebhookOutcome};
use chrono::{DateTime, Utc};
use domain::OrgId;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    Forbidden, InvalidSignature, InvalidToken, NotFound, PaymentProviderError,
    PaymentsNotConfigured, Unauthenticated,
};
use crate::extract::Auth;

/// An organisation's Stripe Connect account.
#[derive(Debug, Serialize, ToSchema)]
pub struct PayoutsView {
    pub account_id: String,
    pub charges_enabled: bool,
    pub payouts_enabled: bool,
    /// Stripe's onboarding page for this account (a fresh link on every onboarding call).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl From<Payouts> for PayoutsView {
    fn from(p: Payouts) -> Self {
        Self {
            account_id: p.account_id,
            charges_enabled: p.charges_enabled,
            payouts_enabled: p.payouts_enabled,
            url: p.onboarding_url,
        }
    }
}

/// Start or continue payout onboarding: creates the organisation's Connect Express account
/// the first time (only ever one, however often or concurrently this is called) and returns
/// a link to Stripe's onboarding. `account.updated` webhooks keep the flags current.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "start_payouts_onboarding", 
    tag = "payments",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    responses(
        (status = 200, description = "The account and the onboarding link", body = PayoutsView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, PaymentsNotConfigured, PaymentProviderError)>,
    )
)]
#[post("/orgs/{id}/payouts/onboarding")]
pub async fn onboarding(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let account = app
        .onboard_payouts(caller, OrgId::from_uuid(id.into_inner()))
        .await?;
    Ok(HttpResponse::Ok().json(PayoutsView::from(account)))
}

/// The organisation's payout account, if onboarding has started.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_org_payouts", 
    tag = "payments",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    responses(
        (status = 200, description = "The account", body = PayoutsView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[get("/orgs/{id}/payouts")]
pub async fn payouts(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let account = app
        .payouts(caller, OrgId::from_uuid(id.into_inner()))
        .await?
        .ok_or(app::AppError::NotFound("payout account"))?;
    Ok(HttpResponse::Ok().json(PayoutsView::from(account)))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookAnswer {
    pub received: bool,
    /// `processed`, `duplicate` (this event id was handled before) or `ignored`.
    pub outcome: &'static str,
}

/// Stripe's webhook endpoint. The `Stripe-Signature` header is checked over the raw body
/// with the endpoint secret and a 300 s tolerance; a forged or stale delivery gets 400 and
/// changes nothing. Each event id is acted on once.
#[utoipa::path(extensions(("x-rate-class" = json!("unlimited"))), operation_id = "stripe_webhook", 
    tag = "payments",
    request_body(content = String, content_type = "application/json", description = "A Stripe event, exactly as Stripe sent it"),
    params(("Stripe-Signature" = String, Header, description = "`t=…,v1=…`", pattern = "^[!-~]*$")),
    responses(
        (status = 200, description = "Accepted", body = WebhookAnswer),
        Problems<(InvalidSignature, PaymentsNotConfigured)>,
    )
)]
#[post("/webhooks/stripe")]
pub async fn webhook(
    app: web::Data<App>,
    req: HttpRequest,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let signature = req
        .headers()
        .get("stripe-signature")
        .and_then(|v| v.to_str().ok());
    let outcome = app.stripe_webhook(&body, signature).await?;
    Ok(HttpResponse::Ok().json(WebhookAnswer {
        received: true,
        outcome: match outcome {
            WebhookOutcome::Processed => "processed",
            WebhookOutcome::Duplicate => "duplicate",
            WebhookOutcome::Ignored => "ignored",
        },
    }))
}

/// One money movement.
#[derive(Debug, Serialize, ToSchema)]
pub struct LedgerEntryView {
    pub id: Uuid,
    pub booking_id: Uuid,
    /// `charge`, `fee`, `transfer`, `refund`, `fee_refund`, `transfer_reversal` or
    /// `not_collected`.
    pub kind: String,
    /// Signed minor units: money back is negative.
    pub amount: i64,
    pub currency: String,
    /// The PaymentIntent or refund it came from.
    pub stripe_object_id: Option<String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TotalView {
    pub currency: String,
    pub amount: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StatementView {
    /// Sums of the entries that count, per currency.
    pub totals: Vec<TotalView>,
    pub entries: Vec<LedgerEntryView>,
}

impl From<Statement> for StatementView {
    fn from(s: Statement) -> Self {
        Self {
            totals: s
                .totals
                .into_iter()
                .map(|total| TotalView {
                    currency: total.currency().code().to_owned(),
                    amount: total.minor(),
                })
                .collect(),
            entries: s
                .entries
                .into_iter()
                .map(|e| LedgerEntryView {
                    id: e.id.into(),
                    booking_id: e.booking_id.into(),
                    kind: e.kind.as_str().to_owned(),
                    amount: e.amount.minor(),
                    currency: e.amount.currency().code().to_owned(),
                    stripe_object_id: e.stripe_object_id,
                    created_at: e.created_at,
                })
                .collect(),
        }
    }
}

/// A provider's earnings: transfers to it less reversals, with the ledger rows behind them
/// (the organisation's owners and admins).
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_org_earnings", 
    tag = "payments",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    responses(
        (status = 200, description = "Totals and entries", body = StatementView),
        Problems<(InvalidToken, Unauthenticated, Forbidden)>,
    )
)]
#[get("/orgs/{id}/earnings")]
pub async fn earnings(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let statement = app
        .earnings(caller, OrgId::from_uuid(id.into_inner()))
        .await?;
    Ok(HttpResponse::Ok().json(StatementView::from(statement)))
}

/// The caller's spend as a renter: charges less refunds, with the ledger rows behind them.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_my_spend", 
    tag = "payments",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Totals and entries", body = StatementView),
        Problems<(InvalidToken, Unauthenticated)>,
    )
)]
#[get("/me/spend")]
pub async fn spend(app: web::Data<App>, Auth(caller): Auth) -> Result<HttpResponse, ApiError> {
    let statement = app.spend(caller).await?;
    Ok(HttpResponse::Ok().json(StatementView::from(statement)))
}
