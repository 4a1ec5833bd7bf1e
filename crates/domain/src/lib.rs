//! The values and rules of gpumarket, with no I/O.
//!
//! Every type here validates on construction and keeps its fields private, so a value that
//! exists is valid: an [`Email`] is a plausible address, a [`Role`] is one of three.

pub mod account;
pub mod agent;
pub mod booking;
pub mod budget;
pub mod container;
pub mod energy;
pub mod guarantee;
pub mod ids;
pub mod ledger;
pub mod listing;
pub mod market;
pub mod money;
pub mod org;
pub mod preflight;
pub mod quota;
pub mod report;
pub mod roofline;
pub mod slo;
pub mod spot_check;
pub mod ssh;
pub mod status;
pub mod uptime;
pub mod webhook;

pub use account::{ApiKeyName, DisplayName, Email, LinkPurpose, Password};
pub use ids::{
    ApiKeyId, BookingId, LedgerEntryId, ListingId, MembershipId, OrgId, PayoutAccountId,
    RefreshTokenId, ReportId, RunId, SigningKeyId, StripeEventId, UserId,
};
pub use ledger::LedgerKind;
pub use listing::{
    ENGINE_NAMES, EngineKey, ListingInput, ListingSpec, Ssh, SshInput, catalog_id, engine_name,
    known_engine,
};
pub use money::{Currency, Money};
pub use org::{KeyScope, OrgName, Role};
pub use report::{CellPhase, CellStatus};
pub use status::{BadgeState, BookingStatus, GpuHold, ListingStatus, RunStatus, StatusError};

/// Input that breaks a rule, naming the field it came from so a client can point at it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ValidationError {
    /// The field as the client sent it (`email`, `hardware.gpu_count`, ...).
    pub field: &'static str,
    /// Why it was refused, in words a person can act on.
    pub message: String,
}

impl ValidationError {
    pub fn new(field: &'static str, message: impl Into<String>) -> Self {
        Self {
            field,
            message: message.into(),
        }
    }
}

/// Trims `raw` and checks its length in characters is within `min..=max`.
pub(crate) fn bounded_text(
    field: &'static str,
    raw: &str,
    min: usize,
    max: usize,
) -> Result<String, ValidationError> {
    let trimmed = raw.trim();
    let len = trimmed.chars().count();
    if len < min {
        return Err(ValidationError::new(
            field,
            if min == 1 {
                "must not be empty".to_owned()
            } else {
                format!("must be at least {min} characters")
            },
        ));
    }
    if len > max {
        return Err(ValidationError::new(
            field,
            format!("must be at most {max} characters"),
        ));
    }
    if trimmed.chars().any(char::is_control) {
        return Err(ValidationError::new(
            field,
            "must not contain control characters",
        ));
    }
    Ok(trimmed.to_owned())
}
