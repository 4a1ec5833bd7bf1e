//! `Stripe-Signature` checking: `t=<unix time>,v1=<hex HMAC-SHA256 of "t.payload">` keyed with
//! the endpoint secret. Any `v1` may match (Stripe sends one per active secret); the timestamp
//! must be within the tolerance of now, so a captured delivery cannot be replayed later.

use hmac::{Hmac, KeyInit, Mac};
use sha2_hmac::Sha256;

/// Stripe's libraries accept deliveries up to this old.
pub const TOLERANCE_SECS: i64 = 300;

/// Why a delivery was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the Stripe-Signature header is missing")]
    Missing,
    #[error("the Stripe-Signature header has no timestamp or no v1 signature")]
    Malformed,
    #[error("no v1 signature matches the payload")]
    Mismatch,
    #[error("the signature's timestamp is {0} s away from now (at most {TOLERANCE_SECS} s)")]
    Stale(i64),
}

fn mac(secret: &str, timestamp: i64, payload: &[u8]) -> Hmac<Sha256> {
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret.as_bytes()) {
        Ok(mac) => mac,
        // HMAC takes keys of any length.
        Err(_) => unreachable!("HMAC accepts any key length"),
    };
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(payload);
    mac
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    hex::decode(text).ok()
}

/// Checks `header` over the raw `payload` at `now` (Unix seconds).
pub fn verify(
    payload: &[u8],
    header: Option<&str>,
    secret: &str,
    now: i64,
) -> Result<(), SignatureError> {
    let header = header.ok_or(SignatureError::Missing)?;
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => timestamp = value.parse::<i64>().ok(),
            Some(("v1", value)) => signatures.extend(unhex(value)),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(SignatureError::Malformed)?;
    if signatures.is_empty() {
        return Err(SignatureError::Malformed);
    }
    // Constant-time comparison, against every v1 given.
    let matched = signatures
        .iter()
        .any(|sig| mac(secret, timestamp, payload).verify_slice(sig).is_ok());
    if !matched {
        return Err(SignatureError::Mismatch);
    }
    let age = now - timestamp;
    if age.abs() > TOLERANCE_SECS {
        return Err(SignatureError::Stale(age));
    }
    Ok(())
}

/// A `Stripe-Signature` header for `payload` at `timestamp`, as Stripe computes it.
pub fn sign(payload: &[u8], secret: &str, timestamp: i64) -> String {
    let digest = mac(secret, timestamp, payload).finalize().into_bytes();
    format!("t={timestamp},v1={}", hex::encode(digest))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsec_test";

    #[test]
    fn a_signed_payload_verifies_and_anything_changed_does_not() {
        let payload = br#"{"id":"evt_1"}"#;
        let header = sign(payload, SECRET, 1_900_000_000);
        assert_eq!(
            verify(payload, Some(&header), SECRET, 1_900_000_010),
            Ok(())
        );
        assert_eq!(
            verify(br#"{"id":"evt_2"}"#, Some(&header), SECRET, 1_900_000_010),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(payload, Some(&header), "whsec_other", 1_900_000_010),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(payload, Some(&header), SECRET, 1_900_000_301),
            Err(SignatureError::Stale(301))
        );
        assert_eq!(
            verify(payload, None, SECRET, 0),
            Err(SignatureError::Missing)
        );
        assert_eq!(
            verify(payload, Some("t=1,v0=ab"), SECRET, 1),
            Err(SignatureError::Malformed)
        );
        // A second, matching signature among others is enough (secret rotation).
        let rotated = format!("{header},v1={}", "00".repeat(32));
        assert_eq!(
            verify(payload, Some(&rotated), SECRET, 1_900_000_000),
            Ok(())
        );
        // The timestamp is signed: moving it breaks the signature.
        let moved = header.replace("t=1900000000", "t=1900000100");
        assert_eq!(
            verify(payload, Some(&moved), SECRET, 1_900_000_100),
            Err(SignatureError::Mismatch)
        );
    }
}
