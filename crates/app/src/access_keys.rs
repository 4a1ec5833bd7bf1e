//! The key of booking access tokens, below the use cases that hold it (`tokens`, with the
//! API's keys, derived from the same secret) and the one that issues and reads the tokens
//! (`access`): HS256 under a key derived for this use alone, with its own audience.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use store::BookingRecord;
use uuid::Uuid;

use crate::AppError;
use crate::jwt::{Hs256, ISSUER};

/// The `aud` of booking access tokens.
pub const AUDIENCE: &str = "gpumarket-booking-access";
/// What every access token starts with, so scanners and people can tell it apart.
pub const PREFIX: &str = crate::secrets::BOOKING_ACCESS_PREFIX;

#[derive(Debug, Serialize, Deserialize)]
struct AccessClaims {
    /// The booking.
    sub: String,
    iss: String,
    aud: String,
    iat: i64,
    nbf: i64,
    exp: i64,
    jti: String,
}

/// The key for booking access tokens.
#[derive(Debug)]
pub(crate) struct AccessKeys {
    key: Hs256,
}

impl AccessKeys {
    pub(crate) fn derive(secret: &[u8]) -> Result<Self, AppError> {
        let key = access_key(secret)?;
        // Time is judged against the booking at introspection, not here.
        Ok(Self {
            key: Hs256::new(&key, AUDIENCE, &["exp", "nbf", "iss", "aud", "sub"], None)?,
        })
    }

    pub(crate) fn issue(
        &self,
        booking: &BookingRecord,
        now: DateTime<Utc>,
    ) -> Result<String, AppError> {
        let claims = AccessClaims {
            sub: booking.id.to_string(),
            iss: ISSUER.to_owned(),
            aud: AUDIENCE.to_owned(),
            iat: now.timestamp(),
            nbf: booking.starts_at.timestamp(),
            exp: booking.ends_at.timestamp(),
            jti: Uuid::new_v4().to_string(),
        };
        let jwt = self.key.sign(&claims)?;
        Ok(format!("{PREFIX}{jwt}"))
    }

    /// The booking a token names, when it is one of ours.
    pub(crate) fn booking_of(&self, token: &str) -> Option<Uuid> {
        let jwt = token.trim().strip_prefix(PREFIX)?;
        let claims: AccessClaims = self.key.check(jwt).ok()?;
        claims.sub.parse().ok()
    }
}

/// The key of booking access tokens: HKDF-SHA256 (RFC 5869) of the server secret, with
/// this use's label as its `info`, so it says nothing of the secret or of other uses' keys.
fn access_key(secret: &[u8]) -> Result<[u8; 32], AppError> {
    use ring::hkdf::{HKDF_SHA256, Salt};
    let failed = |_| AppError::Internal("deriving the booking access key failed".into());
    let mut key = [0u8; 32];
    Salt::new(HKDF_SHA256, b"gpumarket")
        .extract(secret)
        .expand(&[b"booking access tokens v2"], HKDF_SHA256)
        .map_err(failed)?
        .fill(&mut key)
        .map_err(failed)?;
    Ok(key)
}

#[cfg(test)]
mod key_tests {
    use super::access_key;

    /// The derivation is RFC 5869's, written out with HMAC-SHA256: extract with the salt,
    /// then the first block of expand (`T(1) = HMAC(PRK, info ‖ 0x01)`).
    #[test]
    fn the_access_key_is_hkdf_sha256_of_the_secret() {
        use ring::hmac::{HMAC_SHA256, Key, sign};
        let secret = b"test-secret-test-secret-test-secret-0123";
        let prk = sign(&Key::new(HMAC_SHA256, b"gpumarket"), secret);
        let okm = sign(
            &Key::new(HMAC_SHA256, prk.as_ref()),
            b"booking access tokens v2\x01",
        );
        assert_eq!(access_key(secret).unwrap().as_slice(), okm.as_ref());
        assert_ne!(
            access_key(b"another secret").unwrap(),
            access_key(secret).unwrap()
        );
    }
}
