//! Organisations, their members, and the one place that decides whether a caller may act
//! for an organisation ([`App::require_role`]).

use chrono::{DateTime, Utc};
use domain::{Email, OrgId, OrgName, Role, UserId, ValidationError};
use store::{MemberRecord, StoreError};

use crate::{App, AppError, Caller};

#[derive(Debug, Clone)]
pub struct Org {
    pub id: OrgId,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

impl From<store::OrgRecord> for Org {
    fn from(r: store::OrgRecord) -> Self {
        Self {
            id: r.id,
            name: r.name,
            created_at: r.created_at,
        }
    }
}

/// An organisation as its members see it.
#[derive(Debug, Clone)]
pub struct OrgDetails {
    pub org: Org,
    pub members: Vec<Member>,
}

#[derive(Debug, Clone)]
pub struct Member {
    pub user_id: UserId,
    pub email: String,
    pub name: String,
    pub role: Role,
    pub joined_at: DateTime<Utc>,
}

impl From<MemberRecord> for Member {
    fn from(r: MemberRecord) -> Self {
        Self {
            user_id: r.user_id,
            email: r.email,
            name: r.name,
            role: r.role,
            joined_at: r.joined_at,
        }
    }
}

impl App {
    /// Proves the caller holds at least `required` in `org`: the organisation must exist
    /// (else `NotFound`) and the caller's role must satisfy `required` (else `Forbidden`).
    /// Every route that acts for an organisation goes through here.
    pub async fn require_role(
        &self,
        caller: Caller,
        org: OrgId,
        required: Role,
    ) -> Result<Role, AppError> {
        match self.db().role_in_org(org, caller.user_id).await? {
            Some(role) if role.satisfies(required) => Ok(role),
            Some(role) => Err(AppError::Forbidden(format!(
                "this needs the {required} role in the organisation; you are {role}"
            ))),
            None => {
                if self.db().org_by_id(org).await?.is_none() {
                    Err(AppError::NotFound("organisation"))
                } else {
                    Err(AppError::Forbidden(
                        "you are not a member of this organisation".to_owned(),
                    ))
                }
            }
        }
    }

    /// Whether `viewer` (`None`: nobody signed in) is a member of `org`: for public answers
    /// that show the organisation's own members more.
    pub async fn is_member(&self, viewer: Option<Caller>, org: OrgId) -> Result<bool, AppError> {
        Ok(match viewer {
            Some(caller) => self.db().role_in_org(org, caller.user_id).await?.is_some(),
            None => false,
        })
    }

    /// Creates an organisation with the caller as its owner.
    pub async fn create_org(&self, caller: Caller, name: &str) -> Result<Org, AppError> {
        let name = OrgName::parse(name)?;
        let org = self
            .db()
            .create_org(OrgId::new(), &name, caller.user_id, Utc::now())
            .await?;
        Ok(org.into())
    }

    /// The organisation and its members; for members only.
    pub async fn org_details(&self, caller: Caller, org: OrgId) -> Result<OrgDetails, AppError> {
        self.require_role(caller, org, Role::Member).await?;
        let record = self
            .db()
            .org_by_id(org)
            .await?
            .ok_or(AppError::NotFound("organisation"))?;
        let members = self.db().members_of(org).await?;
        Ok(OrgDetails {
            org: record.into(),
            members: members.into_iter().map(Member::from).collect(),
        })
    }

    /// The organisations the caller belongs to, with the caller's role in each.
    pub async fn my_orgs(&self, caller: Caller) -> Result<Vec<(Org, Role)>, AppError> {
        Ok(self
            .db()
            .orgs_of(caller.user_id)
            .await?
            .into_iter()
            .map(|(org, role)| (org.into(), role))
            .collect())
    }

    /// Adds the account with `email` to the organisation. Admins add members and admins;
    /// only owners add owners.
    pub async fn add_member(
        &self,
        caller: Caller,
        org: OrgId,
        email: &str,
        role: Role,
    ) -> Result<Member, AppError> {
        let email = Email::parse(email)?;
        let caller_role = self.require_role(caller, org, Role::Admin).await?;
        if !caller_role.may_grant(role) {
            return Err(AppError::Forbidden(format!(
                "only an owner may appoint an owner; you are {caller_role}"
            )));
        }
        let user = self.db().user_by_email(&email).await?.ok_or_else(|| {
            ValidationError::new(
                "email",
                "no account has this email; ask them to register first",
            )
        })?;
        let now = Utc::now();
        self.db()
            .add_member(org, user.id, role, now)
            .await
            .map_err(|e| match e {
                StoreError::Conflict(_) => AppError::AlreadyMember,
                other => other.into(),
            })?;
        Ok(Member {
            user_id: user.id,
            email: user.email,
            name: user.name,
            role,
            joined_at: now,
        })
    }
}
