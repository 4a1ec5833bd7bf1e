//! Email addresses an account proves it holds, and passwords reset through them. A link is a
//! random token mailed to the address (the database keeps its SHA-256), used once, within a
//! day for a confirmation and an hour for a reset. No link is ever written to a log.
//!
//! With `email_verification = "required"`, an unconfirmed account signs in and reads, but
//! does not create organisations, book, list, submit runs or accept invitations
//! (`email_unverified`). Registering an address that has an account, confirmed or not, is
//! `email_taken`; the mailbox's holder takes an unconfirmed account over with a password
//! reset, which confirms the address and ends every earlier session and personal key. A
//! confirmation link only confirms.

use chrono::{Duration, Utc};
use domain::{LinkPurpose, Password, UserId};

use crate::identity::credentials::{User, hash_password, login_pair};
use crate::secrets::{digest, random_secret};
use crate::{App, AppError, Caller};

/// What every mailed token starts with.
const TOKEN_PREFIX: &str = "gme_";

impl App {
    /// Mails `email` a fresh confirmation link for `user`. A mail that cannot be sent is
    /// logged (without the link) and not an error: `POST /v1/auth/email/resend` sends another.
    pub(crate) async fn mail_confirmation(
        &self,
        user: UserId,
        email: &str,
    ) -> Result<(), AppError> {
        let token = self
            .store_email_token(user, LinkPurpose::Confirm, email, Duration::hours(24))
            .await?;
        let link = format!(
            "{}/confirm-email?token={token}",
            self.config().server.public_url.trim_end_matches('/')
        );
        let body = format!(
            "Confirm that this address is yours on gpumarket:\n\n{link}\n\n\
             The link works once, for 24 hours. If you did not sign up with this address, \
             ignore this mail: nothing happens without the link.\n"
        );
        self.send_quietly(
            crate::limits::RateClass::MailsPerAddress,
            email,
            "Confirm your email address",
            body,
        )
        .await;
        Ok(())
    }

    async fn store_email_token(
        &self,
        user: UserId,
        purpose: LinkPurpose,
        email: &str,
        ttl: Duration,
    ) -> Result<String, AppError> {
        let token = random_secret(TOKEN_PREFIX)?;
        let now = Utc::now();
        self.db()
            .insert_email_token(store::EmailTokenRecord {
                id: uuid::Uuid::now_v7(),
                user_id: user.as_uuid(),
                purpose: purpose.as_str().to_owned(),
                token_hash: digest(&token),
                email: email.to_owned(),
                password_hash: None,
                name: None,
                created_at: now,
                expires_at: now + ttl,
                used_at: None,
            })
            .await?;
        Ok(token)
    }

    /// Sends a mail unless its address had its hour's budget of this kind already (a
    /// stranger cannot flood a mailbox through us): `MailsPerAddress` for confirmations,
    /// `ResetMailsPerAddress` for resets, which anyone may ask for, so that they never use up
    /// the owner's. A failure is logged without the mail.
    async fn send_quietly(
        &self,
        budget: crate::limits::RateClass,
        to: &str,
        subject: &str,
        body: String,
    ) {
        let recipient = digest(&to.trim().to_lowercase());
        if self.rate(budget, &recipient[..32], true).await.is_err() {
            tracing::warn!("an address had its hour's mail already; this one is not sent");
            return;
        }
        if let Err(e) = self.inner.identity.mailer.send(to, subject, body).await {
            tracing::warn!(error = %e, "a mail was not sent");
        }
    }

    /// Confirms the address a confirmation link was mailed to (its other links stop
    /// working), and nothing else: a link never changes the account's password, name,
    /// sessions or keys (links mailed before this rule, which carried a second registrant's
    /// profile, confirm without it).
    pub async fn confirm_email(&self, token: &str) -> Result<User, AppError> {
        let now = Utc::now();
        let link = self
            .db()
            .use_email_token(LinkPurpose::Confirm, &digest(token.trim()), now)
            .await?
            .ok_or(AppError::NotFound("confirmation link"))?;
        let user = UserId::from(link.user_id);
        if !self.db().confirm_email(user, &link.email, now).await? {
            // Confirmed already, or the account's address changed since.
            return Err(AppError::NotFound("confirmation link"));
        }
        tracing::info!(user_id = %user, "email address confirmed");
        self.db()
            .user_by_id(user)
            .await?
            .map(User::from)
            .ok_or(AppError::NotFound("account"))
    }

    /// Mails the caller's address a fresh confirmation link (204 when it is confirmed
    /// already: nothing to do).
    pub async fn resend_confirmation(&self, caller: Caller) -> Result<(), AppError> {
        let user = self
            .db()
            .user_by_id(caller.user_id)
            .await?
            .ok_or(AppError::Unauthenticated)?;
        if !user.awaits_confirmation() {
            return Ok(());
        }
        self.mail_confirmation(user.id, &user.email).await
    }

    /// Mails a password-reset link when an account has this address. The answer is the same
    /// whether it does, and as quick: the lookup and the mail happen after it.
    pub async fn request_password_reset(&self, email: &str) -> Result<(), AppError> {
        let Ok(email) = domain::Email::parse(email) else {
            return Ok(());
        };
        let app = self.clone();
        tokio::spawn(async move {
            if let Err(e) = app.mail_reset(&email).await {
                tracing::warn!(error = %e, "a password-reset mail was not sent");
            }
        });
        Ok(())
    }

    async fn mail_reset(&self, email: &domain::Email) -> Result<(), AppError> {
        let Some(user) = self.db().user_by_email(email).await? else {
            return Ok(());
        };
        let token = self
            .store_email_token(user.id, LinkPurpose::Reset, &user.email, Duration::hours(1))
            .await?;
        let link = format!(
            "{}/reset-password?token={token}",
            self.config().server.public_url.trim_end_matches('/')
        );
        let body = format!(
            "Someone asked to reset the password of your gpumarket account:\n\n{link}\n\n\
             The link works once, for an hour. If it was not you, ignore this mail: your \
             password stays as it is.\n"
        );
        self.send_quietly(
            crate::limits::RateClass::ResetMailsPerAddress,
            &user.email,
            "Reset your password",
            body,
        )
        .await;
        Ok(())
    }

    /// Sets a new password with a reset link: the address is then confirmed too, every
    /// session and personal key ends (how the mailbox's holder takes over an account someone
    /// else registered with its address), and the failed sign-ins of this account from
    /// `client`'s network are forgiven.
    pub async fn reset_password(
        &self,
        token: &str,
        password: &str,
        client: ipnet::IpNet,
    ) -> Result<(), AppError> {
        let password = Password::parse(password)?;
        let now = Utc::now();
        let link = self
            .db()
            .use_email_token(LinkPurpose::Reset, &digest(token.trim()), now)
            .await?
            .ok_or(AppError::NotFound("password-reset link"))?;
        let user = UserId::from(link.user_id);
        let hash = {
            let _permit = self.hashing_permit().await?;
            hash_password(password).await?
        };
        self.db().set_password_hash(user, hash).await?;
        self.db().confirm_email(user, &link.email, now).await?;
        self.end_every_session_and_key(user).await?;
        // The mailbox's holder signs in from here, whatever strangers tried meanwhile.
        self.login_backoff_clear(&login_pair(&link.email, &client))
            .await;
        self.db()
            .remember_login_network(user, &client.to_string(), now)
            .await?;
        tracing::info!(user_id = %user, "password reset");
        Ok(())
    }

    /// Every login session and personal API key of `user` ends.
    async fn end_every_session_and_key(&self, user: UserId) -> Result<(), AppError> {
        let now = Utc::now();
        let ended = self.db().revoke_sessions_of(user, None, now).await?;
        self.sessions_ended(&ended).await;
        self.db().revoke_personal_keys(user, now).await?;
        Ok(())
    }

    /// `email_unverified` when addresses must be confirmed and the caller's is not.
    pub(crate) async fn require_verified_email(&self, caller: Caller) -> Result<(), AppError> {
        if !self.config().email_verification_required() {
            return Ok(());
        }
        let user = self
            .db()
            .user_by_id(caller.user_id)
            .await?
            .ok_or(AppError::Unauthenticated)?;
        if user.awaits_confirmation() {
            return Err(AppError::EmailUnverified);
        }
        Ok(())
    }
}
