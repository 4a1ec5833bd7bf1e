//! Organisations and who belongs to them, with which role.

use chrono::{DateTime, Utc};
use domain::{OrgId, OrgName, Role, UserId};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use uuid::Uuid;

use crate::entities::{memberships, orgs, users};
use crate::{Db, StoreError, conflict_as};

#[derive(Debug, Clone)]
pub struct OrgRecord {
    pub id: OrgId,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

impl From<orgs::Model> for OrgRecord {
    fn from(m: orgs::Model) -> Self {
        Self {
            id: m.id.into(),
            name: m.name,
            created_at: m.created_at,
        }
    }
}

#[derive(Debug, Clone)]
pub struct MemberRecord {
    pub user_id: UserId,
    pub email: String,
    pub name: String,
    pub role: Role,
    pub joined_at: DateTime<Utc>,
}

fn parse_role(raw: &str) -> Result<Role, StoreError> {
    raw.parse()
        .map_err(|_| StoreError::Corrupt(format!("unknown role {raw:?}")))
}

/// Takes the organisation's row lock in a write transaction (PostgreSQL; SQLite's write
/// lock, taken at `BEGIN`, already serialises writers): what is decided per organisation —
/// its owners, its daily runs — is decided by one transaction at a time, so two racing ones
/// cannot both see room.
pub(crate) async fn lock_org(txn: &impl ConnectionTrait, org: Uuid) -> Result<(), StoreError> {
    orgs::Entity::find_by_id(org)
        .select_only()
        .column(orgs::Column::Id)
        .lock_exclusive()
        .into_tuple::<Uuid>()
        .one(txn)
        .await?;
    Ok(())
}

impl Db {
    /// Creates an organisation with `owner` as its first member, in one transaction.
    pub async fn create_org(
        &self,
        id: OrgId,
        name: &OrgName,
        owner: UserId,
        now: DateTime<Utc>,
    ) -> Result<OrgRecord, StoreError> {
        let txn = self.write().await?;
        let org = orgs::ActiveModel {
            id: Set(id.as_uuid()),
            name: Set(name.as_str().to_owned()),
            created_at: Set(now),
        };
        orgs::Entity::insert(org)
            .exec_without_returning(&txn)
            .await?;
        let membership = memberships::ActiveModel {
            org_id: Set(id.as_uuid()),
            user_id: Set(owner.as_uuid()),
            role: Set(Role::Owner.as_str().to_owned()),
            created_at: Set(now),
        };
        memberships::Entity::insert(membership)
            .exec_without_returning(&txn)
            .await?;
        txn.commit().await?;
        Ok(OrgRecord {
            id,
            name: name.as_str().to_owned(),
            created_at: now,
        })
    }

    pub async fn org_by_id(&self, id: OrgId) -> Result<Option<OrgRecord>, StoreError> {
        Ok(orgs::Entity::find_by_id(id.as_uuid())
            .one(self.conn())
            .await?
            .map(OrgRecord::from))
    }

    /// The user's role in the organisation, `None` when not a member.
    pub async fn role_in_org(&self, org: OrgId, user: UserId) -> Result<Option<Role>, StoreError> {
        memberships::Entity::find_by_id((org.as_uuid(), user.as_uuid()))
            .one(self.conn())
            .await?
            .map(|m| parse_role(&m.role))
            .transpose()
    }

    /// Adds a member; [`StoreError::Conflict`]`("member")` when already one.
    pub async fn add_member(
        &self,
        org: OrgId,
        user: UserId,
        role: Role,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let membership = memberships::ActiveModel {
            org_id: Set(org.as_uuid()),
            user_id: Set(user.as_uuid()),
            role: Set(role.as_str().to_owned()),
            created_at: Set(now),
        };
        memberships::Entity::insert(membership)
            .exec_without_returning(self.conn())
            .await
            .map_err(conflict_as("member"))?;
        Ok(())
    }

    /// Members in the order they joined.
    pub async fn members_of(&self, org: OrgId) -> Result<Vec<MemberRecord>, StoreError> {
        let rows = memberships::Entity::find()
            .filter(memberships::Column::OrgId.eq(org.as_uuid()))
            .order_by_asc(memberships::Column::CreatedAt)
            .find_also_related(users::Entity)
            .all(self.conn())
            .await?;
        rows.into_iter()
            .map(|(membership, user)| {
                let user = user.ok_or_else(|| {
                    StoreError::Corrupt(format!("member {} has no user", membership.user_id))
                })?;
                Ok(MemberRecord {
                    user_id: user.id.into(),
                    email: user.email,
                    name: user.name,
                    role: parse_role(&membership.role)?,
                    joined_at: membership.created_at,
                })
            })
            .collect()
    }

    /// The organisations the user belongs to, with the user's role in each.
    pub async fn orgs_of(&self, user: UserId) -> Result<Vec<(OrgRecord, Role)>, StoreError> {
        let rows = memberships::Entity::find()
            .filter(memberships::Column::UserId.eq(user.as_uuid()))
            .order_by_asc(memberships::Column::CreatedAt)
            .find_also_related(orgs::Entity)
            .all(self.conn())
            .await?;
        rows.into_iter()
            .map(|(membership, org)| {
                let org = org.ok_or_else(|| {
                    StoreError::Corrupt(format!("membership of missing org {}", membership.org_id))
                })?;
                Ok((OrgRecord::from(org), parse_role(&membership.role)?))
            })
            .collect()
    }
}
