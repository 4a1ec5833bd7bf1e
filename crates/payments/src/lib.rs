//! Money through Stripe Connect, behind [`PaymentProvider`]: Express accounts for providers and
//! their onboarding links, destination-charge PaymentIntents for bookings, their cancellation,
//! and refunds that reverse the transfer and the fee in proportion. Every request that creates
//! or changes something carries an idempotency key derived from what it is for, so a retry can
//! never charge or refund twice.
//!
//! [`events`] checks `Stripe-Signature` and reads Stripe's events; [`testing`] (feature `testing`) is a local server
//! that speaks Stripe's wire format and records what it received.

pub mod events;

#[cfg(feature = "testing")]
pub mod testing;

use std::collections::HashMap;
use std::str::FromStr;
use std::time::Duration;

use stripe::{Client, ClientBuilder, IdempotencyKey, RequestStrategy, StripeError, StripeRequest};

/// A connected account as far as payouts are concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectedAccount {
    pub id: String,
    pub charges_enabled: bool,
    pub payouts_enabled: bool,
}

/// A charge to make: a destination charge of `amount` minor units, `fee` of which the
/// platform keeps, the rest transferred to `destination`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charge {
    pub amount: i64,
    /// ISO 4217, any case.
    pub currency: String,
    pub fee: i64,
    pub destination: String,
    pub booking_id: String,
    /// Set for the charge of a raise of the booking's bid (`metadata[bid_raise_id]`).
    pub bid_raise_id: Option<String>,
    pub idempotency_key: String,
}

/// A PaymentIntent as created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Intent {
    pub id: String,
    pub client_secret: Option<String>,
    pub status: String,
}

/// A refund to make of part or all of a PaymentIntent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundRequest {
    pub payment_intent: String,
    pub amount: i64,
    pub booking_id: String,
    pub idempotency_key: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refund {
    pub id: String,
    pub amount: i64,
    pub status: Option<String>,
    /// `metadata[booking_id]`, as we set it.
    pub booking_id: Option<String>,
}

impl Refund {
    fn of(refund: stripe_core::Refund) -> Self {
        Self {
            id: refund.id.to_string(),
            amount: refund.amount,
            status: refund.status,
            booking_id: refund
                .metadata
                .as_ref()
                .and_then(|m| m.get("booking_id").cloned()),
        }
    }
}

/// A Checkout Session that starts a subscription to `price` for `customer`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutRequest {
    pub customer: String,
    pub price: String,
    /// Set as `client_reference_id` and in the subscription's metadata.
    pub org_id: String,
    pub success_url: String,
    pub cancel_url: String,
}

/// A subscription as Stripe holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    pub id: String,
    pub customer: String,
    /// Stripe's status: `active`, `trialing`, `past_due`, `canceled`, `unpaid`,
    /// `incomplete`, `incomplete_expired`, `paused`.
    pub status: String,
    /// Unix seconds: the end of the current period (its first item's).
    pub current_period_end: Option<i64>,
    pub cancel_at_period_end: bool,
    /// The prices it bills.
    pub prices: Vec<String>,
}

impl Subscription {
    fn of(sub: &stripe_billing::Subscription) -> Self {
        Self {
            id: sub.id.to_string(),
            customer: sub.customer.id().to_string(),
            status: sub.status.as_str().to_owned(),
            current_period_end: sub.items.data.first().map(|i| i.current_period_end),
            cancel_at_period_end: sub.cancel_at_period_end,
            prices: sub
                .items
                .data
                .iter()
                .map(|i| i.price.id.to_string())
                .collect(),
        }
    }
}

/// Why a payment operation did not happen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PaymentError {
    /// Stripe answered with an error (4xx or 5xx): its status and message.
    #[error("Stripe refused the request (HTTP {status}): {message}")]
    Refused { status: u16, message: String },
    /// Stripe could not be reached or did not answer in time: the outcome is unknown, and
    /// retrying with the same idempotency key is safe.
    #[error("Stripe did not answer: {0}")]
    Unreachable(String),
    /// The request could not be made (a bad key, a bad amount): nothing was sent.
    #[error("payment request not sent: {0}")]
    Invalid(String),
}

/// What the marketplace needs from a payment provider.
#[async_trait::async_trait]
pub trait PaymentProvider: Send + Sync + std::fmt::Debug {
    /// Creates a Connect Express account for an organisation (once per key).
    async fn create_account(
        &self,
        org_id: &str,
        idempotency_key: &str,
    ) -> Result<ConnectedAccount, PaymentError>;
    /// A link that takes the provider through Stripe's onboarding.
    async fn onboarding_link(
        &self,
        account: &str,
        refresh_url: &str,
        return_url: &str,
    ) -> Result<String, PaymentError>;
    async fn create_intent(&self, charge: &Charge) -> Result<Intent, PaymentError>;
    async fn cancel_intent(&self, intent: &str, idempotency_key: &str) -> Result<(), PaymentError>;
    /// Refunds, reversing the transfer and the application fee in proportion.
    async fn refund(&self, request: &RefundRequest) -> Result<Refund, PaymentError>;
    /// The refunds made of a PaymentIntent (the most recent 100).
    async fn refunds_of(&self, intent: &str) -> Result<Vec<Refund>, PaymentError>;
    /// Creates the Customer an organisation pays its plan as (once per key).
    async fn create_customer(
        &self,
        org_id: &str,
        name: &str,
        idempotency_key: &str,
    ) -> Result<String, PaymentError>;
    /// A Checkout Session in subscription mode; its `url`.
    async fn checkout_session(&self, request: &CheckoutRequest) -> Result<String, PaymentError>;
    /// A Billing Portal session for `customer`; its `url`.
    async fn portal_session(
        &self,
        customer: &str,
        return_url: &str,
    ) -> Result<String, PaymentError>;
    /// A subscription as Stripe holds it now.
    async fn subscription(&self, id: &str) -> Result<Subscription, PaymentError>;
    /// Every subscription of a customer, ended ones too (the most recent 100).
    async fn subscriptions_of(&self, customer: &str) -> Result<Vec<Subscription>, PaymentError>;
}

/// The real Stripe, through `async-stripe`.
#[derive(Clone)]
pub struct StripeProvider {
    client: Client,
    timeout: Duration,
}

impl std::fmt::Debug for StripeProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The client holds the secret key.
        f.debug_struct("StripeProvider").finish_non_exhaustive()
    }
}

impl StripeProvider {
    /// A client for `secret_key`, talking to `api_base` (Stripe's own when `None`).
    pub fn new(
        secret_key: &str,
        api_base: Option<&str>,
        timeout: Duration,
    ) -> Result<Self, PaymentError> {
        let mut builder = ClientBuilder::new(secret_key)
            .timeout(timeout)
            .request_strategy(RequestStrategy::Once);
        if let Some(base) = api_base {
            builder = builder.url(base);
        }
        let client = builder
            .build()
            .map_err(|e| PaymentError::Invalid(e.to_string()))?;
        Ok(Self { client, timeout })
    }
}

fn strategy(key: &str) -> Result<RequestStrategy, PaymentError> {
    IdempotencyKey::new(key)
        .map(RequestStrategy::Idempotent)
        .map_err(|e| PaymentError::Invalid(format!("idempotency key: {e:?}")))
}

fn failed(error: StripeError, timeout: Duration) -> PaymentError {
    match error {
        StripeError::Stripe(api, status) => PaymentError::Refused {
            status,
            message: api
                .message
                .clone()
                .unwrap_or_else(|| format!("{:?}", api.type_)),
        },
        StripeError::Timeout => {
            PaymentError::Unreachable(format!("no answer within {} ms", timeout.as_millis()))
        }
        StripeError::ClientError(why) => PaymentError::Unreachable(why),
        StripeError::JSONDeserialize(why) => {
            PaymentError::Unreachable(format!("an answer that is not Stripe's: {why}"))
        }
        StripeError::ConfigError(why) => PaymentError::Invalid(why),
    }
}

fn currency(code: &str) -> stripe_types::Currency {
    // Stripe's currency codes are lower case; parsing cannot fail (unknown codes pass as is).
    match stripe_types::Currency::from_str(&code.to_ascii_lowercase()) {
        Ok(c) => c,
        Err(never) => match never {},
    }
}

#[async_trait::async_trait]
impl PaymentProvider for StripeProvider {
    async fn create_account(
        &self,
        org_id: &str,
        idempotency_key: &str,
    ) -> Result<ConnectedAccount, PaymentError> {
        use stripe_connect::account::{
            CreateAccount, CreateAccountCapabilities, CreateAccountCapabilitiesCardPayments,
            CreateAccountCapabilitiesTransfers, CreateAccountType,
        };
        let mut capabilities = CreateAccountCapabilities::new();
        capabilities.card_payments = Some(CreateAccountCapabilitiesCardPayments {
            requested: Some(true),
        });
        capabilities.transfers = Some(CreateAccountCapabilitiesTransfers {
            requested: Some(true),
        });
        let account = CreateAccount::new()
            .type_(CreateAccountType::Express)
            .capabilities(capabilities)
            .metadata(HashMap::from([("org_id".to_owned(), org_id.to_owned())]))
            .customize()
            .request_strategy(strategy(idempotency_key)?)
            .send(&self.client)
            .await
            .map_err(|e| failed(e, self.timeout))?;
        Ok(ConnectedAccount {
            id: account.id.to_string(),
            charges_enabled: account.charges_enabled.unwrap_or(false),
            payouts_enabled: account.payouts_enabled.unwrap_or(false),
        })
    }

    async fn onboarding_link(
        &self,
        account: &str,
        refresh_url: &str,
        return_url: &str,
    ) -> Result<String, PaymentError> {
        use stripe_connect::account_link::{CreateAccountLink, CreateAccountLinkType};
        let link = CreateAccountLink::new(account, CreateAccountLinkType::AccountOnboarding)
            .refresh_url(refresh_url)
            .return_url(return_url)
            .send(&self.client)
            .await
            .map_err(|e| failed(e, self.timeout))?;
        Ok(link.url)
    }

    async fn create_intent(&self, charge: &Charge) -> Result<Intent, PaymentError> {
        use stripe_core::payment_intent::{
            CreatePaymentIntent, CreatePaymentIntentAutomaticPaymentMethods,
            CreatePaymentIntentTransferData,
        };
        let intent = CreatePaymentIntent::new(charge.amount, currency(&charge.currency))
            .application_fee_amount(charge.fee)
            .transfer_data(CreatePaymentIntentTransferData::new(
                charge.destination.as_str(),
            ))
            .automatic_payment_methods(CreatePaymentIntentAutomaticPaymentMethods::new(true))
            .metadata(
                std::iter::once(("booking_id".to_owned(), charge.booking_id.clone()))
                    .chain(
                        charge
                            .bid_raise_id
                            .clone()
                            .map(|raise| ("bid_raise_id".to_owned(), raise)),
                    )
                    .collect::<HashMap<_, _>>(),
            )
            .customize()
            .request_strategy(strategy(&charge.idempotency_key)?)
            .send(&self.client)
            .await
            .map_err(|e| failed(e, self.timeout))?;
        Ok(Intent {
            id: intent.id.to_string(),
            client_secret: intent.client_secret,
            status: intent.status.as_str().to_owned(),
        })
    }

    async fn cancel_intent(&self, intent: &str, idempotency_key: &str) -> Result<(), PaymentError> {
        use stripe_core::payment_intent::CancelPaymentIntent;
        CancelPaymentIntent::new(intent)
            .customize()
            .request_strategy(strategy(idempotency_key)?)
            .send(&self.client)
            .await
            .map_err(|e| failed(e, self.timeout))?;
        Ok(())
    }

    async fn refund(&self, request: &RefundRequest) -> Result<Refund, PaymentError> {
        use stripe_core::refund::CreateRefund;
        let refund = CreateRefund::new()
            .payment_intent(request.payment_intent.as_str())
            .amount(request.amount)
            .reverse_transfer(true)
            .refund_application_fee(true)
            .metadata(HashMap::from([(
                "booking_id".to_owned(),
                request.booking_id.clone(),
            )]))
            .customize()
            .request_strategy(strategy(&request.idempotency_key)?)
            .send(&self.client)
            .await
            .map_err(|e| failed(e, self.timeout))?;
        Ok(Refund::of(refund))
    }

    async fn refunds_of(&self, intent: &str) -> Result<Vec<Refund>, PaymentError> {
        use stripe_core::refund::ListRefund;
        let list = ListRefund::new()
            .payment_intent(intent)
            .limit(100)
            .send(&self.client)
            .await
            .map_err(|e| failed(e, self.timeout))?;
        Ok(list.data.into_iter().map(Refund::of).collect())
    }

    async fn create_customer(
        &self,
        org_id: &str,
        name: &str,
        idempotency_key: &str,
    ) -> Result<String, PaymentError> {
        use stripe_core::customer::CreateCustomer;
        let customer = CreateCustomer::new()
            .name(name)
            .metadata(HashMap::from([("org_id".to_owned(), org_id.to_owned())]))
            .customize()
            .request_strategy(strategy(idempotency_key)?)
            .send(&self.client)
            .await
            .map_err(|e| failed(e, self.timeout))?;
        Ok(customer.id.to_string())
    }

    async fn checkout_session(&self, request: &CheckoutRequest) -> Result<String, PaymentError> {
        use stripe_checkout::CheckoutSessionMode;
        use stripe_checkout::checkout_session::{
            CreateCheckoutSession, CreateCheckoutSessionLineItems,
            CreateCheckoutSessionSubscriptionData,
        };
        let metadata = HashMap::from([("org_id".to_owned(), request.org_id.clone())]);
        let mut subscription = CreateCheckoutSessionSubscriptionData::new();
        subscription.metadata = Some(metadata.clone());
        let mut item = CreateCheckoutSessionLineItems::new();
        item.price = Some(request.price.clone());
        item.quantity = Some(1);
        let session = CreateCheckoutSession::new()
            .mode(CheckoutSessionMode::Subscription)
            .customer(request.customer.as_str())
            .client_reference_id(request.org_id.as_str())
            .line_items(vec![item])
            .subscription_data(subscription)
            .metadata(metadata)
            .success_url(request.success_url.as_str())
            .cancel_url(request.cancel_url.as_str())
            .send(&self.client)
            .await
            .map_err(|e| failed(e, self.timeout))?;
        session
            .url
            .ok_or_else(|| PaymentError::Unreachable("a Checkout Session without a url".into()))
    }

    async fn portal_session(
        &self,
        customer: &str,
        return_url: &str,
    ) -> Result<String, PaymentError> {
        use stripe_billing::billing_portal_session::CreateBillingPortalSession;
        let session = CreateBillingPortalSession::new()
            .customer(customer)
            .return_url(return_url)
            .send(&self.client)
            .await
            .map_err(|e| failed(e, self.timeout))?;
        Ok(session.url)
    }

    async fn subscription(&self, id: &str) -> Result<Subscription, PaymentError> {
        use stripe_billing::subscription::RetrieveSubscription;
        let sub = RetrieveSubscription::new(id)
            .send(&self.client)
            .await
            .map_err(|e| failed(e, self.timeout))?;
        Ok(Subscription::of(&sub))
    }

    async fn subscriptions_of(&self, customer: &str) -> Result<Vec<Subscription>, PaymentError> {
        use stripe_billing::subscription::{ListSubscription, ListSubscriptionStatus};
        let list = ListSubscription::new()
            .customer(customer)
            .status(ListSubscriptionStatus::All)
            .limit(100)
            .send(&self.client)
            .await
            .map_err(|e| failed(e, self.timeout))?;
        Ok(list.data.iter().map(Subscription::of).collect())
    }
}
