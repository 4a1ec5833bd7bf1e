//! Random secrets and their digests: refresh tokens and API keys are random strings shown
//! once; the database keeps only their SHA-256.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use crate::AppError;

/// What every booking access token starts with (`crate::market::access`), so scanners, people and
/// the gateway (which refuses them) can tell it apart.
pub(crate) const BOOKING_ACCESS_PREFIX: &str = "gmb_";

/// `prefix` followed by 32 random bytes, base64url: 256 bits, so a plain SHA-256 is a safe
/// way to store it (no salt or slow hash is needed for secrets nobody chose).
pub(crate) fn random_secret(prefix: &str) -> Result<String, AppError> {
    Ok(format!(
        "{prefix}{}",
        URL_SAFE_NO_PAD.encode(random_bytes::<32>()?)
    ))
}

/// `N` bytes from the operating system's random source.
pub(crate) fn random_bytes<const N: usize>() -> Result<[u8; N], AppError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes)
        .map_err(|e| AppError::Internal(format!("operating system random source: {e}")))?;
    Ok(bytes)
}

/// Characters of the checksum that ends a checksummed secret.
const CHECKSUM_CHARS: usize = 6;
/// Characters of a secret's random part (32 bytes, base64url).
const RANDOM_CHARS: usize = 43;

/// Base62 of the first 32 bits of the SHA-256 of `body`, always [`CHECKSUM_CHARS`] long.
fn checksum(body: &str) -> String {
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let digest = Sha256::digest(body.as_bytes());
    let mut n = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    let mut out = [b'0'; CHECKSUM_CHARS];
    for slot in out.iter_mut().rev() {
        *slot = DIGITS[(n % 62) as usize];
        n /= 62;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// [`random_secret`] with a checksum of it appended (as GitHub's tokens carry one): a
/// mistyped or made-up secret is told apart without looking anything up.
pub(crate) fn checksummed_secret(prefix: &str) -> Result<String, AppError> {
    let secret = random_secret(prefix)?;
    let sum = checksum(&secret);
    Ok(secret + &sum)
}

/// What a presented secret of `prefix` can be, from its shape alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Checksummed, and the checksum matches.
    Checked,
    /// Issued before secrets carried a checksum: only a lookup tells.
    Unchecked,
    /// Neither: no such secret was ever issued.
    Invalid,
}

pub(crate) fn shape(prefix: &str, secret: &str) -> Shape {
    let Some(rest) = secret.strip_prefix(prefix) else {
        return Shape::Invalid;
    };
    if !rest
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Shape::Invalid;
    }
    match rest.len() {
        RANDOM_CHARS => Shape::Unchecked,
        n if n == RANDOM_CHARS + CHECKSUM_CHARS => {
            let (body, sum) = secret.split_at(secret.len() - CHECKSUM_CHARS);
            if checksum(body) == sum {
                Shape::Checked
            } else {
                Shape::Invalid
            }
        }
        _ => Shape::Invalid,
    }
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
        // A checksummed secret is told from a mistyped one and from one issued before.
        let c = checksummed_secret("gpm_").unwrap();
        assert_eq!(c.len(), 4 + 43 + 6);
        assert_eq!(shape("gpm_", &c), Shape::Checked);
        assert_eq!(shape("gpm_", &a), Shape::Unchecked);
        let mut typo = c.clone().into_bytes();
        typo[10] = if typo[10] == b'A' { b'B' } else { b'A' };
        assert_eq!(
            shape("gpm_", &String::from_utf8(typo).unwrap()),
            Shape::Invalid
        );
        assert_eq!(shape("gpm_", "gpm_short"), Shape::Invalid);
        assert_eq!(
            shape("gpm_", &format!("{}!", &c[..c.len() - 1])),
            Shape::Invalid
        );
        assert_eq!(shape("gpmr_", &c), Shape::Invalid);
        // Known vector: SHA-256("abc").
        assert_eq!(
            digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
