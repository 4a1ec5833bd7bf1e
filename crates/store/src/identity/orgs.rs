//! Organisations and who belongs to them, with which role.

use chrono::{DateTime, Utc};
use domain::{OrgId, OrgName, Role, UserId};
use sea_orm::sea_query::{Expr, ExprTrait, Func, Query};
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect,
};
use uuid::Uuid;

use crate::entities::{listings, memberships, orgs, users};
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

/// An organisation of the public directory: its active listings, and how many of them carry
/// the verified badge.
#[derive(Debug, Clone)]
pub struct PublicOrgRecord {
    pub org: OrgRecord,
    pub listings: i64,
    pub verified_listings: i64,
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

    /// A page of the organisations with at least one active listing, by name (ids breaking
    /// ties), after the organisation `after` (exclusive), with their listings' counts.
    pub async fn public_orgs(
        &self,
        after: Option<Uuid>,
        limit: u64,
    ) -> Result<Vec<PublicOrgRecord>, StoreError> {
        let active = || {
            Query::select()
                .column(listings::Column::OrgId)
                .from(listings::Entity)
                .and_where(Expr::col(listings::Column::Status).eq(crate::listing_status::ACTIVE))
                .to_owned()
        };
        let mut select = orgs::Entity::find().filter(orgs::Column::Id.in_subquery(active()));
        if let Some(after) = after {
            let Some(last) = orgs::Entity::find_by_id(after).one(self.conn()).await? else {
                return Ok(Vec::new());
            };
            select = select.filter(
                Expr::tuple([Expr::col(orgs::Column::Name), Expr::col(orgs::Column::Id)])
                    .gt(Expr::tuple([Expr::val(last.name), Expr::val(last.id)])),
            );
        }
        let page = select
            .order_by_asc(orgs::Column::Name)
            .order_by_asc(orgs::Column::Id)
            .limit(limit)
            .all(self.conn())
            .await?;
        let ids: Vec<Uuid> = page.iter().map(|o| o.id).collect();
        let counts: Vec<(Uuid, i64, i64)> = listings::Entity::find()
            .select_only()
            .column(listings::Column::OrgId)
            .column_as(
                Expr::from(Func::count(Expr::col(listings::Column::Id))),
                "listings",
            )
            .column_as(
                // COUNT skips the NULL that CASE gives the others.
                Expr::from(Func::count(Expr::case(
                    Expr::col(listings::Column::VerificationState).eq(crate::badge_state::VERIFIED),
                    1,
                ))),
                "verified",
            )
            .filter(listings::Column::Status.eq(crate::listing_status::ACTIVE))
            .filter(listings::Column::OrgId.is_in(ids))
            .group_by(listings::Column::OrgId)
            .into_tuple()
            .all(self.conn())
            .await?;
        Ok(page
            .into_iter()
            .map(|org| {
                let (listings, verified_listings) = counts
                    .iter()
                    .find(|(id, _, _)| *id == org.id)
                    .map_or((0, 0), |&(_, n, v)| (n, v));
                PublicOrgRecord {
                    org: org.into(),
                    listings,
                    verified_listings,
                }
            })
            .collect())
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
