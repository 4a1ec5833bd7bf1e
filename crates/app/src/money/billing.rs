//! Plans and Pro. A plan is data: its rate-limit scale, its daily verification runs, its
//! spot-check period and whether it allows private reports; the free plan's figures are the
//! configured defaults, Pro's its `pro_*` settings. An organisation is Pro while its Stripe
//! subscription is `active` or `trialing`, and through a grace period (`past_due` for at most
//! `billing_grace_secs`). Stripe Billing holds the truth: every billing webhook only
//! names a subscription, which is then read from Stripe and recorded — so duplicated and
//! reordered events end in the state Stripe holds. Leaving Pro deletes nothing.

use std::sync::Arc;

use chrono::{DateTime, Duration, TimeZone, Utc};
use domain::{OrgId, Role};
use payments::{CheckoutRequest, PaymentError, PaymentProvider};
use store::{BillingRecord, SubscriptionState};

use crate::money::payments::WebhookOutcome;
use crate::{App, AppError, Caller, Credential};

/// How long a credential's rate-limit scale is reused before its plan is read again (a
/// change made on this process clears it at once).
const SCALE_TTL: std::time::Duration = std::time::Duration::from_secs(30);
/// Most credentials remembered (the least used are forgotten first).
const SCALE_CACHE_MAX: u64 = 100_000;

/// Credential digest → its rate-limit scale.
pub(crate) type ScaleCache = moka::sync::Cache<String, u32>;

pub(crate) fn scale_cache() -> ScaleCache {
    moka::sync::Cache::builder()
        .max_capacity(SCALE_CACHE_MAX)
        .time_to_live(SCALE_TTL)
        .build()
}

/// A plan's name as the API shows it.
pub const FREE: &str = "free";
pub const PRO: &str = "pro";

/// What a plan allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub name: &'static str,
    /// Every rate-limit class's requests a minute, times this.
    pub rate_limit_scale: u32,
    pub verification_runs_per_day: u32,
    /// Each verified listing gets one spot check in every period this long.
    pub spot_check_every_secs: u64,
    /// Whether verifications may be asked for with `visibility: private`.
    pub private_reports: bool,
}

/// An organisation's plan and its subscription as last read from Stripe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Billing {
    pub plan: Plan,
    /// Stripe's status of the subscription; `None` without one.
    pub status: Option<String>,
    pub current_period_end: Option<DateTime<Utc>>,
    pub cancel_at_period_end: bool,
    /// While a payment is overdue: when Pro ends unless it is paid.
    pub grace_ends_at: Option<DateTime<Utc>>,
}

/// Stripe's statuses of a subscription that has not ended.
fn live(status: &str) -> bool {
    matches!(
        status,
        "active" | "trialing" | "past_due" | "unpaid" | "paused"
    )
}

/// The subscription that decides a customer's plan: among those billing `price`, the best
/// status (active or trialing, then past due, then other live ones, then ended ones), the
/// latest period first.
fn best_subscription<'a>(
    all: &'a [payments::Subscription],
    price: &str,
) -> Option<&'a payments::Subscription> {
    let rank = |status: &str| match status {
        "active" | "trialing" => 3,
        "past_due" => 2,
        s if live(s) => 1,
        _ => 0,
    };
    all.iter()
        .filter(|s| s.prices.iter().any(|p| p == price))
        .max_by_key(|s| (rank(&s.status), s.current_period_end.unwrap_or(0)))
}

impl App {
    /// The plans, free first.
    pub fn plans(&self) -> [Plan; 2] {
        let c = self.config();
        [
            Plan {
                name: FREE,
                rate_limit_scale: 1,
                verification_runs_per_day: c.limits.verification_runs_per_org_per_day,
                spot_check_every_secs: c.verification.spot_check_every_secs,
                private_reports: false,
            },
            Plan {
                name: PRO,
                rate_limit_scale: c.pro.rate_limit_scale,
                verification_runs_per_day: c.pro.verification_runs_per_org_per_day,
                spot_check_every_secs: c.pro.spot_check_every_secs,
                private_reports: true,
            },
        ]
    }

    /// When the grace of an overdue subscription ends.
    fn grace_end(&self, record: &BillingRecord) -> Option<DateTime<Utc>> {
        let grace = Duration::seconds(self.config().payments.billing_grace_secs as i64);
        match record.subscription_status.as_deref() {
            Some("past_due") => record.past_due_since.map(|since| since + grace),
            _ => None,
        }
    }

    /// The plan a billing record buys at `now`.
    fn plan_at(&self, record: Option<&BillingRecord>, now: DateTime<Utc>) -> Plan {
        let [free, pro] = self.plans();
        let Some(record) = record else {
            return free;
        };
        match record.subscription_status.as_deref() {
            Some("active" | "trialing") => pro,
            Some("past_due") if self.grace_end(record).is_some_and(|end| now < end) => pro,
            _ => free,
        }
    }

    /// The organisation's plan now.
    pub async fn plan_of(&self, org: OrgId) -> Result<Plan, AppError> {
        let record = self.db().billing_of(org.as_uuid()).await?;
        Ok(self.plan_at(record.as_ref(), Utc::now()))
    }

    /// The organisation's plan and subscription, for its members.
    pub async fn billing(&self, caller: Caller, org: OrgId) -> Result<Billing, AppError> {
        self.require_role(caller, org, Role::Member).await?;
        let record = self.db().billing_of(org.as_uuid()).await?;
        Ok(Billing {
            plan: self.plan_at(record.as_ref(), Utc::now()),
            status: record.as_ref().and_then(|r| r.subscription_status.clone()),
            current_period_end: record.as_ref().and_then(|r| r.current_period_end),
            cancel_at_period_end: record.as_ref().is_some_and(|r| r.cancel_at_period_end),
            grace_ends_at: record.as_ref().and_then(|r| self.grace_end(r)),
        })
    }

    /// The rate-limit scale of a request whose `Authorization` is `bearer`: an organisation key's
    /// organisation's plan, the best plan among a person's organisations for their own
    /// credentials, 1 for a credential that proves nothing.
    pub async fn rate_scale_of(&self, bearer: &str) -> u32 {
        let key = crate::limits::credential_subject(bearer);
        if let Some(scale) = self.inner.money.plan_scales.get(&key) {
            return scale;
        }
        let scale = match self.scale_of_credential(bearer).await {
            Ok(scale) => scale,
            Err(e) => {
                tracing::warn!(error = %e, "a caller's plan could not be read; free limits apply");
                return 1;
            }
        };
        self.inner.money.plan_scales.insert(key, scale);
        scale
    }

    /// [`App::rate_scale_of`] when it is known without reading anything.
    pub fn cached_rate_scale(&self, bearer: &str) -> Option<u32> {
        self.inner
            .money
            .plan_scales
            .get(&crate::limits::credential_subject(bearer))
    }

    async fn scale_of_credential(&self, authorization: &str) -> Result<u32, AppError> {
        let bearer = match authorization.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => return Ok(1),
        };
        let Ok(caller) = self.authenticate(bearer).await else {
            return Ok(1);
        };
        let orgs = match caller.via {
            Credential::OrgKey { org, .. } => vec![org],
            _ => self
                .db()
                .orgs_of(caller.user_id)
                .await?
                .into_iter()
                .map(|(org, _)| org.id)
                .collect(),
        };
        let mut scale = 1;
        for org in orgs {
            scale = scale.max(self.plan_of(org).await?.rate_limit_scale);
        }
        Ok(scale)
    }

    /// Pro's price and the payment provider, or why there is no checkout here.
    fn billing_provider(&self) -> Result<(&Arc<dyn PaymentProvider>, String), AppError> {
        let provider = self.payments().ok_or(AppError::PaymentsNotConfigured)?;
        let price = self
            .config()
            .payments
            .stripe_pro_price_id
            .clone()
            .ok_or(AppError::BillingNotConfigured)?;
        Ok((provider, price))
    }

    /// A Stripe Checkout Session for Pro; its address. The organisation's Customer is
    /// created the first time (once, however many calls race). An organisation that is
    /// already subscribed manages its plan in the Billing Portal instead.
    pub async fn billing_checkout(&self, caller: Caller, org: OrgId) -> Result<String, AppError> {
        self.require_role(caller, org, Role::Admin).await?;
        let (provider, price) = self.billing_provider()?;
        let record = self.customer_of(provider, org).await?;
        if record.subscription_status.as_deref().is_some_and(live) {
            return Err(AppError::AlreadySubscribed);
        }
        let base = self.config().server.public_url.trim_end_matches('/');
        provider
            .checkout_session(&CheckoutRequest {
                customer: record.stripe_customer_id,
                price,
                org_id: org.to_string(),
                success_url: format!("{base}/v1/orgs/{org}/billing"),
                cancel_url: format!("{base}/v1/orgs/{org}/billing"),
            })
            .await
            .map_err(|e| AppError::PaymentProvider(e.to_string()))
    }

    /// A Billing Portal session where the organisation's admins manage their plan.
    pub async fn billing_portal(&self, caller: Caller, org: OrgId) -> Result<String, AppError> {
        self.require_role(caller, org, Role::Admin).await?;
        let (provider, _) = self.billing_provider()?;
        let record = self.customer_of(provider, org).await?;
        let base = self.config().server.public_url.trim_end_matches('/');
        provider
            .portal_session(
                &record.stripe_customer_id,
                &format!("{base}/v1/orgs/{org}/billing"),
            )
            .await
            .map_err(|e| AppError::PaymentProvider(e.to_string()))
    }

    /// The organisation's billing row, its Customer created at Stripe the first time.
    /// Concurrent callers send one idempotency key, so Stripe makes one Customer; one whose
    /// twin is still in flight gets 409 and looks again a moment later.
    async fn customer_of(
        &self,
        provider: &Arc<dyn PaymentProvider>,
        org: OrgId,
    ) -> Result<BillingRecord, AppError> {
        let mut attempt = 0;
        loop {
            if let Some(record) = self.db().billing_of(org.as_uuid()).await? {
                return Ok(record);
            }
            let name = self
                .db()
                .org_by_id(org)
                .await?
                .map(|o| o.name)
                .ok_or(AppError::NotFound("organisation"))?;
            match provider
                .create_customer(&org.to_string(), &name, &format!("org-{org}-customer"))
                .await
            {
                Ok(customer) => {
                    return Ok(self
                        .db()
                        .keep_customer(org.as_uuid(), &customer, Utc::now())
                        .await?);
                }
                Err(PaymentError::Refused { status: 409, .. }) if attempt < 5 => {
                    attempt += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(200 * attempt)).await;
                }
                Err(e) => return Err(AppError::PaymentProvider(e.to_string())),
            }
        }
    }

    /// A billing event named a subscription (and its customer). Nothing in the event is
    /// trusted for the state: the subscription is read from Stripe to learn its customer,
    /// then every subscription of that customer, and the best one billing Pro's price
    /// (active or trialing, then past due, then the rest; the latest period first) is
    /// recorded as the organisation's — so duplicated, reordered and concurrent deliveries
    /// all end in the state Stripe holds, a late event of an old subscription never undoes
    /// a newer one, and a subscription to another price never buys Pro. Recording repeats
    /// while Stripe's answer changes under it (a delivery racing a newer one).
    pub(crate) async fn subscription_changed(
        &self,
        subscription: Option<&str>,
        customer: Option<&str>,
    ) -> Result<WebhookOutcome, AppError> {
        let Some(subscription) = subscription else {
            return Ok(WebhookOutcome::Ignored);
        };
        let (Some(provider), Some(price)) = (
            self.payments(),
            self.config().payments.stripe_pro_price_id.as_deref(),
        ) else {
            return Ok(WebhookOutcome::Ignored);
        };
        let failed = |e: PaymentError| AppError::PaymentProvider(e.to_string());
        let named = provider.subscription(subscription).await.map_err(failed)?;
        if customer.is_some_and(|c| c != named.customer) {
            return Err(AppError::InvalidSignature(
                "the event's customer is not the subscription's".into(),
            ));
        }
        let Some(mut record) = self.db().billing_of_customer(&named.customer).await? else {
            // Not a customer this server created (another product on the same account).
            return Ok(WebhookOutcome::Ignored);
        };
        let mut recorded: Option<SubscriptionState> = None;
        for _ in 0..3 {
            let all = provider
                .subscriptions_of(&named.customer)
                .await
                .map_err(failed)?;
            let Some(best) = best_subscription(&all, price) else {
                return Ok(WebhookOutcome::Ignored);
            };
            let now = Utc::now();
            let same = record.subscription_id.as_deref() == Some(best.id.as_str());
            let past_due_since = (best.status == "past_due").then(|| {
                record
                    .past_due_since
                    .filter(|_| same && record.subscription_status.as_deref() == Some("past_due"))
                    .unwrap_or(now)
            });
            let state = SubscriptionState {
                id: best.id.clone(),
                status: best.status.clone(),
                current_period_end: best
                    .current_period_end
                    .and_then(|t| Utc.timestamp_opt(t, 0).single()),
                cancel_at_period_end: best.cancel_at_period_end,
                past_due_since,
            };
            let settled = recorded.as_ref().is_some_and(|r| {
                (r.id.as_str(), r.status.as_str(), r.cancel_at_period_end)
                    == (
                        state.id.as_str(),
                        state.status.as_str(),
                        state.cancel_at_period_end,
                    )
            });
            if settled {
                break;
            }
            self.db()
                .record_subscription(record.org_id, &state, now)
                .await?;
            recorded = Some(state);
            record = self
                .db()
                .billing_of(record.org_id)
                .await?
                .ok_or_else(|| AppError::Internal("billing row vanished".into()))?;
        }
        // Limits follow the plan at once here (other replicas within SCALE_TTL).
        self.inner.money.plan_scales.invalidate_all();
        Ok(WebhookOutcome::Processed)
    }
}
