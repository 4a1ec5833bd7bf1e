//! Typed identifiers: a `UserId` cannot be passed where an `OrgId` is expected.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! typed_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// A new, time-ordered id (UUIDv7), so ids sort by creation and index well.
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }

            pub const fn from_uuid(uuid: Uuid) -> Self {
                Self(uuid)
            }

            pub const fn as_uuid(&self) -> Uuid {
                self.0
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }

        impl From<Uuid> for $name {
            fn from(uuid: Uuid) -> Self {
                Self(uuid)
            }
        }

        impl From<$name> for Uuid {
            fn from(id: $name) -> Uuid {
                id.0
            }
        }
    };
}

typed_id!(
    /// A person's account.
    UserId
);
typed_id!(
    /// An organisation: a provider that lists machines, or a team of renters.
    OrgId
);
typed_id!(
    /// An API key (the id, never the secret).
    ApiKeyId
);
typed_id!(
    /// A person's membership of an organisation, with its role.
    MembershipId
);
typed_id!(
    /// A refresh token (the id, never the secret).
    RefreshTokenId
);
typed_id!(
    /// A machine a provider lists.
    ListingId
);
typed_id!(
    /// A renter's booking of GPUs of a listing over an interval.
    BookingId
);
typed_id!(
    /// A verification run of a listing.
    RunId
);
typed_id!(
    /// A signed verification report.
    ReportId
);
typed_id!(
    /// A key reports are signed with (its database row; the published key id is text).
    SigningKeyId
);
typed_id!(
    /// One movement of money in the ledger.
    LedgerEntryId
);
typed_id!(
    /// An organisation's Stripe Connect account, as recorded here.
    PayoutAccountId
);

/// Stripe's id of a webhook event (`evt_…`): acted on once. Stripe's text, bounded and checked
/// before it is stored or compared.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StripeEventId(String);

impl StripeEventId {
    pub fn parse(raw: &str) -> Result<Self, crate::ValidationError> {
        let valid = raw.starts_with("evt_")
            && raw.len() <= 255
            && raw[4..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if valid {
            Ok(Self(raw.to_owned()))
        } else {
            Err(crate::ValidationError::new(
                "id",
                "a Stripe event id is `evt_` and up to 251 letters, digits or underscores",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for StripeEventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn stripe_event_ids_are_checked() {
        use super::StripeEventId;
        assert_eq!(
            StripeEventId::parse("evt_1NG8Du2eZvKYlo2CUI79vXWy")
                .unwrap()
                .as_str(),
            "evt_1NG8Du2eZvKYlo2CUI79vXWy"
        );
        for bad in [
            "",
            "ch_123",
            "evt_a b",
            "evt_\n",
            &format!("evt_{}", "x".repeat(300)),
        ] {
            assert!(StripeEventId::parse(bad).is_err(), "{bad:?}");
        }
    }

    use super::*;

    #[test]
    fn ids_round_trip_through_text_and_order_by_creation() {
        let first = UserId::new();
        let second = UserId::new();
        assert!(first < second, "UUIDv7 ids sort by creation time");
        let parsed: UserId = first.to_string().parse().unwrap();
        assert_eq!(parsed, first);
        assert!("not-a-uuid".parse::<OrgId>().is_err());
    }
}
