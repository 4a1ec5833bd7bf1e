//! Users and their credentials: password hashes, refresh tokens, API keys.
//! Only hashes of secrets are ever stored.

use chrono::{DateTime, Utc};
use domain::{ApiKeyId, ApiKeyName, DisplayName, Email, LinkPurpose, UserId};
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, Condition, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

use crate::entities::{api_keys, email_tokens, login_networks, refresh_tokens, users};
use crate::{Db, StoreError, conflict_as};

#[derive(Debug, Clone)]
pub struct UserRecord {
    pub id: UserId,
    pub email: String,
    pub name: String,
    /// A PHC string (argon2id); never the password.
    pub password_hash: String,
    pub created_at: DateTime<Utc>,
    /// When the account proved it holds its address (a mailed link was used).
    pub email_verified_at: Option<DateTime<Utc>>,
    /// Signed up while addresses had to be confirmed.
    pub confirmation_required: bool,
    /// When the account was erased on its person's request.
    pub deleted_at: Option<DateTime<Utc>>,
}

impl UserRecord {
    /// Signed up while addresses had to be confirmed, and has not confirmed: held back from
    /// acting, and its address not held.
    pub fn awaits_confirmation(&self) -> bool {
        self.confirmation_required && self.email_verified_at.is_none()
    }
}

impl From<users::Model> for UserRecord {
    fn from(m: users::Model) -> Self {
        Self {
            id: m.id.into(),
            email: m.email,
            name: m.name,
            password_hash: m.password_hash,
            created_at: m.created_at,
            email_verified_at: m.email_verified_at,
            confirmation_required: m.confirmation_required,
            deleted_at: m.deleted_at,
        }
    }
}

/// A link mailed to an address, as stored.
pub type EmailTokenRecord = email_tokens::Model;

#[derive(Debug, Clone)]
pub struct NewRefreshToken {
    pub id: Uuid,
    pub user_id: UserId,
    /// Every token issued by rotation from one login shares the family.
    pub family_id: Uuid,
    pub token_hash: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

#[derive(Debug, Clone)]
pub struct RefreshTokenRecord {
    pub id: Uuid,
    pub user_id: UserId,
    pub family_id: Uuid,
    pub expires_at: DateTime<Utc>,
    pub used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone)]
pub struct NewApiKey {
    pub id: ApiKeyId,
    pub user_id: UserId,
    pub name: ApiKeyName,
    /// The first characters of the key, shown in listings so a user can tell keys apart.
    pub prefix: String,
    pub key_hash: String,
    pub created_at: DateTime<Utc>,
    /// An organisation's key, and its scopes (comma-separated); `None`: a person's own.
    pub org: Option<(domain::OrgId, String)>,
    /// The listings an agent's key is bound to (its organisation's).
    pub listing_ids: Vec<uuid::Uuid>,
}

#[derive(Debug, Clone)]
pub struct ApiKeyRecord {
    pub id: ApiKeyId,
    pub user_id: UserId,
    pub name: String,
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// An organisation's key, and its scopes (comma-separated).
    pub org: Option<(domain::OrgId, String)>,
}

impl From<api_keys::Model> for ApiKeyRecord {
    fn from(m: api_keys::Model) -> Self {
        Self {
            id: m.id.into(),
            user_id: m.user_id.into(),
            name: m.name,
            prefix: m.prefix,
            created_at: m.created_at,
            last_used_at: m.last_used_at,
            revoked_at: m.revoked_at,
            org: m
                .org_id
                .map(|org| (org.into(), m.scopes.unwrap_or_default())),
        }
    }
}

impl Db {
    /// Stores a new user; [`StoreError::Conflict`]`("email")` when the address is taken.
    pub async fn insert_user(
        &self,
        id: UserId,
        email: &Email,
        name: &DisplayName,
        password_hash: String,
        created_at: DateTime<Utc>,
    ) -> Result<UserRecord, StoreError> {
        self.insert_account(id, email, name, password_hash, created_at, false)
            .await
    }

    /// [`Db::insert_user`], saying whether its address must be confirmed.
    pub async fn insert_account(
        &self,
        id: UserId,
        email: &Email,
        name: &DisplayName,
        password_hash: String,
        created_at: DateTime<Utc>,
        confirmation_required: bool,
    ) -> Result<UserRecord, StoreError> {
        let model = users::ActiveModel {
            id: Set(id.as_uuid()),
            email: Set(email.as_str().to_owned()),
            name: Set(name.as_str().to_owned()),
            password_hash: Set(password_hash),
            created_at: Set(created_at),
            email_verified_at: Set(None),
            confirmation_required: Set(confirmation_required),
            deleted_at: Set(None),
            handle: Set(None),
        };
        users::Entity::insert(model)
            .exec_without_returning(self.conn())
            .await
            .map_err(conflict_as("email"))?;
        self.user_by_id(id)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("user {id} vanished after insert")))
    }

    pub async fn user_by_email(&self, email: &Email) -> Result<Option<UserRecord>, StoreError> {
        Ok(users::Entity::find()
            .filter(users::Column::Email.eq(email.as_str()))
            .one(self.conn())
            .await?
            .map(UserRecord::from))
    }

    pub async fn user_by_id(&self, id: UserId) -> Result<Option<UserRecord>, StoreError> {
        Ok(users::Entity::find_by_id(id.as_uuid())
            .one(self.conn())
            .await?
            .map(UserRecord::from))
    }

    pub async fn insert_refresh_token(&self, token: NewRefreshToken) -> Result<(), StoreError> {
        let model = refresh_tokens::ActiveModel {
            id: Set(token.id),
            user_id: Set(token.user_id.as_uuid()),
            family_id: Set(token.family_id),
            token_hash: Set(token.token_hash),
            created_at: Set(token.created_at),
            expires_at: Set(token.expires_at),
            used_at: Set(None),
            revoked_at: Set(None),
        };
        refresh_tokens::Entity::insert(model)
            .exec_without_returning(self.conn())
            .await?;
        Ok(())
    }

    pub async fn refresh_token_by_hash(
        &self,
        token_hash: &str,
    ) -> Result<Option<RefreshTokenRecord>, StoreError> {
        Ok(refresh_tokens::Entity::find()
            .filter(refresh_tokens::Column::TokenHash.eq(token_hash))
            .one(self.conn())
            .await?
            .map(|m| RefreshTokenRecord {
                id: m.id,
                user_id: m.user_id.into(),
                family_id: m.family_id,
                expires_at: m.expires_at,
                used_at: m.used_at,
                revoked_at: m.revoked_at,
            }))
    }

    /// Marks a refresh token used, atomically: `false` when it was already used or revoked
    /// (by a racing request or an earlier one), which the caller treats as reuse.
    pub async fn consume_refresh_token(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let result = refresh_tokens::Entity::update_many()
            .col_expr(refresh_tokens::Column::UsedAt, Expr::value(now))
            .filter(refresh_tokens::Column::Id.eq(id))
            .filter(refresh_tokens::Column::UsedAt.is_null())
            .filter(refresh_tokens::Column::RevokedAt.is_null())
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected == 1)
    }

    /// Whether any token of the family was revoked: the family (one login session) is then
    /// over, whatever tokens it issued since.
    pub async fn family_revoked(&self, family_id: Uuid) -> Result<bool, StoreError> {
        Ok(refresh_tokens::Entity::find()
            .filter(refresh_tokens::Column::FamilyId.eq(family_id))
            .filter(refresh_tokens::Column::RevokedAt.is_not_null())
            .one(self.conn())
            .await?
            .is_some())
    }

    /// Revokes every session family of `user` but `except`; returns how many tokens.
    pub async fn revoke_sessions_of(
        &self,
        user: UserId,
        except: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<Vec<Uuid>, StoreError> {
        let mut which = Condition::all()
            .add(refresh_tokens::Column::UserId.eq(user.as_uuid()))
            .add(refresh_tokens::Column::RevokedAt.is_null());
        if let Some(keep) = except {
            which = which.add(refresh_tokens::Column::FamilyId.ne(keep));
        }
        // One transaction: a session started between the read and the update is either in
        // both (ended and announced) or in neither.
        let txn = self.write().await?;
        let families: Vec<Uuid> = refresh_tokens::Entity::find()
            .select_only()
            .column(refresh_tokens::Column::FamilyId)
            .distinct()
            .filter(which.clone())
            .into_tuple()
            .all(&txn)
            .await?;
        refresh_tokens::Entity::update_many()
            .col_expr(refresh_tokens::Column::RevokedAt, Expr::value(now))
            .filter(which.add(refresh_tokens::Column::FamilyId.is_in(families.clone())))
            .exec(&txn)
            .await?;
        txn.commit().await?;
        Ok(families)
    }

    /// Stores a link mailed to an address (its token's digest).
    pub async fn insert_email_token(&self, token: EmailTokenRecord) -> Result<(), StoreError> {
        email_tokens::Entity::insert(email_tokens::ActiveModel::from(token).reset_all())
            .exec_without_returning(self.conn())
            .await?;
        Ok(())
    }

    /// Uses the link of `purpose` whose token has this digest, once: the link, when it was
    /// neither used nor expired at `now` (a racing second use gets `None`).
    pub async fn use_email_token(
        &self,
        purpose: LinkPurpose,
        token_hash: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<EmailTokenRecord>, StoreError> {
        let Some(token) = email_tokens::Entity::find()
            .filter(email_tokens::Column::TokenHash.eq(token_hash))
            .filter(email_tokens::Column::Purpose.eq(purpose.as_str()))
            .one(self.conn())
            .await?
        else {
            return Ok(None);
        };
        if token.expires_at <= now || token.used_at.is_some() {
            return Ok(None);
        }
        let used = email_tokens::Entity::update_many()
            .col_expr(email_tokens::Column::UsedAt, Expr::value(now))
            .filter(email_tokens::Column::Id.eq(token.id))
            .filter(email_tokens::Column::UsedAt.is_null())
            .exec(self.conn())
            .await?;
        if used.rows_affected != 1 {
            return Ok(None);
        }
        // One link of a purpose decides: the account's other links of it stop working.
        self.void_email_tokens(UserId::from(token.user_id), purpose, now)
            .await?;
        Ok(Some(token))
    }

    /// Ends every unused link of `purpose` of `user` (another was used, or the password or
    /// the registration changed); returns how many.
    pub async fn void_email_tokens(
        &self,
        user: UserId,
        purpose: LinkPurpose,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        Ok(email_tokens::Entity::update_many()
            .col_expr(email_tokens::Column::UsedAt, Expr::value(now))
            .filter(email_tokens::Column::UserId.eq(user.as_uuid()))
            .filter(email_tokens::Column::Purpose.eq(purpose.as_str()))
            .filter(email_tokens::Column::UsedAt.is_null())
            .exec(self.conn())
            .await?
            .rows_affected)
    }

    /// Marks `user`'s address confirmed at `at` while it is unconfirmed and still `email`,
    /// and nothing else. Whether it did.
    pub async fn confirm_email(
        &self,
        user: UserId,
        email: &str,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        Ok(users::Entity::update_many()
            .col_expr(users::Column::EmailVerifiedAt, Expr::value(at))
            .filter(users::Column::Id.eq(user.as_uuid()))
            .filter(users::Column::Email.eq(email))
            // Only an address still unconfirmed is confirmed.
            .filter(users::Column::EmailVerifiedAt.is_null())
            .exec(self.conn())
            .await?
            .rows_affected
            == 1)
    }

    /// Records that `user` signed in from `network` at `at`.
    pub async fn remember_login_network(
        &self,
        user: UserId,
        network: &str,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        login_networks::Entity::insert(login_networks::ActiveModel {
            user_id: Set(user.as_uuid()),
            network: Set(network.to_owned()),
            last_success_at: Set(at),
        })
        .on_conflict(
            OnConflict::columns([
                login_networks::Column::UserId,
                login_networks::Column::Network,
            ])
            .update_column(login_networks::Column::LastSuccessAt)
            .to_owned(),
        )
        .exec_without_returning(self.conn())
        .await?;
        Ok(())
    }

    /// Whether `user` signed in from `network` since `since`.
    pub async fn signed_in_from(
        &self,
        user: UserId,
        network: &str,
        since: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        Ok(login_networks::Entity::find()
            .filter(login_networks::Column::UserId.eq(user.as_uuid()))
            .filter(login_networks::Column::Network.eq(network))
            .filter(login_networks::Column::LastSuccessAt.gt(since))
            .one(self.conn())
            .await?
            .is_some())
    }

    /// The login sessions (refresh families) ended since `since`.
    pub async fn sessions_ended_since(
        &self,
        since: DateTime<Utc>,
    ) -> Result<Vec<Uuid>, StoreError> {
        Ok(refresh_tokens::Entity::find()
            .select_only()
            .column(refresh_tokens::Column::FamilyId)
            .distinct()
            .filter(refresh_tokens::Column::RevokedAt.gt(since))
            .into_tuple()
            .all(self.conn())
            .await?)
    }

    /// Replaces a user's password hash.
    pub async fn set_password_hash(&self, user: UserId, hash: String) -> Result<(), StoreError> {
        users::Entity::update_many()
            .col_expr(users::Column::PasswordHash, Expr::value(hash))
            .filter(users::Column::Id.eq(user.as_uuid()))
            .exec(self.conn())
            .await?;
        Ok(())
    }

    /// Revokes every token of a family (all sessions descended from one login).
    pub async fn revoke_refresh_family(
        &self,
        family_id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let result = refresh_tokens::Entity::update_many()
            .col_expr(refresh_tokens::Column::RevokedAt, Expr::value(now))
            .filter(refresh_tokens::Column::FamilyId.eq(family_id))
            .filter(refresh_tokens::Column::RevokedAt.is_null())
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected)
    }

    pub async fn insert_api_key(
        &self,
        key: NewApiKey,
        audit: Option<&crate::Audit>,
    ) -> Result<ApiKeyRecord, StoreError> {
        let id = key.id;
        let model = api_keys::ActiveModel {
            id: Set(key.id.as_uuid()),
            user_id: Set(key.user_id.as_uuid()),
            name: Set(key.name.as_str().to_owned()),
            prefix: Set(key.prefix),
            key_hash: Set(key.key_hash),
            created_at: Set(key.created_at),
            last_used_at: Set(None),
            revoked_at: Set(None),
            org_id: Set(key.org.as_ref().map(|(org, _)| org.as_uuid())),
            scopes: Set(key.org.map(|(_, scopes)| scopes)),
        };
        let txn = self.write().await?;
        api_keys::Entity::insert(model)
            .exec_without_returning(&txn)
            .await
            .map_err(conflict_as("api key"))?;
        if !key.listing_ids.is_empty() {
            crate::entities::api_key_listings::Entity::insert_many(key.listing_ids.iter().map(
                |listing| crate::entities::api_key_listings::ActiveModel {
                    key_id: Set(id.as_uuid()),
                    listing_id: Set(*listing),
                },
            ))
            .exec_without_returning(&txn)
            .await?;
        }
        crate::identity::audit::record(&txn, audit).await?;
        txn.commit().await?;
        api_keys::Entity::find_by_id(id.as_uuid())
            .one(self.conn())
            .await?
            .map(ApiKeyRecord::from)
            .ok_or_else(|| StoreError::Corrupt(format!("api key {id} vanished after insert")))
    }

    /// The keys matching `whose` that are not revoked, newest first.
    async fn active_keys(&self, whose: Condition) -> Result<Vec<ApiKeyRecord>, StoreError> {
        Ok(api_keys::Entity::find()
            .filter(whose)
            .filter(api_keys::Column::RevokedAt.is_null())
            .order_by_desc(api_keys::Column::CreatedAt)
            .all(self.conn())
            .await?
            .into_iter()
            .map(ApiKeyRecord::from)
            .collect())
    }

    /// Revokes a person's own API keys (not the organisation keys they made); returns how
    /// many.
    pub async fn revoke_personal_keys(
        &self,
        user: UserId,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        self.revoke_keys(
            Condition::all()
                .add(api_keys::Column::UserId.eq(user.as_uuid()))
                .add(api_keys::Column::OrgId.is_null()),
            now,
        )
        .await
    }

    /// Revokes the keys matching `which` that are not revoked yet; returns how many.
    async fn revoke_keys(&self, which: Condition, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let result = api_keys::Entity::update_many()
            .col_expr(api_keys::Column::RevokedAt, Expr::value(now))
            .filter(which)
            .filter(api_keys::Column::RevokedAt.is_null())
            .exec(self.conn())
            .await?;
        Ok(result.rows_affected)
    }

    /// An organisation's keys that are not revoked, newest first.
    pub async fn active_org_keys(
        &self,
        org: domain::OrgId,
    ) -> Result<Vec<ApiKeyRecord>, StoreError> {
        self.active_keys(Condition::all().add(api_keys::Column::OrgId.eq(org.as_uuid())))
            .await
    }

    /// Revokes the organisation keys `maker` made (they left, or are no longer an admin).
    pub async fn revoke_keys_made_by(
        &self,
        org: domain::OrgId,
        maker: UserId,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        self.revoke_keys(
            Condition::all()
                .add(api_keys::Column::OrgId.eq(org.as_uuid()))
                .add(api_keys::Column::UserId.eq(maker.as_uuid())),
            now,
        )
        .await
    }

    /// Revokes an organisation's key; `false` when it has no such active key.
    pub async fn revoke_org_key(
        &self,
        org: domain::OrgId,
        id: ApiKeyId,
        now: DateTime<Utc>,
        audit: Option<&crate::Audit>,
    ) -> Result<bool, StoreError> {
        let txn = self.write().await?;
        let revoked = api_keys::Entity::update_many()
            .col_expr(api_keys::Column::RevokedAt, Expr::value(now))
            .filter(api_keys::Column::Id.eq(id.as_uuid()))
            .filter(api_keys::Column::OrgId.eq(org.as_uuid()))
            .filter(api_keys::Column::RevokedAt.is_null())
            .exec(&txn)
            .await?
            .rows_affected
            == 1;
        if revoked {
            crate::identity::audit::record(&txn, audit).await?;
        }
        txn.commit().await?;
        Ok(revoked)
    }

    /// The user's own keys (not organisations') that are not revoked, newest first.
    pub async fn active_api_keys_of(&self, user: UserId) -> Result<Vec<ApiKeyRecord>, StoreError> {
        self.active_keys(
            Condition::all()
                .add(api_keys::Column::UserId.eq(user.as_uuid()))
                .add(api_keys::Column::OrgId.is_null()),
        )
        .await
    }

    pub async fn api_key_by_hash(
        &self,
        key_hash: &str,
    ) -> Result<Option<ApiKeyRecord>, StoreError> {
        Ok(api_keys::Entity::find()
            .filter(api_keys::Column::KeyHash.eq(key_hash))
            .one(self.conn())
            .await?
            .map(ApiKeyRecord::from))
    }

    pub async fn touch_api_key(&self, id: ApiKeyId, now: DateTime<Utc>) -> Result<(), StoreError> {
        api_keys::Entity::update_many()
            .col_expr(api_keys::Column::LastUsedAt, Expr::value(now))
            .filter(api_keys::Column::Id.eq(id.as_uuid()))
            .exec(self.conn())
            .await?;
        Ok(())
    }

    /// Revokes the user's key; `false` when the user has no such active key.
    pub async fn revoke_api_key(
        &self,
        user: UserId,
        id: ApiKeyId,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let revoked = self
            .revoke_keys(
                Condition::all()
                    .add(api_keys::Column::Id.eq(id.as_uuid()))
                    .add(api_keys::Column::UserId.eq(user.as_uuid()))
                    .add(api_keys::Column::OrgId.is_null()),
                now,
            )
            .await?;
        Ok(revoked == 1)
    }
}
