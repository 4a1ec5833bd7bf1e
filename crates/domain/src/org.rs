//! Organisations and the roles of their members.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{ValidationError, bounded_text};

/// An organisation's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgName(String);

impl OrgName {
    pub fn parse(raw: &str) -> Result<Self, ValidationError> {
        bounded_text("name", raw, 1, 100).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A member's role. Roles are ordered: an owner may do all an admin may, an admin all a
/// member may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Lists machines, requests verification, sees the organisation's bookings.
    Member,
    /// All a member does, plus managing members and payouts.
    Admin,
    /// All an admin does, plus appointing owners. The creator of an organisation.
    Owner,
}

impl Role {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Member => "member",
            Self::Admin => "admin",
            Self::Owner => "owner",
        }
    }

    /// Whether someone holding `self` may act where `required` is needed.
    pub fn satisfies(self, required: Role) -> bool {
        self >= required
    }

    /// Whether someone holding `self` may give another person `granted`: admins appoint
    /// members and admins, only owners appoint owners.
    pub fn may_grant(self, granted: Role) -> bool {
        match self {
            Self::Owner => true,
            Self::Admin => granted != Self::Owner,
            Self::Member => false,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = ValidationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "member" => Ok(Self::Member),
            "admin" => Ok(Self::Admin),
            "owner" => Ok(Self::Owner),
            _ => Err(ValidationError::new(
                "role",
                "must be one of owner, admin, member",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_ordered_by_power() {
        assert!(Role::Owner.satisfies(Role::Admin));
        assert!(Role::Admin.satisfies(Role::Member));
        assert!(!Role::Member.satisfies(Role::Admin));
        assert!(!Role::Admin.satisfies(Role::Owner));
    }

    #[test]
    fn only_owners_appoint_owners() {
        assert!(Role::Owner.may_grant(Role::Owner));
        assert!(!Role::Admin.may_grant(Role::Owner));
        assert!(Role::Admin.may_grant(Role::Admin));
        assert!(!Role::Member.may_grant(Role::Member));
    }

    #[test]
    fn roles_parse_from_their_names_only() {
        for role in [Role::Member, Role::Admin, Role::Owner] {
            assert_eq!(role.as_str().parse::<Role>().unwrap(), role);
        }
        assert_eq!("root".parse::<Role>().unwrap_err().field, "role");
    }
}
