//! Providers onboard to Stripe Connect: one Express account per organisation, a fresh
//! onboarding link on every call.

use std::sync::Arc;

use chrono::Utc;
use domain::{OrgId, Role};
use payments::{PaymentError, PaymentProvider};

use crate::{App, AppError, Caller};

/// An organisation's payout account as the API shows it.
#[derive(Debug, Clone)]
pub struct Payouts {
    pub account_id: String,
    pub charges_enabled: bool,
    pub payouts_enabled: bool,
    /// Where to send the provider to finish onboarding (fresh on every call).
    pub onboarding_url: Option<String>,
}

impl App {
    /// Creates the organisation's Connect Express account once (idempotently, also under
    /// races: Stripe sees one idempotency key per organisation) and a fresh onboarding link.
    pub async fn onboard_payouts(&self, caller: Caller, org: OrgId) -> Result<Payouts, AppError> {
        self.require_role(caller, org, Role::Admin).await?;
        let provider = self.payment_provider()?;
        let account = self.payout_account_of(provider, org).await?;
        let base = self.config().server.public_url.trim_end_matches('/');
        let back = format!("{base}/v1/orgs/{org}/payouts");
        let url = provider
            .onboarding_link(&account.stripe_account_id, &back, &back)
            .await
            .map_err(|e| AppError::PaymentProvider(e.to_string()))?;
        Ok(Payouts {
            account_id: account.stripe_account_id,
            charges_enabled: account.charges_enabled,
            payouts_enabled: account.payouts_enabled,
            onboarding_url: Some(url),
        })
    }

    /// The organisation's account, created at Stripe the first time. Concurrent callers send
    /// the same idempotency key; Stripe answers 409 to one whose twin is still in flight,
    /// so that one waits a moment and looks again.
    async fn payout_account_of(
        &self,
        provider: &Arc<dyn PaymentProvider>,
        org: OrgId,
    ) -> Result<store::PayoutAccountRecord, AppError> {
        let mut attempt = 0;
        loop {
            if let Some(account) = self.db().payout_account(org.as_uuid()).await? {
                return Ok(account);
            }
            match provider
                .create_account(&org.to_string(), &format!("org-{org}-connect-account"))
                .await
            {
                Ok(created) => {
                    return Ok(self
                        .db()
                        .keep_payout_account(
                            org.as_uuid(),
                            &created.id,
                            (created.charges_enabled, created.payouts_enabled),
                            Utc::now(),
                        )
                        .await?);
                }
                Err(PaymentError::Refused { status: 409, .. }) if attempt < 3 => {
                    attempt += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(250 * attempt)).await;
                }
                Err(e) => return Err(AppError::PaymentProvider(e.to_string())),
            }
        }
    }

    /// The organisation's payout account, for its members.
    pub async fn payouts(&self, caller: Caller, org: OrgId) -> Result<Option<Payouts>, AppError> {
        self.require_role(caller, org, Role::Member).await?;
        Ok(self
            .db()
            .payout_account(org.as_uuid())
            .await?
            .map(|a| Payouts {
                account_id: a.stripe_account_id,
                charges_enabled: a.charges_enabled,
                payouts_enabled: a.payouts_enabled,
                onboarding_url: None,
            }))
    }
}
