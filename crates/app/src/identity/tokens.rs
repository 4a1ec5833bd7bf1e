//! Access tokens: short-lived HS256 JWTs. The algorithm is fixed (a token naming any other,
//! `none` included, is refused), and issuer, audience and expiry are always checked.

use std::fmt;

use chrono::{DateTime, Utc};
use domain::UserId;
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};

use crate::jwt::{Hs256, ISSUER};
use crate::secrets::random_secret;
use crate::{AppError, Config, Db};
/// The `aud` of access tokens for this API.
pub const AUDIENCE: &str = "gpumarket-api";
/// Where the generated key is kept when none is configured.
const GENERATED_KEY_NAME: &str = "jwt_hs256_key";

/// The claims of an access token.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub iss: String,
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
    /// Unique per token, so two tokens issued in the same second differ.
    pub jti: String,
    /// The login session (refresh family) the token belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
}

/// The HS256 key, in both directions.
pub struct TokenKeys {
    key: Hs256,
    ttl_secs: i64,
    /// Booking access tokens, under a key derived from the same secret.
    pub(crate) access: crate::access_keys::AccessKeys,
}

impl fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenKeys")
            .field("algorithm", &"HS256")
            .field("ttl_secs", &self.ttl_secs)
            .finish_non_exhaustive()
    }
}

impl TokenKeys {
    /// The configured key, or the one generated on first start and kept in the database.
    pub(crate) async fn resolve(
        db: &Db,
        config: &Config,
        sealer: &crate::sealed::SecretsKey,
    ) -> Result<Self, AppError> {
        let secret = match &config.keys.jwt_secret {
            Some(secret) => secret.expose_secret().to_owned(),
            None => {
                let candidate = random_secret("")?;
                crate::sealed::generated_secret(db, sealer, GENERATED_KEY_NAME, &candidate)
                    .await?
                    .expose_secret()
                    .to_owned()
            }
        };
        let ttl_secs = i64::try_from(config.accounts.access_token_ttl_secs)
            .map_err(|_| AppError::Config("access_token_ttl_secs is too large".into()))?;
        Self::from_secret(secret.as_bytes(), ttl_secs)
    }

    pub fn from_secret(secret: &[u8], ttl_secs: i64) -> Result<Self, AppError> {
        Ok(Self {
            key: Hs256::new(secret, AUDIENCE, &["exp", "iss", "aud", "sub"], Some(5))?,
            ttl_secs,
            access: crate::access_keys::AccessKeys::derive(secret)?,
        })
    }

    pub fn ttl_secs(&self) -> i64 {
        self.ttl_secs
    }

    /// A signed access token for `user` in login session `session`, valid from `now` for the
    /// configured lifetime.
    pub fn issue(
        &self,
        user: UserId,
        session: uuid::Uuid,
        now: DateTime<Utc>,
    ) -> Result<String, AppError> {
        let claims = Claims {
            sub: user.to_string(),
            iss: ISSUER.to_owned(),
            aud: AUDIENCE.to_owned(),
            iat: now.timestamp(),
            exp: now.timestamp() + self.ttl_secs,
            jti: uuid::Uuid::new_v4().to_string(),
            sid: Some(session.to_string()),
        };
        self.key.sign(&claims)
    }

    /// The user a token proves and its login session, or why it proves nothing.
    pub fn verify(&self, token: &str) -> Result<(UserId, Option<uuid::Uuid>), AppError> {
        use jsonwebtoken::errors::ErrorKind;
        let claims: Claims = self.key.check(token).map_err(|e| {
            AppError::InvalidToken(match e.kind() {
                ErrorKind::ExpiredSignature => "the access token has expired",
                ErrorKind::InvalidAlgorithm => "the access token's algorithm is not accepted",
                ErrorKind::InvalidSignature => "the access token's signature does not match",
                ErrorKind::InvalidAudience => "the access token is not for this API",
                ErrorKind::InvalidIssuer => "the access token was not issued here",
                _ => "the access token is malformed",
            })
        })?;
        let user = claims
            .sub
            .parse()
            .map_err(|_| AppError::InvalidToken("the access token's subject is malformed"))?;
        let session = claims.sid.and_then(|sid| sid.parse().ok());
        Ok((user, session))
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    use super::*;

    fn keys() -> TokenKeys {
        TokenKeys::from_secret(b"0123456789abcdef0123456789abcdef", 900).unwrap()
    }

    fn reason(err: AppError) -> &'static str {
        match err {
            AppError::InvalidToken(why) => why,
            other => panic!("expected InvalidToken, got {other:?}"),
        }
    }

    #[test]
    fn a_token_proves_its_user_until_it_expires() {
        let user = UserId::new();
        let token = keys()
            .issue(user, uuid::Uuid::now_v7(), Utc::now())
            .unwrap();
        assert_eq!(keys().verify(&token).unwrap().0, user);

        let old = keys()
            .issue(
                user,
                uuid::Uuid::now_v7(),
                Utc::now() - chrono::Duration::seconds(3600),
            )
            .unwrap();
        assert_eq!(
            reason(keys().verify(&old).unwrap_err()),
            "the access token has expired"
        );
    }

    #[test]
    fn alg_none_and_other_keys_are_refused() {
        let user = UserId::new();
        let token = keys()
            .issue(user, uuid::Uuid::now_v7(), Utc::now())
            .unwrap();
        let payload = token.split('.').nth(1).unwrap();
        let none_header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        let unsigned = format!("{none_header}.{payload}.");
        assert!(keys().verify(&unsigned).is_err());

        let other = TokenKeys::from_secret(b"another-key-another-key-another-key", 900).unwrap();
        assert_eq!(
            reason(other.verify(&token).unwrap_err()),
            "the access token's signature does not match"
        );
    }

    #[test]
    fn a_changed_payload_breaks_the_signature() {
        let token = keys()
            .issue(UserId::new(), uuid::Uuid::now_v7(), Utc::now())
            .unwrap();
        let parts: Vec<&str> = token.split('.').collect();
        let mut claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        claims["sub"] = serde_json::Value::String(UserId::new().to_string());
        let forged_payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).unwrap());
        let forged = format!("{}.{}.{}", parts[0], forged_payload, parts[2]);
        assert_eq!(
            reason(keys().verify(&forged).unwrap_err()),
            "the access token's signature does not match"
        );
    }
}
