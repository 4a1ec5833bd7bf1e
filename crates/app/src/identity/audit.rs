//! Organisations' audit trails: the row each audited change writes with itself (who, with
//! what credential, from which network, what), and the trail an organisation's admins read.
//! Rows are kept a year; an erased person's rows keep their account's id, not their network.

use chrono::{DateTime, Utc};
use domain::{OrgId, UserId};
use serde_json::Value;
use uuid::Uuid;

use crate::{Caller, Credential};

/// How long the trail keeps a row.
pub const KEPT_FOR_DAYS: i64 = 365;

/// The changes the trail records.
pub mod action {
    pub const LISTING_CREATED: &str = "listing.created";
    pub const LISTING_UPDATED: &str = "listing.updated";
    pub const LISTING_DELISTED: &str = "listing.delisted";
    pub const KEY_CREATED: &str = "api_key.created";
    pub const KEY_REVOKED: &str = "api_key.revoked";
    /// (Its details name the address invited: an erasure finds it by this name.)
    pub const MEMBER_INVITED: &str = store::AUDIT_MEMBER_INVITED;
    pub const MEMBER_JOINED: &str = "member.joined";
    pub const MEMBER_ROLE_CHANGED: &str = "member.role_changed";
    pub const MEMBER_REMOVED: &str = "member.removed";
    pub const ENDPOINT_CREATED: &str = "webhook_endpoint.created";
    pub const ENDPOINT_DELETED: &str = "webhook_endpoint.deleted";
    pub const ENDPOINT_SECRET_ROTATED: &str = "webhook_endpoint.secret_rotated";
    pub const ENDPOINT_ENABLED: &str = "webhook_endpoint.enabled";
    pub const WINDOW_CREATED: &str = "maintenance_window.created";
    pub const WINDOW_DELETED: &str = "maintenance_window.deleted";
}

impl Caller {
    /// The trail's row for a change of `org`'s the caller makes now.
    pub(crate) fn audit(
        &self,
        org: OrgId,
        action: &'static str,
        target: impl ToString,
        details: Value,
    ) -> store::Audit {
        store::Audit {
            org_id: org.as_uuid(),
            actor_id: self.user_id.as_uuid(),
            via: match self.via {
                Credential::AccessToken { .. } => "session",
                Credential::ApiKey(_) => "api_key",
                Credential::OrgKey { .. } => "org_key",
            },
            network: self.network.map(|n| n.to_string()),
            action,
            target_id: Some(target.to_string()),
            details,
            at: Utc::now(),
        }
    }
}

/// A row of an organisation's trail.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditItem {
    pub id: Uuid,
    pub at: DateTime<Utc>,
    pub actor_id: UserId,
    /// The actor's name now (`erased account` once their account is erased).
    pub actor_name: Option<String>,
    /// `session`, `api_key` or `org_key`.
    pub via: String,
    pub network: Option<String>,
    pub action: String,
    pub target_id: Option<String>,
    pub details: Value,
}
