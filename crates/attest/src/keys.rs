//! Ed25519 signing keys and their published form. A key id is derived from the public key
//! (`ed25519:` and the first 16 bytes of its SHA-256, hex), so anyone can recompute it.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{DecodePrivateKey, EncodePrivateKey};
use ed25519_dalek::{Signature as Ed25519Signature, Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::AttestError;
use crate::dsse::{Envelope, Signature, encode, pae};

/// The key id of a raw 32-byte public key.
pub fn key_id(public: &[u8; 32]) -> String {
    let digest = Sha256::digest(public);
    format!("ed25519:{}", hex::encode(&digest[..16]))
}

/// A private signing key. Its `Debug` never shows the secret.
pub struct KeyPair {
    signing: SigningKey,
    key_id: String,
}

impl std::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyPair")
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

impl KeyPair {
    pub fn generate() -> Result<Self, AttestError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| AttestError::Random(e.to_string()))?;
        Ok(Self::from_signing(SigningKey::from_bytes(&seed)))
    }

    fn from_signing(signing: SigningKey) -> Self {
        let key_id = key_id(signing.verifying_key().as_bytes());
        Self { signing, key_id }
    }

    /// Reads a PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`).
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, AttestError> {
        SigningKey::from_pkcs8_pem(pem)
            .map(Self::from_signing)
            .map_err(|e| AttestError::Key(format!("not an Ed25519 PKCS#8 PEM private key: {e}")))
    }

    /// The private key as PKCS#8 PEM. Handle as a secret.
    pub fn to_pkcs8_pem(&self) -> Result<String, AttestError> {
        self.signing
            .to_pkcs8_pem(LineEnding::LF)
            .map(|pem| pem.to_string())
            .map_err(|e| AttestError::Key(e.to_string()))
    }

    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    pub fn public_key(&self) -> [u8; 32] {
        self.signing.verifying_key().to_bytes()
    }

    pub fn published(&self, created_at: &str, retired_at: Option<&str>) -> PublishedKey {
        PublishedKey {
            key_id: self.key_id.clone(),
            algorithm: "ed25519".to_owned(),
            public_key: STANDARD.encode(self.public_key()),
            created_at: created_at.to_owned(),
            retired_at: retired_at.map(str::to_owned),
        }
    }

    /// The bare Ed25519 signature of `message` (signed notes sign their text this way).
    pub fn sign_raw(&self, message: &[u8]) -> [u8; 64] {
        self.signing.sign(message).to_bytes()
    }

    /// A DSSE envelope over `payload`, signed by this key.
    pub fn sign(&self, payload_type: &str, payload: &[u8]) -> Envelope {
        let signature = self.signing.sign(&pae(payload_type, payload));
        Envelope {
            payload_type: payload_type.to_owned(),
            payload: encode(payload),
            signatures: vec![Signature {
                keyid: self.key_id.clone(),
                sig: encode(&signature.to_bytes()),
            }],
        }
    }
}

/// A public key as `GET /v1/signing-keys` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishedKey {
    pub key_id: String,
    /// Always `ed25519`.
    pub algorithm: String,
    /// Standard base64 of the 32-byte raw public key.
    pub public_key: String,
    pub created_at: String,
    /// When it stopped signing; it still verifies what it signed before.
    pub retired_at: Option<String>,
}

impl PublishedKey {
    /// The verifying key, checking that the id really is this key's.
    pub fn verifying_key(&self) -> Result<VerifyingKey, AttestError> {
        if self.algorithm != "ed25519" {
            return Err(AttestError::Key(format!(
                "unsupported algorithm {:?}",
                self.algorithm
            )));
        }
        let bytes = STANDARD
            .decode(&self.public_key)
            .map_err(|e| AttestError::Key(format!("public_key is not base64: {e}")))?;
        let raw: [u8; 32] = bytes
            .try_into()
            .map_err(|_| AttestError::Key("public_key is not 32 bytes".into()))?;
        if key_id(&raw) != self.key_id {
            return Err(AttestError::Key(format!(
                "key id {} does not match its public key",
                self.key_id
            )));
        }
        VerifyingKey::from_bytes(&raw).map_err(|e| AttestError::Key(e.to_string()))
    }
}

/// Verification needs the published keys: it lives with them, above the envelope format.
impl Envelope {
    /// The id of the first published key whose signature holds.
    pub fn verify(&self, keys: &[PublishedKey]) -> Result<String, AttestError> {
        let payload = self.payload_bytes()?;
        let message = pae(&self.payload_type, &payload);
        if self.signatures.is_empty() {
            return Err(AttestError::Unverified(
                "the envelope carries no signature".into(),
            ));
        }
        let mut why = Vec::new();
        for signature in &self.signatures {
            let Some(key) = keys.iter().find(|k| k.key_id == signature.keyid) else {
                why.push(format!("key {} is not published", signature.keyid));
                continue;
            };
            let verifying = key.verifying_key()?;
            let bytes = STANDARD
                .decode(&signature.sig)
                .map_err(|e| AttestError::Malformed(format!("signature is not base64: {e}")))?;
            let Ok(sig) = Ed25519Signature::from_slice(&bytes) else {
                why.push(format!(
                    "the signature by {} is not 64 bytes",
                    signature.keyid
                ));
                continue;
            };
            if verifying.verify(&message, &sig).is_ok() {
                return Ok(key.key_id.clone());
            }
            why.push(format!(
                "the signature by {} does not match the payload",
                signature.keyid
            ));
        }
        Err(AttestError::Unverified(why.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pem_round_trips_and_the_id_follows_the_key() {
        let key = KeyPair::generate().unwrap();
        let pem = key.to_pkcs8_pem().unwrap();
        assert!(pem.starts_with("-----BEGIN PRIVATE KEY-----"));
        let again = KeyPair::from_pkcs8_pem(&pem).unwrap();
        assert_eq!(again.key_id(), key.key_id());
        assert_eq!(again.public_key(), key.public_key());
        assert!(key.key_id().starts_with("ed25519:") && key.key_id().len() == 8 + 32);
        assert!(!format!("{key:?}").contains(&pem));
        assert!(
            KeyPair::from_pkcs8_pem(
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
            )
            .is_err()
        );
    }

    #[test]
    fn a_published_key_whose_id_lies_is_refused() {
        let key = KeyPair::generate().unwrap();
        let mut published = key.published("2026-11-29T00:00:00Z", None);
        assert!(published.verifying_key().is_ok());
        published.key_id = key_id(&[7u8; 32]);
        assert!(published.verifying_key().is_err());
    }
}
