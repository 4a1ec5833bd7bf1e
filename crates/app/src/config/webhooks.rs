//! `[webhooks]`: outbound deliveries, their retries and budgets.

use documented::{Documented, DocumentedFields};
use serde::{Deserialize, Serialize};

use super::{Checked, ensure, seconds_list};

/// Webhooks: how deliveries are sent and retried.
#[derive(Debug, Clone, Deserialize, Serialize, Documented, DocumentedFields)]
#[serde(deny_unknown_fields, default)]
pub struct WebhookSettings {
    /// Let endpoints be on internal addresses (loopback, private networks): for receivers
    /// on the operator's own network, and tests. Off, such URLs are refused when registered
    /// and at every connection.
    pub webhook_allow_private: bool,
    /// How long after each failed attempt the next is made, seconds (a list; in the
    /// environment, comma-separated). After the last, the delivery has failed; it can be
    /// sent again by hand.
    #[serde(deserialize_with = "seconds_list")]
    pub webhook_retry_schedule_secs: Vec<u64>,
    /// How long an attempt waits for the receiver's answer. Each attempt in a row that got
    /// no answer in time halves the endpoint's next one (four times at most, never under one
    /// second); an answer restores it.
    pub webhook_timeout_ms: u64,
    /// An endpoint all of whose deliveries have failed for this long is disabled, and its
    /// owners are told (by mail, when a mail server is configured).
    pub webhook_disable_after_secs: u64,
    /// How often workers look for events to fan out and deliveries that are due.
    pub webhook_poll_ms: u64,
    /// After a secret is rotated, deliveries are signed with the old secret too for this
    /// long, so receivers can switch over without missing one.
    pub webhook_secret_overlap_secs: u64,
    /// Most endpoints one user, or one organisation, registers.
    pub webhook_endpoints_per_owner: u32,
    /// Most sends in flight at once to one endpoint (across every worker): a receiver that
    /// never answers holds this many senders, never the others.
    pub webhook_in_flight_per_endpoint: u32,
    /// Most sends in flight at once to one owner's endpoints together; owners with
    /// deliveries due are served one at a time in turn, so one owner's backlog cannot delay
    /// another's.
    pub webhook_in_flight_per_owner: u32,
    /// Most test events and deliveries sent again by hand in flight at once per owner: they
    /// are claimed on this budget of their own, before any backlog.
    pub webhook_manual_in_flight_per_owner: u32,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        Self {
            webhook_allow_private: false,
            webhook_retry_schedule_secs: vec![5, 300, 1_800, 7_200, 18_000, 36_000, 36_000],
            webhook_timeout_ms: 10_000,
            webhook_disable_after_secs: 3 * 86_400,
            webhook_poll_ms: 1_000,
            webhook_secret_overlap_secs: 86_400,
            webhook_endpoints_per_owner: 16,
            webhook_in_flight_per_endpoint: 2,
            webhook_in_flight_per_owner: 8,
            webhook_manual_in_flight_per_owner: 2,
        }
    }
}

impl WebhookSettings {
    pub(super) fn check(&self) -> Checked {
        ensure(
            self.webhook_retry_schedule_secs.len() <= 20
                && self
                    .webhook_retry_schedule_secs
                    .iter()
                    .all(|s| (1..=7 * 86_400).contains(s)),
            "webhook_retry_schedule_secs",
            "at most 20 waits, each between 1 second and 7 days (604800)",
        )?;
        ensure(
            (100..=60_000).contains(&self.webhook_timeout_ms),
            "webhook_timeout_ms",
            "must be between 100 and 60000",
        )?;
        ensure(
            self.webhook_disable_after_secs >= 60,
            "webhook_disable_after_secs",
            "must be at least 60",
        )?;
        ensure(
            (10..=60_000).contains(&self.webhook_poll_ms),
            "webhook_poll_ms",
            "must be between 10 and 60000",
        )?;
        ensure(
            self.webhook_secret_overlap_secs <= 7 * 86_400,
            "webhook_secret_overlap_secs",
            "must be at most 7 days (604800)",
        )?;
        ensure(
            (1..=1_000).contains(&self.webhook_endpoints_per_owner),
            "webhook_endpoints_per_owner",
            "must be between 1 and 1000",
        )?;
        for (value, name) in [
            (
                self.webhook_in_flight_per_endpoint,
                "webhook_in_flight_per_endpoint",
            ),
            (
                self.webhook_in_flight_per_owner,
                "webhook_in_flight_per_owner",
            ),
            (
                self.webhook_manual_in_flight_per_owner,
                "webhook_manual_in_flight_per_owner",
            ),
        ] {
            ensure(
                (1..=1_000).contains(&value),
                name,
                "must be between 1 and 1000",
            )?;
        }
        ensure(
            self.webhook_in_flight_per_endpoint <= self.webhook_in_flight_per_owner,
            "webhook_in_flight_per_endpoint",
            "must be at most webhook_in_flight_per_owner",
        )
    }

    /// The in-flight budgets deliveries are claimed under.
    pub fn claim_budget(&self) -> store::ClaimBudget {
        store::ClaimBudget {
            per_endpoint: u64::from(self.webhook_in_flight_per_endpoint),
            per_owner: u64::from(self.webhook_in_flight_per_owner),
            manual_per_owner: u64::from(self.webhook_manual_in_flight_per_owner),
        }
    }

    /// The timeout of `endpoint`'s next attempt ([`domain::webhook::attempt_timeout_ms`]).
    pub fn attempt_timeout(&self, endpoint: &store::WebhookEndpointRecord) -> u64 {
        domain::webhook::attempt_timeout_ms(
            self.webhook_timeout_ms,
            u32::try_from(endpoint.timeout_streak).unwrap_or(0),
        )
    }
}
