//! The Pro plan of an organisation: Stripe Checkout to subscribe, the Billing Portal to
//! manage it, and the plan and subscription as Stripe last said.

use actix_web::{HttpResponse, get, post, web};
use app::App;
use chrono::{DateTime, Utc};
use domain::OrgId;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::ApiError;
use crate::error::Problems;
use crate::error::problem::{
    AlreadySubscribed, Forbidden, InvalidToken, NotFound, PaymentProviderError,
    PaymentsNotConfigured, Unauthenticated,
};
use crate::extract::Auth;

/// Where to send the person: a Stripe-hosted page.
#[derive(Debug, Serialize, ToSchema)]
pub struct BillingUrlView {
    pub url: String,
}

/// What a plan allows.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlanLimitsView {
    /// Each rate-limit class's requests a minute, times this.
    pub rate_limit_scale: u32,
    pub verification_runs_per_day: u32,
    /// Each verified listing gets an unannounced spot check once in every period this long.
    pub spot_check_every_secs: u64,
    /// Whether verifications may be asked for with `visibility: private`.
    pub private_reports: bool,
}

/// An organisation's plan and its subscription.
#[derive(Debug, Serialize, ToSchema)]
pub struct BillingView {
    /// `free` or `pro`.
    pub plan: &'static str,
    /// Stripe's status of the subscription (`active`, `trialing`, `past_due`, `canceled`,
    /// ...); `null` without one.
    pub status: Option<String>,
    pub current_period_end: Option<DateTime<Utc>>,
    pub cancel_at_period_end: bool,
    /// While a payment is overdue: when Pro ends unless it is paid.
    pub grace_ends_at: Option<DateTime<Utc>>,
    pub limits: PlanLimitsView,
}

/// Subscribe to Pro: a Stripe Checkout Session (subscription mode, the configured price)
/// for the organisation's Customer, created once however often or concurrently this is
/// called. The plan changes when Stripe's webhooks say the subscription is active.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "create_billing_checkout", 
    tag = "organisations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    responses(
        (status = 200, description = "The Checkout Session's address", body = BillingUrlView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, AlreadySubscribed, PaymentsNotConfigured, PaymentProviderError)>,
    )
)]
#[post("/orgs/{id}/billing/checkout")]
pub async fn checkout(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let url = app
        .billing_checkout(caller, OrgId::from_uuid(id.into_inner()))
        .await?;
    Ok(HttpResponse::Ok().json(BillingUrlView { url }))
}

/// Manage the plan (payment method, invoices, cancellation): a Stripe Billing Portal session.
#[utoipa::path(extensions(("x-rate-class" = json!("writes"))), operation_id = "create_billing_portal", 
    tag = "organisations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    responses(
        (status = 200, description = "The portal session's address", body = BillingUrlView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound, PaymentsNotConfigured, PaymentProviderError)>,
    )
)]
#[post("/orgs/{id}/billing/portal")]
pub async fn portal(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let url = app
        .billing_portal(caller, OrgId::from_uuid(id.into_inner()))
        .await?;
    Ok(HttpResponse::Ok().json(BillingUrlView { url }))
}

/// The organisation's plan, its limits, and its subscription as Stripe last said.
#[utoipa::path(extensions(("x-rate-class" = json!("reads"))), operation_id = "get_org_billing", 
    tag = "organisations",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The organisation's id")),
    responses(
        (status = 200, description = "The plan", body = BillingView),
        Problems<(InvalidToken, Unauthenticated, Forbidden, NotFound)>,
    )
)]
#[get("/orgs/{id}/billing")]
pub async fn billing(
    app: web::Data<App>,
    Auth(caller): Auth,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let b = app
        .billing(caller, OrgId::from_uuid(id.into_inner()))
        .await?;
    Ok(HttpResponse::Ok().json(BillingView {
        plan: b.plan.name,
        status: b.status,
        current_period_end: b.current_period_end,
        cancel_at_period_end: b.cancel_at_period_end,
        grace_ends_at: b.grace_ends_at,
        limits: PlanLimitsView {
            rate_limit_scale: b.plan.rate_limit_scale,
            verification_runs_per_day: b.plan.verification_runs_per_day,
            spot_check_every_secs: b.plan.spot_check_every_secs,
            private_reports: b.plan.private_reports,
        },
    }))
}
