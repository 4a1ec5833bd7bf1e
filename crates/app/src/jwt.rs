//! HS256 JSON Web Tokens, set up in one place: a key, the rules a token must meet (issuer,
//! audience, required claims, and whether its times are checked here), signing and checking.
//! API access tokens (`tokens.rs`) and booking access tokens (`access.rs`) each hold one, under
//! their own key and audience, so neither passes for the other.

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::AppError;

/// The `iss` of every token this server issues.
pub const ISSUER: &str = "gpumarket";

/// An HS256 key with its validation rules. Only HS256 is accepted: any other `alg`, `none`
/// included, fails to decode.
pub(crate) struct Hs256 {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl std::fmt::Debug for Hs256 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hs256").finish_non_exhaustive()
    }
}

impl Hs256 {
    /// A key for tokens of `audience` carrying at least `required` claims. With
    /// `leeway_secs`, `exp` (and `nbf`) are checked with that leeway; without, times are left
    /// to the caller (judged against something stored, not the token).
    pub(crate) fn new(
        secret: &[u8],
        audience: &str,
        required: &[&str],
        leeway_secs: Option<u64>,
    ) -> Result<Self, AppError> {
        let encoding = EncodingKey::from_secret(secret)
            .map_err(|e| AppError::Config(format!("jwt_secret: {e}")))?;
        let decoding = DecodingKey::from_secret(secret)
            .map_err(|e| AppError::Config(format!("jwt_secret: {e}")))?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[audience]);
        validation.set_required_spec_claims(required);
        match leeway_secs {
            Some(leeway) => validation.leeway = leeway,
            None => {
                validation.validate_exp = false;
                validation.validate_nbf = false;
            }
        }
        Ok(Self {
            encoding,
            decoding,
            validation,
        })
    }

    pub(crate) fn sign(&self, claims: &impl Serialize) -> Result<String, AppError> {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
            .map_err(|e| AppError::Internal(format!("signing a token: {e}")))
    }

    pub(crate) fn check<C: DeserializeOwned>(
        &self,
        token: &str,
    ) -> Result<C, jsonwebtoken::errors::Error> {
        jsonwebtoken::decode::<C>(token, &self.decoding, &self.validation).map(|data| data.claims)
    }
}
