//! Signed reports: Ed25519 keys with ids derived from the public key, DSSE envelopes
//! (payload type `application/vnd.in-toto+json`) over in-toto Statement v1, canonical JSON,
//! and verification against published keys. No I/O beyond what callers hand in.

mod canonical;
mod dsse;
mod keys;

pub use canonical::canonical_json;
pub use dsse::{Envelope, Signature, pae};
pub use keys::{KeyPair, PublishedKey, key_id};

use serde_json::Value;

/// The DSSE payload type of every envelope here.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";
/// in-toto Statement v1.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";

#[derive(Debug, thiserror::Error)]
pub enum AttestError {
    #[error("key: {0}")]
    Key(String),
    #[error("the envelope is malformed: {0}")]
    Malformed(String),
    #[error("no signature by a published key: {0}")]
    Unverified(String),
    #[error("operating system random source: {0}")]
    Random(String),
}

/// An in-toto Statement v1 about one subject (`name` with its SHA-256 digest).
pub fn statement(
    subject: &str,
    subject_sha256: &str,
    predicate_type: &str,
    predicate: Value,
) -> Value {
    serde_json::json!({
        "_type": STATEMENT_TYPE,
        "subject": [{"name": subject, "digest": {"sha256": subject_sha256}}],
        "predicateType": predicate_type,
        "predicate": predicate,
    })
}

/// Signs `statement` (serialised canonically) into a DSSE envelope.
pub fn sign_statement(key: &KeyPair, statement: &Value) -> Envelope {
    key.sign(PAYLOAD_TYPE, &canonical_json(statement))
}

/// Verifies an envelope against published keys and returns its statement.
///
/// Holds only when a signature's `keyid` names one of `keys` and the Ed25519 signature over
/// the DSSE pre-authentication encoding verifies with that key; the payload type must be
/// in-toto's. Retired keys still verify what they signed.
pub fn verify_statement(
    envelope: &Envelope,
    keys: &[PublishedKey],
) -> Result<(Value, String), AttestError> {
    if envelope.payload_type != PAYLOAD_TYPE {
        return Err(AttestError::Malformed(format!(
            "payloadType is {:?}, not {PAYLOAD_TYPE:?}",
            envelope.payload_type
        )));
    }
    let key_id = envelope.verify(keys)?;
    let payload = envelope.payload_bytes()?;
    let statement: Value = serde_json::from_slice(&payload)
        .map_err(|e| AttestError::Malformed(format!("the payload is not JSON: {e}")))?;
    if statement.get("_type").and_then(Value::as_str) != Some(STATEMENT_TYPE) {
        return Err(AttestError::Malformed(
            "the payload is not an in-toto Statement v1".into(),
        ));
    }
    Ok((statement, key_id))
}

/// Whether an envelope's statement carries an engine address: reports signed before
/// addresses were left out put it in the claim and in the engine's facts. Such an envelope is
/// never shown to the public nor written to the transparency log.
pub fn names_engine_address(envelope: &Value) -> bool {
    let predicate = predicate_of(envelope);
    !predicate["engine"]["base_url"].is_null()
        || !predicate["hardware"]["claimed"]["engine"]["base_url"].is_null()
}

/// The predicate of an envelope's statement (`Null` when it is not one).
fn predicate_of(envelope: &Value) -> Value {
    use base64::Engine as _;
    envelope
        .get("payload")
        .and_then(Value::as_str)
        .and_then(|p| base64::engine::general_purpose::STANDARD.decode(p).ok())
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .map(|mut statement| statement["predicate"].take())
        .unwrap_or(Value::Null)
}

/// Whether a report was signed as private (`verification.visibility`: shown to its
/// organisation and share links only).
pub fn is_private_report(envelope: &Value) -> bool {
    predicate_of(envelope)["verification"]["visibility"] == "private"
}

/// An envelope's transparency-log leaf and whether it is private: the envelope as RFC 8785
/// canonical JSON; or, for a private report or one that names an engine address (which must
/// never enter the log), the SHA-256 of that — a digest that reveals nothing, marked
/// private. Anyone holding the envelope computes the same leaf.
pub fn log_leaf(envelope: &Value) -> (Vec<u8>, bool) {
    if names_engine_address(envelope) || is_private_report(envelope) {
        (private_log_leaf(envelope), true)
    } else {
        (canonical_json(envelope), false)
    }
}

/// The leaf of an envelope the log must not show (a private report, or one naming an
/// engine address): the SHA-256 of its RFC 8785 JSON, which proves its existence and
/// place without revealing anything.
fn private_log_leaf(envelope: &Value) -> Vec<u8> {
    use sha2::Digest as _;
    sha2::Sha256::digest(canonical_json(envelope)).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_statement_verifies_and_any_changed_byte_breaks_it() {
        let key = KeyPair::generate().unwrap();
        let statement = statement(
            "listing:abc",
            &"0".repeat(64),
            "https://example/predicate",
            serde_json::json!({"total_tok_s": 40.3}),
        );
        let envelope = sign_statement(&key, &statement);
        let keys = [key.published("2026-11-29T00:00:00Z", None)];
        let (verified, key_id) = verify_statement(&envelope, &keys).unwrap();
        assert_eq!(verified, statement);
        assert_eq!(key_id, key.key_id());

        // Flip each byte of the decoded payload in turn: none verifies.
        let payload = envelope.payload_bytes().unwrap();
        for i in 0..payload.len() {
            let mut changed = payload.clone();
            changed[i] ^= 0x01;
            let forged = Envelope {
                payload: dsse::encode(&changed),
                ..envelope.clone()
            };
            assert!(verify_statement(&forged, &keys).is_err(), "byte {i}");
        }
        // A key that is not published verifies nothing.
        let other = KeyPair::generate().unwrap();
        assert!(
            verify_statement(&envelope, &[other.published("2026-11-29T00:00:00Z", None)]).is_err()
        );
        // Nor does another payload type.
        let retyped = Envelope {
            payload_type: "application/json".into(),
            ..envelope.clone()
        };
        assert!(verify_statement(&retyped, &keys).is_err());
    }
}
