//! Random secrets and their digests: refresh tokens and API keys are random strings shown
//! once; the database keeps only their SHA-256.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use crate::AppError;

/// `prefix` followed by 32 random bytes, base64url: 256 bits, so a plain SHA-256 is a safe
/// way to store it (no salt or slow hash is needed for secrets nobody chose).
pub(crate) fn random_secret(prefix: &str) -> Result<String, AppError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| AppError::Internal(format!("operating system random source: {e}")))?;
    Ok(format!("{prefix}{}", URL_SAFE_NO_PAD.encode(bytes)))
}

/// Hex SHA-256 of a secret, as stored and looked up.
pub(crate) fn digest(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_distinct_prefixed_and_digested() {
        let a = random_secret("gpm_").unwrap();
        let b = random_secret("gpm_").unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("gpm_"));
        assert_eq!(a.len(), 4 + 43);
        assert_eq!(digest(&a).len(), 64);
        assert_ne!(digest(&a), digest(&b));
        // Known vector: SHA-256("abc").
        assert_eq!(
            digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
