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

/// What an organisation's API key may do. A key does nothing beyond its scopes, never
/// manages members, payouts or keys, and acts for its organisation only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyScope {
    /// `POST /v1/access/introspect`: what a provider puts on its machines.
    AccessIntrospect,
    /// Create, edit and delist the organisation's listings.
    ListingsWrite,
    /// Ask for and cancel verification runs of its listings.
    VerificationsWrite,
    /// Read what the organisation may read.
    Read,
    /// The provider's agent on the machines of the listings the key is bound to: report their
    /// facts (and, next, heartbeats and their desired state) — nothing else. It stands alone.
    Agent,
}

impl KeyScope {
    pub const ALL: [KeyScope; 5] = [
        Self::AccessIntrospect,
        Self::ListingsWrite,
        Self::VerificationsWrite,
        Self::Read,
        Self::Agent,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::AccessIntrospect => "access:introspect",
            Self::ListingsWrite => "listings:write",
            Self::VerificationsWrite => "verifications:write",
            Self::Read => "read",
            Self::Agent => "agent",
        }
    }

    /// A list of scopes as a client sent it: at least one, each known, no repeats.
    pub fn parse_list(raw: &[String]) -> Result<Vec<KeyScope>, ValidationError> {
        let mut scopes = Vec::new();
        for name in raw {
            let scope = Self::ALL
                .into_iter()
                .find(|s| s.as_str() == name.trim())
                .ok_or_else(|| {
                    let known: Vec<&str> = Self::ALL.iter().map(|s| s.as_str()).collect();
                    ValidationError::new(
                        "scopes",
                        format!("{name:?} is not a scope; known: {}", known.join(", ")),
                    )
                })?;
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        if scopes.is_empty() {
            return Err(ValidationError::new(
                "scopes",
                "must name at least one scope",
            ));
        }
        if scopes.contains(&Self::Agent) && scopes.len() > 1 {
            return Err(ValidationError::new(
                "scopes",
                "`agent` stands alone: an agent's key does nothing else",
            ));
        }
        scopes.sort();
        Ok(scopes)
    }

    /// Scopes as stored: comma-separated names. Unknown names (none are written) are
    /// dropped, so a stored list never grants more than it names.
    pub fn from_stored(stored: &str) -> Vec<KeyScope> {
        stored
            .split(',')
            .filter_map(|name| Self::ALL.into_iter().find(|s| s.as_str() == name.trim()))
            .collect()
    }

    pub fn to_stored(scopes: &[KeyScope]) -> String {
        scopes
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(",")
    }
}

#[cfg(test)]
mod scope_tests {
    use super::*;

    #[test]
    fn scopes_parse_round_trip_and_refuse_unknown_names() {
        let parsed =
            KeyScope::parse_list(&["read".into(), "access:introspect".into(), "read".into()])
                .unwrap();
        assert_eq!(parsed, vec![KeyScope::AccessIntrospect, KeyScope::Read]);
        assert_eq!(KeyScope::from_stored(&KeyScope::to_stored(&parsed)), parsed);
        assert_eq!(
            KeyScope::parse_list(&["admin".into()]).unwrap_err().field,
            "scopes"
        );
        assert!(KeyScope::parse_list(&[]).is_err());
        assert_eq!(
            KeyScope::from_stored("read,superuser"),
            vec![KeyScope::Read]
        );
    }
}
