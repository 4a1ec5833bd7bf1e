//! The JSON shapes the API answers with, documented in the OpenAPI document. Each converts
//! from an `app` type; no handler builds JSON by hand.

use app::accounts::{ApiKey, TokenPair, User};
use app::orgs::{Member, Org};
use chrono::{DateTime, Utc};
use domain::Role;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// A list page. `next_cursor` is absent on the last page.
#[derive(Debug, Serialize, ToSchema)]
pub struct Page<T: ToSchema> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

impl<T: ToSchema> Page<T> {
    /// A complete list, in one page.
    pub fn all(items: Vec<T>) -> Self {
        Self {
            items,
            next_cursor: None,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct UserView {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

impl From<User> for UserView {
    fn from(u: User) -> Self {
        Self {
            id: u.id.as_uuid(),
            email: u.email,
            name: u.name,
            created_at: u.created_at,
        }
    }
}

/// Tokens for a session. The refresh token is shown once; store it safely.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenPairView {
    pub access_token: String,
    pub refresh_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until the access token expires.
    pub expires_in: i64,
}

impl From<TokenPair> for TokenPairView {
    fn from(t: TokenPair) -> Self {
        Self {
            access_token: t.access_token,
            refresh_token: t.refresh_token,
            token_type: "Bearer",
            expires_in: t.expires_in,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyView {
    pub id: Uuid,
    pub name: String,
    /// The key's first characters, to tell keys apart. Never the key.
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

impl From<ApiKey> for ApiKeyView {
    fn from(k: ApiKey) -> Self {
        Self {
            id: k.id.as_uuid(),
            name: k.name,
            prefix: k.prefix,
            created_at: k.created_at,
            last_used_at: k.last_used_at,
        }
    }
}

/// A member's role in an organisation.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoleView {
    Owner,
    Admin,
    Member,
}

impl From<Role> for RoleView {
    fn from(r: Role) -> Self {
        match r {
            Role::Owner => Self::Owner,
            Role::Admin => Self::Admin,
            Role::Member => Self::Member,
        }
    }
}

impl From<RoleView> for Role {
    fn from(r: RoleView) -> Self {
        match r {
            RoleView::Owner => Self::Owner,
            RoleView::Admin => Self::Admin,
            RoleView::Member => Self::Member,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OrgView {
    pub id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

impl From<Org> for OrgView {
    fn from(o: Org) -> Self {
        Self {
            id: o.id.as_uuid(),
            name: o.name,
            created_at: o.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MemberView {
    pub user_id: Uuid,
    pub email: String,
    pub name: String,
    pub role: RoleView,
    pub joined_at: DateTime<Utc>,
}

impl From<Member> for MemberView {
    fn from(m: Member) -> Self {
        Self {
            user_id: m.user_id.as_uuid(),
            email: m.email,
            name: m.name,
            role: m.role.into(),
            joined_at: m.joined_at,
        }
    }
}
