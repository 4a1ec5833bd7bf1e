//! Membership by consent: invitations and their acceptance, role changes and removals that
//! never leave an organisation without an owner.

use chrono::{DateTime, Utc};
use domain::{OrgId, Role, UserId};
use sea_orm::sea_query::{Expr, Query};
use sea_orm::{ActiveValue::Set, ColumnTrait, EntityTrait, ExprTrait, QueryFilter};
use uuid::Uuid;

use crate::entities::{invitations, memberships};
use crate::identity::orgs::lock_org;
use crate::{Db, StoreError, conflict_as};

pub type InvitationRecord = invitations::Model;

/// An invitation to record.
#[derive(Debug, Clone)]
pub struct NewInvitation {
    pub id: Uuid,
    pub org: OrgId,
    pub email: String,
    pub role: Role,
    pub token_hash: String,
    pub invited_by: UserId,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// What accepting an invitation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepted {
    Joined,
    AlreadyMember,
    /// Used, expired, or gone.
    NotValid,
}

/// Whether an owner would remain after `user` stops being one: a condition on the
/// membership row being changed.
fn another_owner_remains(org: Uuid, user: Uuid) -> sea_orm::sea_query::SimpleExpr {
    Expr::col(memberships::Column::Role)
        .ne(Role::Owner.as_str())
        .or(Expr::exists(
            Query::select()
                .expr(Expr::val(1))
                .from(memberships::Entity)
                .and_where(Expr::col(memberships::Column::OrgId).eq(org))
                .and_where(Expr::col(memberships::Column::UserId).ne(user))
                .and_where(Expr::col(memberships::Column::Role).eq(Role::Owner.as_str()))
                .to_owned(),
        ))
}

impl Db {
    pub async fn insert_invitation(
        &self,
        new: NewInvitation,
        audit: Option<&crate::Audit>,
    ) -> Result<(), StoreError> {
        let txn = self.write().await?;
        invitations::Entity::insert(invitations::ActiveModel {
            id: Set(new.id),
            org_id: Set(new.org.as_uuid()),
            email: Set(new.email),
            role: Set(new.role.as_str().to_owned()),
            token_hash: Set(new.token_hash),
            invited_by: Set(new.invited_by.as_uuid()),
            created_at: Set(new.created_at),
            expires_at: Set(new.expires_at),
            accepted_at: Set(None),
            accepted_by: Set(None),
        })
        .exec_without_returning(&txn)
        .await?;
        crate::identity::audit::record(&txn, audit).await?;
        txn.commit().await?;
        Ok(())
    }

    pub async fn invitation_by_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<InvitationRecord>, StoreError> {
        Ok(invitations::Entity::find()
            .filter(invitations::Column::TokenHash.eq(token_hash))
            .one(self.conn())
            .await?)
    }

    /// Uses the invitation once for `user` and adds the membership, in one transaction.
    pub async fn accept_invitation(
        &self,
        invitation: &InvitationRecord,
        user: UserId,
        role: Role,
        now: DateTime<Utc>,
        audit: Option<&crate::Audit>,
    ) -> Result<Accepted, StoreError> {
        let txn = self.write().await?;
        let used = invitations::Entity::update_many()
            .col_expr(invitations::Column::AcceptedAt, Expr::value(now))
            .col_expr(invitations::Column::AcceptedBy, Expr::value(user.as_uuid()))
            .filter(invitations::Column::Id.eq(invitation.id))
            .filter(invitations::Column::AcceptedAt.is_null())
            .filter(invitations::Column::ExpiresAt.gt(now))
            .exec(&txn)
            .await?;
        if used.rows_affected == 0 {
            return Ok(Accepted::NotValid);
        }
        let joined = memberships::Entity::insert(memberships::ActiveModel {
            org_id: Set(invitation.org_id),
            user_id: Set(user.as_uuid()),
            role: Set(role.as_str().to_owned()),
            created_at: Set(now),
        })
        .exec_without_returning(&txn)
        .await
        .map_err(conflict_as("member"));
        match joined {
            Ok(_) => {
                crate::identity::audit::record(&txn, audit).await?;
                txn.commit().await?;
                Ok(Accepted::Joined)
            }
            Err(StoreError::Conflict(_)) => Ok(Accepted::AlreadyMember),
            Err(e) => Err(e),
        }
    }

    /// Changes a member's role; `Ok(false)` when that would leave the organisation without
    /// an owner (or there is no such member).
    pub async fn set_role(
        &self,
        org: OrgId,
        user: UserId,
        role: Role,
        audit: Option<&crate::Audit>,
    ) -> Result<bool, StoreError> {
        let txn = self.write().await?;
        lock_org(&txn, org.as_uuid()).await?;
        let mut update = memberships::Entity::update_many()
            .col_expr(memberships::Column::Role, Expr::value(role.as_str()))
            .filter(memberships::Column::OrgId.eq(org.as_uuid()))
            .filter(memberships::Column::UserId.eq(user.as_uuid()));
        if role != Role::Owner {
            update = update.filter(another_owner_remains(org.as_uuid(), user.as_uuid()));
        }
        let changed = update.exec(&txn).await?.rows_affected == 1;
        if changed {
            crate::identity::audit::record(&txn, audit).await?;
        }
        txn.commit().await?;
        Ok(changed)
    }

    /// Removes a member; `Ok(false)` when that would leave the organisation without an owner
    /// (or there is no such member).
    pub async fn remove_member(
        &self,
        org: OrgId,
        user: UserId,
        audit: Option<&crate::Audit>,
    ) -> Result<bool, StoreError> {
        let txn = self.write().await?;
        lock_org(&txn, org.as_uuid()).await?;
        let removed = memberships::Entity::delete_many()
            .filter(memberships::Column::OrgId.eq(org.as_uuid()))
            .filter(memberships::Column::UserId.eq(user.as_uuid()))
            .filter(another_owner_remains(org.as_uuid(), user.as_uuid()))
            .exec(&txn)
            .await?;
        if removed.rows_affected == 1 {
            crate::identity::audit::record(&txn, audit).await?;
        }
        txn.commit().await?;
        Ok(removed.rows_affected == 1)
    }
}
