//! Accounts: registration, login, token rotation, API keys, and turning a bearer credential
//! into a [`Caller`].

use chrono::{DateTime, Duration, Utc};
use domain::{ApiKeyId, ApiKeyName, DisplayName, Email, KeyScope, OrgId, Password, Role, UserId};
use store::{NewApiKey, NewRefreshToken, StoreError};

pub use crate::identity::credentials::User;
use crate::identity::credentials::{
    DECOY_HASH, hash_password, login_account, login_pair, password_matches,
};
use crate::secrets::{Shape, checksummed_secret, digest, random_secret, shape};
use crate::{App, AppError, Caller, Credential};

/// Every API key starts with this, so a bearer credential tells what it is, and a leaked
/// key is easy to find with secret scanners.
pub const API_KEY_PREFIX: &str = "gpm_";
const REFRESH_TOKEN_PREFIX: &str = "gpmr_";
/// How much of a key is kept in clear to tell keys apart (prefix + 8 characters).
const SHOWN_KEY_CHARS: usize = API_KEY_PREFIX.len() + 8;
/// API keys looked up in the database (a Prometheus counter): what made-up keys would cost.
pub const KEY_LOOKUPS_METRIC: &str = "gpumarket_api_key_lookups_total";

/// An access token and the refresh token that renews it. The refresh token is shown once;
/// neither is ever printed (`{:?}` redacts them).
#[derive(Clone)]
pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
    /// Seconds the access token lives.
    pub expires_in: i64,
}

/// A key as listed: never the secret.
#[derive(Debug, Clone)]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub name: String,
    /// An organisation's key: its scopes. `None`: a person's own key.
    pub scopes: Option<Vec<KeyScope>>,
    /// The key's first characters, enough to recognise it.
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

impl From<store::ApiKeyRecord> for ApiKey {
    fn from(r: store::ApiKeyRecord) -> Self {
        Self {
            id: r.id,
            name: r.name,
            scopes: r
                .org
                .as_ref()
                .map(|(_, scopes)| KeyScope::from_stored(scopes)),
            prefix: r.prefix,
            created_at: r.created_at,
            last_used_at: r.last_used_at,
        }
    }
}

/// A key just created: the only time its secret is seen (`{:?}` redacts it).
#[derive(Clone)]
pub struct CreatedApiKey {
    pub key: ApiKey,
    pub secret: String,
    /// The listings an agent's key is bound to, each once.
    pub listing_ids: Vec<uuid::Uuid>,
}

impl std::fmt::Debug for TokenPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenPair")
            .field("expires_in", &self.expires_in)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for CreatedApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CreatedApiKey")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl App {
    /// Creates an account and signs it in; when addresses must be confirmed, a link is mailed
    /// to it. An address that has an account, confirmed or not, is 409 `email_taken`: a
    /// second registration never gets a session nor changes anything of the account. The
    /// mailbox's holder takes an unconfirmed account over with a password reset
    /// ([`App::reset_password`]), which confirms the address and ends what the registrant had.
    pub async fn register(
        &self,
        email: &str,
        password: &str,
        name: &str,
    ) -> Result<(User, TokenPair), AppError> {
        let email = Email::parse(email)?;
        let password = Password::parse(password)?;
        let name = DisplayName::parse(name)?;
        let hash = {
            let _permit = self.hashing_permit().await?;
            hash_password(password).await?
        };
        let now = Utc::now();
        let verify = self.config().email_verification_required();
        match self
            .db()
            .insert_account(UserId::new(), &email, &name, hash, now, verify)
            .await
        {
            Ok(user) => {
                if verify {
                    self.mail_confirmation(user.id, &user.email).await?;
                }
                let tokens = self.start_session(user.id, now).await?;
                Ok((user.into(), tokens))
            }
            Err(StoreError::Conflict(_)) => Err(AppError::EmailTaken),
            Err(e) => Err(e.into()),
        }
    }

    /// Signs in with email and password. Wrong email and wrong password are one error.
    /// Every limit is decided before the password is hashed:
    /// - failures of one account from one network back off (1 s, doubling, to 15 min) until
    ///   a success;
    /// - failures from one network, whatever the account, are capped a minute
    ///   (`failed_logins_per_address_per_minute`);
    /// - failures of one account from every network are capped an hour
    ///   (`login_failures_per_account_per_hour`), past which only networks that signed in to
    ///   it in the last 90 days may try: a stranger's guessing cannot lock the owner out.
    pub async fn login(
        &self,
        email: &str,
        password: &str,
        client: ipnet::IpNet,
    ) -> Result<TokenPair, AppError> {
        use crate::limits::RateClass;
        let account = login_account(email);
        let network = client.to_string();
        let pair = login_pair(email, &client);
        self.login_backoff_wait(&pair).await?;
        // Only looking: a login that then succeeds spends nothing.
        self.rate(RateClass::FailedLoginsPerAddress, &network, false)
            .await?;
        if let Err(capped) = self
            .rate(RateClass::FailedLoginsPerAccount, &account, false)
            .await
            && !self.signed_in_lately(email, &network).await?
        {
            return Err(capped);
        }
        match self.check_password(email, password).await {
            Ok(user) => {
                let now = Utc::now();
                self.login_backoff_clear(&pair).await;
                self.db()
                    .remember_login_network(user, &network, now)
                    .await?;
                self.start_session(user, now).await
            }
            Err(AppError::InvalidCredentials) => {
                self.login_backoff_failed(&pair).await;
                let _ = self
                    .rate(RateClass::FailedLoginsPerAddress, &network, true)
                    .await;
                let _ = self
                    .rate(RateClass::FailedLoginsPerAccount, &account, true)
                    .await;
                Err(AppError::InvalidCredentials)
            }
            Err(e) => Err(e),
        }
    }

    /// Whether the account of `email` signed in from `network` in the last 90 days.
    async fn signed_in_lately(&self, email: &str, network: &str) -> Result<bool, AppError> {
        let Ok(email) = Email::parse(email) else {
            return Ok(false);
        };
        let Some(user) = self.db().user_by_email(&email).await? else {
            return Ok(false);
        };
        let since = Utc::now() - Duration::days(90);
        Ok(self.db().signed_in_from(user.id, network, since).await?)
    }

    /// The account `email` and `password` prove, or `InvalidCredentials` (one error for a
    /// wrong email and a wrong password, in the same time).
    async fn check_password(&self, email: &str, password: &str) -> Result<UserId, AppError> {
        let email = Email::parse(email).map_err(|_| AppError::InvalidCredentials)?;
        let password = Password::parse(password).map_err(|_| AppError::InvalidCredentials)?;
        let _permit = self.hashing_permit().await?;
        let Some(user) = self.db().user_by_email(&email).await? else {
            let _ = password_matches(password, DECOY_HASH.to_owned()).await;
            return Err(AppError::InvalidCredentials);
        };
        if !password_matches(password, user.password_hash).await? {
            return Err(AppError::InvalidCredentials);
        }
        Ok(user.id)
    }

    /// Trades a refresh token for a new pair. Each refresh token works once: presenting one
    /// that was already used means it was stolen (or the client raced itself), so the whole
    /// family — every token descended from that login — is revoked.
    pub async fn refresh(&self, refresh_token: &str) -> Result<TokenPair, AppError> {
        let invalid = AppError::InvalidToken("the refresh token is not valid");
        let Some(record) = self
            .db()
            .refresh_token_by_hash(&digest(refresh_token))
            .await?
        else {
            return Err(invalid);
        };
        let now = Utc::now();
        // A family with any revoked token is ended as a whole: a token issued by a refresh
        // that raced the revocation is no way back in.
        if record.revoked_at.is_some() || self.db().family_revoked(record.family_id).await? {
            return Err(AppError::InvalidToken("the refresh token has been revoked"));
        }
        if record.used_at.is_some() || !self.db().consume_refresh_token(record.id, now).await? {
            let revoked = self
                .db()
                .revoke_refresh_family(record.family_id, now)
                .await?;
            self.sessions_ended(&[record.family_id]).await;
            tracing::warn!(
                user_id = %record.user_id,
                family_id = %record.family_id,
                revoked,
                "refresh token reused; its session family is revoked"
            );
            return Err(AppError::InvalidToken(
                "the refresh token was already used; the session has been revoked",
            ));
        }
        if record.expires_at <= now {
            return Err(AppError::InvalidToken("the refresh token has expired"));
        }
        self.issue_pair(record.user_id, record.family_id, now).await
    }

    /// Ends the login session a refresh token belongs to (its whole family). Idempotent: an
    /// unknown, used or revoked token ends nothing more and is no error, so the answer does
    /// not tell whether a token exists.
    pub async fn logout(&self, refresh_token: &str) -> Result<(), AppError> {
        if let Some(record) = self
            .db()
            .refresh_token_by_hash(&digest(refresh_token))
            .await?
        {
            self.db()
                .revoke_refresh_family(record.family_id, Utc::now())
                .await?;
            self.sessions_ended(&[record.family_id]).await;
        }
        Ok(())
    }

    /// Ends every login session of the caller: their access tokens are refused from now on,
    /// on every replica. API keys are not sessions: revoke those one by one.
    pub async fn revoke_all_sessions(&self, caller: Caller) -> Result<u64, AppError> {
        let ended = self
            .db()
            .revoke_sessions_of(caller.user_id, None, Utc::now())
            .await?;
        self.sessions_ended(&ended).await;
        Ok(ended.len() as u64)
    }

    /// Changes the caller's password, given the current one, ends every other login
    /// session and revokes the caller's personal API keys (unless `keep_api_keys`: someone
    /// who knew the old password may have made one). Only a signed-in person may: not an
    /// API key.
    pub async fn change_password(
        &self,
        caller: Caller,
        current: &str,
        new: &str,
        keep_api_keys: bool,
    ) -> Result<(), AppError> {
        let Credential::AccessToken { session } = caller.via else {
            return Err(AppError::Forbidden(
                "changing the password needs a signed-in session, not an API key".to_owned(),
            ));
        };
        let new = Password::parse(new).map_err(|mut e| {
            e.field = "new_password";
            e
        })?;
        let user = self
            .db()
            .user_by_id(caller.user_id)
            .await?
            .ok_or(AppError::Unauthenticated)?;
        let _permit = self.hashing_permit().await?;
        let current = Password::parse(current).map_err(|_| AppError::InvalidCredentials)?;
        if !password_matches(current, user.password_hash).await? {
            return Err(AppError::InvalidCredentials);
        }
        let hash = hash_password(new).await?;
        self.db().set_password_hash(caller.user_id, hash).await?;
        // Reset links mailed before no longer work.
        self.db()
            .void_email_tokens(caller.user_id, domain::LinkPurpose::Reset, Utc::now())
            .await?;
        let now = Utc::now();
        let ended = self
            .db()
            .revoke_sessions_of(caller.user_id, session, now)
            .await?;
        self.sessions_ended(&ended).await;
        let keys = if keep_api_keys {
            0
        } else {
            self.db().revoke_personal_keys(caller.user_id, now).await?
        };
        tracing::info!(user_id = %caller.user_id, sessions = ended.len(), keys, "password changed; other sessions and personal keys ended");
        Ok(())
    }

    async fn start_session(&self, user: UserId, now: DateTime<Utc>) -> Result<TokenPair, AppError> {
        self.issue_pair(user, uuid::Uuid::now_v7(), now).await
    }

    async fn issue_pair(
        &self,
        user: UserId,
        family_id: uuid::Uuid,
        now: DateTime<Utc>,
    ) -> Result<TokenPair, AppError> {
        let refresh_token = random_secret(REFRESH_TOKEN_PREFIX)?;
        let ttl =
            i64::try_from(self.config().accounts.refresh_token_ttl_secs).unwrap_or(i64::MAX / 2);
        self.db()
            .insert_refresh_token(NewRefreshToken {
                id: uuid::Uuid::now_v7(),
                user_id: user,
                family_id,
                token_hash: digest(&refresh_token),
                created_at: now,
                expires_at: now + Duration::seconds(ttl),
            })
            .await?;
        Ok(TokenPair {
            access_token: self.tokens().issue(user, family_id, now)?,
            refresh_token,
            expires_in: self.tokens().ttl_secs(),
        })
    }

    /// Who a bearer credential (an access token or an API key) proves the caller to be.
    pub async fn authenticate(&self, bearer: &str) -> Result<Caller, AppError> {
        if bearer.starts_with(API_KEY_PREFIX) {
            // A key no one issued costs no lookup: a wrong checksum is refused from its
            // shape, and a digest found missing lately is remembered (keys are random: a
            // missing one does not appear later).
            let invalid = AppError::InvalidToken("the API key is not valid");
            if shape(API_KEY_PREFIX, bearer) == Shape::Invalid {
                return Err(invalid);
            }
            let hash = digest(bearer);
            if self.inner.identity.unknown_keys.contains_key(&hash) {
                return Err(invalid);
            }
            metrics::counter!(KEY_LOOKUPS_METRIC).increment(1);
            let Some(key) = self.db().api_key_by_hash(&hash).await? else {
                self.inner.identity.unknown_keys.insert(hash, ());
                return Err(invalid);
            };
            if key.revoked_at.is_some() {
                return Err(AppError::InvalidToken("the API key has been revoked"));
            }
            // When the key was last used, to the minute: a key that calls often costs no
            // write per request (the gateway's streams, a busy script).
            let now = Utc::now();
            if key
                .last_used_at
                .is_none_or(|at| now - at >= chrono::Duration::minutes(1))
            {
                self.db().touch_api_key(key.id, now).await?;
            }
            let via = match &key.org {
                Some((org, scopes)) => Credential::OrgKey {
                    id: key.id,
                    org: *org,
                    scopes: crate::Scopes::of(&domain::KeyScope::from_stored(scopes)),
                },
                None => Credential::ApiKey(key.id),
            };
            return Ok(Caller {
                user_id: key.user_id,
                via,
                network: None,
            });
        }
        let (user_id, session) = self.tokens().verify(bearer)?;
        if session.is_some_and(|session| self.session_ended(session)) {
            return Err(AppError::InvalidToken("the session has ended"));
        }
        Ok(Caller {
            user_id,
            via: Credential::AccessToken { session },
            network: None,
        })
    }

    /// The caller's own account.
    pub async fn me(&self, caller: Caller) -> Result<User, AppError> {
        self.db()
            .user_by_id(caller.user_id)
            .await?
            .filter(|user| user.deleted_at.is_none())
            .map(User::from)
            // A valid token for a deleted account proves nothing.
            .ok_or(AppError::InvalidToken("the account no longer exists"))
    }

    /// Creates an API key for the caller; its secret is in the result and nowhere else.
    pub async fn create_api_key(
        &self,
        caller: Caller,
        name: &str,
    ) -> Result<CreatedApiKey, AppError> {
        self.mint_key(caller, name, None, Vec::new()).await
    }

    /// A new key of `caller`'s own, or (with `org`) an organisation's key with scopes. Only a
    /// signed-in person mints keys: a key never makes another.
    async fn mint_key(
        &self,
        caller: Caller,
        name: &str,
        org: Option<(OrgId, Vec<KeyScope>)>,
        listing_ids: Vec<uuid::Uuid>,
    ) -> Result<CreatedApiKey, AppError> {
        if !matches!(caller.via, Credential::AccessToken { .. }) {
            return Err(AppError::Forbidden(
                "API keys are made by a signed-in person, not by another API key".to_owned(),
            ));
        }
        let name = ApiKeyName::parse(name)?;
        // A key outlives sessions: an account that has not confirmed its address makes none.
        self.require_verified_email(caller).await?;
        let secret = checksummed_secret(API_KEY_PREFIX)?;
        let id = ApiKeyId::new();
        let audit = org.as_ref().map(|(org, scopes)| {
            caller.audit(
                *org,
                crate::identity::audit::action::KEY_CREATED,
                id.as_uuid(),
                serde_json::json!({
                    "scopes": scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
                    "listing_ids": listing_ids,
                }),
            )
        });
        let record = self
            .db()
            .insert_api_key(
                NewApiKey {
                    id,
                    user_id: caller.user_id,
                    name,
                    prefix: secret.chars().take(SHOWN_KEY_CHARS).collect(),
                    key_hash: digest(&secret),
                    created_at: Utc::now(),
                    org: org.map(|(org, scopes)| (org, KeyScope::to_stored(&scopes))),
                    listing_ids: listing_ids.clone(),
                },
                audit.as_ref(),
            )
            .await?;
        Ok(CreatedApiKey {
            key: record.into(),
            secret,
            listing_ids,
        })
    }

    /// A new organisation key with `scopes` (organisation admins); a key of scope `agent` is
    /// bound to `listing_ids`, the organisation's own.
    pub async fn create_org_key(
        &self,
        caller: Caller,
        org: OrgId,
        name: &str,
        scopes: &[String],
        listing_ids: &[uuid::Uuid],
    ) -> Result<CreatedApiKey, AppError> {
        self.require_role(caller, org, Role::Admin).await?;
        let scopes = KeyScope::parse_list(scopes)?;
        let listing_ids = self.key_listings(org, &scopes, listing_ids).await?;
        self.mint_key(caller, name, Some((org, scopes)), listing_ids)
            .await
    }

    /// The organisation's keys that are not revoked (organisation admins).
    pub async fn org_keys(&self, caller: Caller, org: OrgId) -> Result<Vec<ApiKey>, AppError> {
        self.require_role(caller, org, Role::Admin).await?;
        Ok(self
            .db()
            .active_org_keys(org)
            .await?
            .into_iter()
            .map(ApiKey::from)
            .collect())
    }

    /// Revokes one of the organisation's keys (organisation admins).
    pub async fn revoke_org_key(
        &self,
        caller: Caller,
        org: OrgId,
        id: ApiKeyId,
    ) -> Result<(), AppError> {
        self.require_role(caller, org, Role::Admin).await?;
        let audit = caller.audit(
            org,
            crate::identity::audit::action::KEY_REVOKED,
            id.as_uuid(),
            serde_json::json!({}),
        );
        if self
            .db()
            .revoke_org_key(org, id, Utc::now(), Some(&audit))
            .await?
        {
            Ok(())
        } else {
            Err(AppError::NotFound("api key"))
        }
    }

    pub async fn api_keys(&self, caller: Caller) -> Result<Vec<ApiKey>, AppError> {
        Ok(self
            .db()
            .active_api_keys_of(caller.user_id)
            .await?
            .into_iter()
            .map(ApiKey::from)
            .collect())
    }

    /// Revokes one of the caller's keys; another user's key is "not found", not "forbidden",
    /// so key ids cannot be probed.
    pub async fn revoke_api_key(&self, caller: Caller, id: ApiKeyId) -> Result<(), AppError> {
        if self
            .db()
            .revoke_api_key(caller.user_id, id, Utc::now())
            .await?
        {
            Ok(())
        } else {
            Err(AppError::NotFound("api key"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_are_argon2id_salted_and_verifiable() {
        let password = Password::parse("correct horse battery").unwrap();
        let a = hash_password(password.clone()).await.unwrap();
        let b = hash_password(password.clone()).await.unwrap();
        assert!(a.starts_with("$argon2id$"), "{a}");
        assert_ne!(a, b, "each hash has its own salt");
        assert!(password_matches(password, a.clone()).await.unwrap());
        let wrong = Password::parse("incorrect horse battery").unwrap();
        assert!(!password_matches(wrong, a).await.unwrap());
    }

    #[tokio::test]
    async fn the_decoy_hash_parses_and_matches_nothing() {
        let password = Password::parse("correct horse battery").unwrap();
        assert!(
            !password_matches(password, DECOY_HASH.to_owned())
                .await
                .unwrap()
        );
        assert!(argon2::PasswordHash::new(DECOY_HASH).is_ok());
    }

    #[test]
    fn secrets_shown_once_are_never_printed() {
        let pair = TokenPair {
            access_token: "eyJ.secret.access".into(),
            refresh_token: "gpmr_secret_refresh".into(),
            expires_in: 900,
        };
        let shown = format!("{pair:?}");
        assert!(!shown.contains("secret"), "{shown}");
        let created = CreatedApiKey {
            key: ApiKey {
                id: ApiKeyId::new(),
                name: "ci".into(),
                scopes: None,
                prefix: "gpm_abcdefgh".into(),
                created_at: Utc::now(),
                last_used_at: None,
            },
            secret: "gpm_abcdefgh_the_secret_part".into(),
            listing_ids: Vec::new(),
        };
        let shown = format!("{created:?}");
        assert!(
            !shown.contains("the_secret_part") && shown.contains("gpm_abcdefgh"),
            "{shown}"
        );
    }
}
