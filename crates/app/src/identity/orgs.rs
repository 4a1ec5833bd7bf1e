//! Organisations, their members, and the one place that decides whether a caller may act
//! for an organisation ([`App::require_role`]).

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use chrono::{DateTime, Utc};
use domain::{Email, OrgId, OrgName, Role, UserId};
use serde_json::json;
use store::MemberRecord;

use crate::identity::audit::{self, action};
use crate::{App, AppError, Caller, Credential};

#[derive(Debug, Clone)]
pub struct Org {
    pub id: OrgId,
    pub name: String,
    pub created_at: DateTime<Utc>,
}

/// An organisation of the public directory, with its active listings and how many of them
/// carry the verified badge.
#[derive(Debug, Clone)]
pub struct PublicOrg {
    pub org: Org,
    pub listings: u64,
    pub verified_listings: u64,
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

/// Invitation tokens start with this, so a leaked one is easy to recognise.
const INVITATION_PREFIX: &str = "gpmi_";

/// An invitation just made: the only time its token is seen (its `Debug` prints neither the
/// token nor the URL that carries it).
#[derive(Clone)]
pub struct Invitation {
    pub id: uuid::Uuid,
    pub org: OrgId,
    pub email: String,
    pub role: Role,
    pub token: String,
    /// Where the invited person accepts it (`POST`, signed in as that email).
    pub url: String,
    pub expires_at: DateTime<Utc>,
}

impl std::fmt::Debug for Invitation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Invitation")
            .field("id", &self.id)
            .field("org", &self.org)
            .field("role", &self.role)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
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
        // An organisation's key acts for its organisation, as a member (its scopes, checked
        // per route, say what it may do), and never beyond.
        if let Credential::OrgKey { org: own, .. } = caller.via {
            if own != org {
                return Err(AppError::Forbidden(
                    "this API key belongs to another organisation".to_owned(),
                ));
            }
            if required != Role::Member {
                return Err(AppError::Forbidden(format!(
                    "this needs the {required} role; an organisation's API key acts as a member"
                )));
            }
            return Ok(Role::Member);
        }
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
            Some(Caller {
                via: Credential::OrgKey { org: own, .. },
                ..
            }) => own == org,
            Some(caller) => self.db().role_in_org(org, caller.user_id).await?.is_some(),
            None => false,
        })
    }

    /// Creates an organisation with the caller as its owner.
    pub async fn create_org(&self, caller: Caller, name: &str) -> Result<Org, AppError> {
        self.require_verified_email(caller).await?;
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

    /// The public directory: organisations with at least one active listing, by name, a page
    /// after the organisation `after`. Public.
    pub async fn public_orgs(
        &self,
        after: Option<OrgId>,
        limit: u64,
    ) -> Result<Vec<PublicOrg>, AppError> {
        Ok(self
            .db()
            .public_orgs(after.map(|id| id.as_uuid()), limit)
            .await?
            .into_iter()
            .map(|r| PublicOrg {
                org: r.org.into(),
                listings: u64::try_from(r.listings).unwrap_or_default(),
                verified_listings: u64::try_from(r.verified_listings).unwrap_or_default(),
            })
            .collect())
    }

    /// Invites `email` into the organisation with `role` (admins; only owners invite
    /// owners). The answer is the same whether or not an account has that email: nothing is
    /// revealed, and nobody joins without accepting. The token is shown once; delivering it
    /// is the caller's business (there is no mail server).
    pub async fn invite(
        &self,
        caller: Caller,
        org: OrgId,
        email: &str,
        role: Role,
    ) -> Result<Invitation, AppError> {
        let email = Email::parse(email)?;
        let caller_role = self.require_role(caller, org, Role::Admin).await?;
        if !caller_role.may_grant(role) {
            return Err(AppError::Forbidden(format!(
                "only an owner may appoint an owner; you are {caller_role}"
            )));
        }
        let token = crate::secrets::random_secret(INVITATION_PREFIX)?;
        let now = Utc::now();
        let ttl = chrono::Duration::seconds(self.config().accounts.invitation_ttl_secs as i64);
        let id = uuid::Uuid::now_v7();
        let audit = caller.audit(
            org,
            action::MEMBER_INVITED,
            id,
            json!({"email": email.as_str(), "role": role.as_str()}),
        );
        self.db()
            .insert_invitation(
                store::NewInvitation {
                    id,
                    org,
                    email: email.as_str().to_owned(),
                    role,
                    token_hash: crate::secrets::digest(&token),
                    invited_by: caller.user_id,
                    created_at: now,
                    expires_at: now + ttl,
                },
                Some(&audit),
            )
            .await?;
        let base = self.config().server.public_url.trim_end_matches('/');
        Ok(Invitation {
            id,
            org,
            email: email.as_str().to_owned(),
            role,
            url: format!("{base}/v1/invitations/{token}/accept"),
            token,
            expires_at: now + ttl,
        })
    }

    /// Accepts an invitation: only the signed-in account with the invited email may, once,
    /// before it expires. Anything else is "not found", whoever asks.
    pub async fn accept_invitation(&self, caller: Caller, token: &str) -> Result<Member, AppError> {
        self.require_verified_email(caller).await?;
        let not_found = AppError::NotFound("invitation");
        let Some(invitation) = self
            .db()
            .invitation_by_hash(&crate::secrets::digest(token))
            .await?
        else {
            return Err(not_found);
        };
        let user = self
            .db()
            .user_by_id(caller.user_id)
            .await?
            .ok_or(AppError::Unauthenticated)?;
        if user.email != invitation.email || matches!(caller.via, Credential::OrgKey { .. }) {
            return Err(not_found);
        }
        let role: Role = invitation
            .role
            .parse()
            .map_err(|_| AppError::Internal(format!("stored invitation {}", invitation.id)))?;
        let now = Utc::now();
        let audit = caller.audit(
            OrgId::from_uuid(invitation.org_id),
            action::MEMBER_JOINED,
            user.id.as_uuid(),
            json!({"role": role.as_str(), "invitation_id": invitation.id}),
        );
        match self
            .db()
            .accept_invitation(&invitation, user.id, role, now, Some(&audit))
            .await?
        {
            store::Accepted::Joined => Ok(Member {
                user_id: user.id,
                email: user.email,
                name: user.name,
                role,
                joined_at: now,
            }),
            store::Accepted::AlreadyMember => Err(AppError::AlreadyMember),
            store::Accepted::NotValid => Err(not_found),
        }
    }

    /// Changes a member's role (admins; only owners appoint or demote owners). The last owner
    /// keeps the role.
    pub async fn set_member_role(
        &self,
        caller: Caller,
        org: OrgId,
        member: UserId,
        role: Role,
    ) -> Result<Member, AppError> {
        let caller_role = self.require_role(caller, org, Role::Admin).await?;
        let current = self
            .db()
            .role_in_org(org, member)
            .await?
            .ok_or(AppError::NotFound("member"))?;
        if !caller_role.may_grant(role) || !caller_role.may_grant(current) {
            return Err(AppError::Forbidden(format!(
                "only an owner may appoint or demote an owner; you are {caller_role}"
            )));
        }
        let audit = caller.audit(
            org,
            action::MEMBER_ROLE_CHANGED,
            member.as_uuid(),
            json!({"from": current.as_str(), "to": role.as_str()}),
        );
        if !self.db().set_role(org, member, role, Some(&audit)).await? {
            return Err(AppError::LastOwner);
        }
        if !role.satisfies(Role::Admin) {
            // Organisation keys and webhook endpoints are an admin's to make: a former
            // admin's stop working.
            let now = Utc::now();
            self.db().revoke_keys_made_by(org, member, now).await?;
            self.db()
                .disable_org_endpoints_made_by(
                    org.as_uuid(),
                    member.as_uuid(),
                    "the admin who registered it is no longer one",
                    now,
                )
                .await?;
        }
        self.db()
            .members_of(org)
            .await?
            .into_iter()
            .find(|m| m.user_id == member)
            .map(Member::from)
            .ok_or(AppError::NotFound("member"))
    }

    /// Removes a member (admins; owners only by an owner), or the caller leaves. The last
    /// owner cannot leave.
    pub async fn remove_member(
        &self,
        caller: Caller,
        org: OrgId,
        member: UserId,
    ) -> Result<(), AppError> {
        let leaving = member == caller.user_id && !matches!(caller.via, Credential::OrgKey { .. });
        let current = if leaving {
            self.require_role(caller, org, Role::Member).await?;
            None
        } else {
            let caller_role = self.require_role(caller, org, Role::Admin).await?;
            Some(caller_role)
        };
        let role = self
            .db()
            .role_in_org(org, member)
            .await?
            .ok_or(AppError::NotFound("member"))?;
        if let Some(caller_role) = current
            && !caller_role.may_grant(role)
        {
            return Err(AppError::Forbidden(format!(
                "only an owner may remove an owner; you are {caller_role}"
            )));
        }
        let audit = caller.audit(
            org,
            action::MEMBER_REMOVED,
            member.as_uuid(),
            json!({"role": role.as_str(), "left": leaving}),
        );
        if !self.db().remove_member(org, member, Some(&audit)).await? {
            return Err(AppError::LastOwner);
        }
        // Keys, share links and webhook endpoints a former member made for the organisation
        // stop working with them.
        let now = Utc::now();
        self.db().revoke_keys_made_by(org, member, now).await?;
        self.db()
            .revoke_shares_made_by(org.as_uuid(), member.as_uuid(), now)
            .await?;
        self.db()
            .disable_org_endpoints_made_by(
                org.as_uuid(),
                member.as_uuid(),
                "the member who registered it left the organisation",
                now,
            )
            .await?;
        Ok(())
    }

    /// An organisation's trail, newest first (admins), after the row `before` when given.
    pub async fn org_audit(
        &self,
        caller: Caller,
        org: OrgId,
        before: Option<uuid::Uuid>,
        limit: u64,
    ) -> Result<Vec<audit::AuditItem>, AppError> {
        self.require_role(caller, org, Role::Admin).await?;
        let rows = self.db().org_audit(org.as_uuid(), before, limit).await?;
        let mut names: HashMap<uuid::Uuid, Option<String>> = HashMap::new();
        for row in &rows {
            if let Entry::Vacant(slot) = names.entry(row.actor_id) {
                slot.insert(
                    self.db()
                        .user_by_id(row.actor_id.into())
                        .await?
                        .map(|u| u.name),
                );
            }
        }
        rows.into_iter()
            .map(|row| {
                Ok(audit::AuditItem {
                    id: row.id,
                    at: row.at,
                    actor_id: row.actor_id.into(),
                    actor_name: names.get(&row.actor_id).cloned().flatten(),
                    via: row.via,
                    network: row.network,
                    action: row.action,
                    target_id: row.target_id,
                    details: serde_json::from_str(&row.details)
                        .map_err(|e| AppError::Internal(format!("an audit row's details: {e}")))?,
                })
            })
            .collect()
    }

    /// Deletes the trail's rows older than a year; how many.
    pub async fn prune_audit(&self) -> Result<u64, AppError> {
        Ok(self
            .db()
            .prune_audit(Utc::now() - chrono::Duration::days(audit::KEPT_FOR_DAYS))
            .await?)
    }
}
