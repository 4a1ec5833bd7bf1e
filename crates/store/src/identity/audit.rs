//! An organisation's audit trail: one row per change of its listings and prices, keys,
//! members, webhook endpoints and maintenance windows, written by the change's own
//! transaction (a change that rolls back leaves no row; a row never lacks its change).

use chrono::{DateTime, Utc};
use sea_orm::prelude::Expr;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use uuid::Uuid;

use crate::entities::org_audit;
use crate::{Db, StoreError};

/// The action of an invitation's row, whose details name the address invited.
pub const MEMBER_INVITED: &str = "member.invited";

/// A row of the trail as stored.
pub type AuditRecord = org_audit::Model;

/// A change to record, with who made it and from where.
#[derive(Debug, Clone, PartialEq)]
pub struct Audit {
    pub org_id: Uuid,
    pub actor_id: Uuid,
    /// `session`, `api_key` or `org_key`.
    pub via: &'static str,
    pub network: Option<String>,
    /// `listing.created`, `member.role_changed`, … (the book lists them).
    pub action: &'static str,
    pub target_id: Option<String>,
    pub details: serde_json::Value,
    pub at: DateTime<Utc>,
}

impl Audit {
    /// The same change's row for another target (and details).
    pub fn on(&self, target_id: impl ToString, details: serde_json::Value) -> Self {
        Self {
            target_id: Some(target_id.to_string()),
            details,
            ..self.clone()
        }
    }
}

/// Writes `audit` (when the change is audited) in the transaction of its change.
pub(crate) async fn record(
    conn: &impl ConnectionTrait,
    audit: Option<&Audit>,
) -> Result<(), StoreError> {
    let Some(audit) = audit else { return Ok(()) };
    org_audit::Entity::insert(org_audit::ActiveModel {
        id: Set(Uuid::now_v7()),
        org_id: Set(audit.org_id),
        actor_id: Set(audit.actor_id),
        via: Set(audit.via.to_owned()),
        network: Set(audit.network.clone()),
        action: Set(audit.action.to_owned()),
        target_id: Set(audit.target_id.clone()),
        details: Set(audit.details.to_string()),
        at: Set(audit.at),
    })
    .exec_without_returning(conn)
    .await?;
    Ok(())
}

/// Forgets the networks of `actor`'s rows (their account is erased; the rows keep its id).
pub(crate) async fn pseudonymise(
    conn: &impl ConnectionTrait,
    actor: Uuid,
    email: &str,
    erased: &str,
) -> Result<(), StoreError> {
    org_audit::Entity::update_many()
        .col_expr(
            org_audit::Column::Network,
            Expr::value(Option::<String>::None),
        )
        .filter(org_audit::Column::ActorId.eq(actor))
        .exec(conn)
        .await?;
    // An invitation's row names the address it was sent to.
    let invited = org_audit::Entity::find()
        .filter(org_audit::Column::Action.eq(MEMBER_INVITED))
        .filter(org_audit::Column::Details.contains(email))
        .all(conn)
        .await?;
    for row in invited {
        let mut details: serde_json::Value = serde_json::from_str(&row.details)
            .map_err(|e| StoreError::Corrupt(format!("audit row {}: {e}", row.id)))?;
        if details["email"] == email {
            details["email"] = serde_json::Value::from(erased);
            org_audit::Entity::update_many()
                .col_expr(org_audit::Column::Details, Expr::value(details.to_string()))
                .filter(org_audit::Column::Id.eq(row.id))
                .exec(conn)
                .await?;
        }
    }
    Ok(())
}

impl Db {
    /// An organisation's trail, newest first, after the row `before` when given.
    pub async fn org_audit(
        &self,
        org: Uuid,
        before: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<AuditRecord>, StoreError> {
        let mut select = org_audit::Entity::find()
            .filter(org_audit::Column::OrgId.eq(org))
            .order_by_desc(org_audit::Column::Id)
            .limit(limit);
        if let Some(before) = before {
            select = select.filter(org_audit::Column::Id.lt(before));
        }
        Ok(select.all(self.conn()).await?)
    }

    /// Deletes the rows written before `before` (the trail keeps a year); returns how many.
    pub async fn prune_audit(&self, before: DateTime<Utc>) -> Result<u64, StoreError> {
        Ok(org_audit::Entity::delete_many()
            .filter(org_audit::Column::At.lt(before))
            .exec(self.conn())
            .await?
            .rows_affected)
    }
}
