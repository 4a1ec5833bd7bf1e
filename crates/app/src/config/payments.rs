//! `[payments]`: Stripe Connect, the platform fee and booking holds.

use documented::{Documented, DocumentedFields};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure, redacted};

/// Stripe, the platform's fee, holds and the Pro subscription's billing.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct PaymentSettings {
    /// Stripe's secret key (`sk_…`; also `STRIPE_SECRET_KEY`). Unset: payments `none` —
    /// bookings confirm at once and the ledger records that nothing was collected.
    #[serde(serialize_with = "redacted")]
    pub stripe_secret_key: Option<SecretString>,
    /// Where Stripe's API is (also `STRIPE_API_BASE`; tests point it at a local server).
    /// Unset: Stripe's own.
    pub stripe_api_base: Option<String>,
    /// One call to Stripe longer than this (milliseconds) counts as failed.
    pub stripe_timeout_ms: u64,
    /// The webhook endpoint's signing secret (`whsec_…`; also `STRIPE_WEBHOOK_SECRET`);
    /// required with a Stripe key.
    #[serde(serialize_with = "redacted")]
    pub stripe_webhook_secret: Option<SecretString>,
    /// The platform's fee on every booking, in basis points (1000 = 10 %).
    pub platform_fee_bps: u32,
    /// How long a booking waiting for its payment holds its GPUs.
    pub booking_hold_secs: u64,
    /// The notice an interruptible booking that has started gets when it is displaced (by an
    /// on-demand booking or a higher bid): its access ends this many seconds later.
    pub interrupt_notice_secs: u64,
    /// The Stripe Price (`price_…`, a monthly recurring price) of the Pro plan. Unset: no
    /// checkout; every organisation stays on the free plan.
    pub stripe_pro_price_id: Option<String>,
    /// How long a Pro organisation whose payment is overdue (`past_due`) keeps Pro.
    pub billing_grace_secs: u64,
}

impl Default for PaymentSettings {
    fn default() -> Self {
        Self {
            stripe_secret_key: None,
            stripe_api_base: None,
            stripe_timeout_ms: 10_000,
            stripe_webhook_secret: None,
            platform_fee_bps: 1000,
            booking_hold_secs: 15 * 60,
            interrupt_notice_secs: 120,
            stripe_pro_price_id: None,
            billing_grace_secs: 3 * 24 * 3600,
        }
    }
}

impl PaymentSettings {
    pub(super) fn check(&self) -> Checked {
        ensure(
            self.stripe_secret_key
                .as_ref()
                .is_none_or(|key| key.expose_secret().starts_with("sk_")),
            "stripe_secret_key",
            "must be a secret key (sk_…)",
        )?;
        ensure(
            self.stripe_secret_key.is_none() || self.stripe_webhook_secret.is_some(),
            "stripe_webhook_secret",
            "required with stripe_secret_key (webhooks confirm payments)",
        )?;
        ensure(
            self.stripe_pro_price_id
                .as_ref()
                .is_none_or(|price| price.starts_with("price_")),
            "stripe_pro_price_id",
            "must be a Stripe Price id (price_…)",
        )?;
        ensure(
            self.platform_fee_bps <= 10_000,
            "platform_fee_bps",
            "must be between 0 and 10000",
        )?;
        ensure(
            (1..=86_400).contains(&self.interrupt_notice_secs),
            "interrupt_notice_secs",
            "must be between 1 and 86400",
        )?;
        ensure(
            self.booking_hold_secs >= 60,
            "booking_hold_secs",
            "must be at least 60",
        )
    }
}
