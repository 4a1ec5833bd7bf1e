//! C2SP `tlog-checkpoint` bodies and C2SP `signed-note` Ed25519 signatures over them.
//!
//! A checkpoint is the note text `<origin>\n<tree size>\n<base64 root hash>\n`; the signed
//! note appends a blank line and one line per signature, `— <key name> <base64(key hash ‖
//! signature)>`. An Ed25519 key's hash is the first four bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖
//! public key), and its verifier key is written `<name>+<key hash hex>+<base64(0x01 ‖ public
//! key)>`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use sha2::{Digest, Sha256};

use crate::{Hash, LogError};

/// The signature type byte of Ed25519 in signed notes.
const ED25519: u8 = 0x01;
/// Longest note accepted (checkpoints are ~100 bytes; the spec caps no size, we do).
pub const MAX_NOTE_BYTES: usize = 16 * 1024;

/// A tree head: the log's origin, its size and its root hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub origin: String,
    pub size: u64,
    pub root: Hash,
}

impl Checkpoint {
    /// The note text: `<origin>\n<size>\n<base64 root>\n`.
    pub fn body(&self) -> String {
        format!(
            "{}\n{}\n{}\n",
            self.origin,
            self.size,
            STANDARD.encode(self.root)
        )
    }

    /// Parses a checkpoint body (extension lines after the third are allowed and ignored).
    pub fn parse(body: &str) -> Result<Self, LogError> {
        let bad = |why: &str| LogError::Malformed(format!("checkpoint: {why}"));
        let text = body
            .strip_suffix('\n')
            .ok_or_else(|| bad("does not end in a newline"))?;
        let mut lines = text.split('\n');
        let origin = lines.next().filter(|o| !o.is_empty());
        let origin = origin.ok_or_else(|| bad("no origin line"))?;
        let size = lines.next().ok_or_else(|| bad("no tree size line"))?;
        if size.is_empty()
            || !size.bytes().all(|b| b.is_ascii_digit())
            || (size.len() > 1 && size.starts_with('0'))
        {
            return Err(bad("the tree size is not a decimal number"));
        }
        let size: u64 = size
            .parse()
            .map_err(|_| bad("the tree size is too large"))?;
        let root = lines.next().ok_or_else(|| bad("no root hash line"))?;
        let root: Hash = STANDARD
            .decode(root)
            .ok()
            .and_then(|r| r.try_into().ok())
            .ok_or_else(|| bad("the root hash is not 32 bytes of base64"))?;
        if lines.any(str::is_empty) {
            return Err(bad("an empty extension line"));
        }
        Ok(Self {
            origin: origin.to_owned(),
            size,
            root,
        })
    }
}

/// The four-byte key hash of an Ed25519 note key.
pub fn key_hash(name: &str, public: &[u8; 32]) -> [u8; 4] {
    let mut hasher = Sha256::new();
    hasher.update(name.as_bytes());
    hasher.update([b'\n', ED25519]);
    hasher.update(public);
    let digest = hasher.finalize();
    [digest[0], digest[1], digest[2], digest[3]]
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(|c| c.is_whitespace() || c == '+')
}

/// A key that verifies note signatures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteVerifier {
    pub name: String,
    pub key_hash: [u8; 4],
    pub public: [u8; 32],
}

impl NoteVerifier {
    pub fn new(name: &str, public: [u8; 32]) -> Result<Self, LogError> {
        if !valid_name(name) {
            return Err(LogError::Malformed(format!(
                "note key name {name:?}: empty, or with a space or `+`"
            )));
        }
        Ok(Self {
            name: name.to_owned(),
            key_hash: key_hash(name, &public),
            public,
        })
    }

    /// `<name>+<key hash hex>+<base64(0x01 ‖ public key)>`.
    pub fn encode(&self) -> String {
        let mut key = vec![ED25519];
        key.extend_from_slice(&self.public);
        format!(
            "{}+{}+{}",
            self.name,
            hex::encode(self.key_hash),
            STANDARD.encode(key)
        )
    }

    /// Parses the verifier key format; the key hash must match the name and key.
    pub fn parse(text: &str) -> Result<Self, LogError> {
        let bad = |why: &str| LogError::Malformed(format!("verifier key: {why}"));
        // Names and hex have no `+`; base64 may.
        let mut parts = text.trim().splitn(3, '+');
        let (Some(name), Some(hash), Some(key)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(bad("not <name>+<hash>+<key>"));
        };
        let key = STANDARD
            .decode(key)
            .map_err(|_| bad("the key is not base64"))?;
        let public: [u8; 32] = match key.split_first() {
            Some((&ED25519, public)) => public
                .try_into()
                .map_err(|_| bad("an Ed25519 key is 32 bytes"))?,
            _ => return Err(bad("not an Ed25519 key (type 0x01)")),
        };
        let verifier = Self::new(name, public)?;
        if hex::encode(verifier.key_hash) != hash {
            return Err(bad("the key hash does not match the name and key"));
        }
        Ok(verifier)
    }
}

/// A signed note: `text` followed by a blank line and `signature` (already made over `text`
/// by the key of `verifier`).
pub fn signed_note(text: &str, verifier: &NoteVerifier, signature: &[u8; 64]) -> String {
    let mut sig = verifier.key_hash.to_vec();
    sig.extend_from_slice(signature);
    format!(
        "{text}\n\u{2014} {} {}\n",
        verifier.name,
        STANDARD.encode(sig)
    )
}

/// Opens a signed note: its text, when a signature by one of `verifiers` holds over it.
/// Signatures by unknown keys are skipped; one by a known key that does not verify, a
/// malformed note, or no known signature at all is an error.
pub fn open_note<'a>(note: &'a str, verifiers: &[NoteVerifier]) -> Result<&'a str, LogError> {
    let bad = |why: &str| LogError::Malformed(format!("signed note: {why}"));
    if note.len() > MAX_NOTE_BYTES {
        return Err(bad("longer than 16 KiB"));
    }
    let split = note.rfind("\n\n").ok_or_else(|| bad("no blank line"))?;
    let (text, signatures) = (&note[..=split], &note[split + 2..]);
    if text.chars().any(|c| c.is_control() && c != '\n') {
        return Err(bad("a control character in the text"));
    }
    let signatures = signatures
        .strip_suffix('\n')
        .ok_or_else(|| bad("does not end in a newline"))?;
    let mut verified = false;
    for line in signatures.split('\n') {
        let rest = line
            .strip_prefix("\u{2014} ")
            .ok_or_else(|| bad("a signature line does not start with an em dash"))?;
        let (name, sig) = rest
            .split_once(' ')
            .ok_or_else(|| bad("a signature line has no signature"))?;
        let sig = STANDARD
            .decode(sig)
            .map_err(|_| bad("a signature is not base64"))?;
        if sig.len() < 5 {
            return Err(bad("a signature is too short"));
        }
        let (hash, sig) = sig.split_at(4);
        let Some(verifier) = verifiers
            .iter()
            .find(|v| v.name == name && v.key_hash == hash)
        else {
            continue;
        };
        let key = VerifyingKey::from_bytes(&verifier.public)
            .map_err(|_| bad("the verifier key is not an Ed25519 point"))?;
        let sig =
            Signature::from_slice(sig).map_err(|_| bad("an Ed25519 signature is 64 bytes"))?;
        if key.verify(text.as_bytes(), &sig).is_err() {
            return Err(LogError::BadSignature(format!(
                "the signature by {name} does not verify"
            )));
        }
        verified = true;
    }
    if verified {
        Ok(text)
    } else {
        Err(LogError::BadSignature(
            "no signature by a known key".to_owned(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use ed25519_dalek::{Signer, SigningKey};

    use super::*;

    fn key() -> (SigningKey, NoteVerifier) {
        let signing = SigningKey::from_bytes(&[7; 32]);
        let verifier =
            NoteVerifier::new("example.com/log", signing.verifying_key().to_bytes()).unwrap();
        (signing, verifier)
    }

    #[test]
    fn a_checkpoint_round_trips_and_its_note_verifies() {
        let (signing, verifier) = key();
        let checkpoint = Checkpoint {
            origin: "example.com/log".into(),
            size: 300,
            root: [9; 32],
        };
        let body = checkpoint.body();
        assert_eq!(Checkpoint::parse(&body).unwrap(), checkpoint);
        let note = signed_note(&body, &verifier, &signing.sign(body.as_bytes()).to_bytes());
        assert!(note.starts_with("example.com/log\n300\n"));
        assert_eq!(
            open_note(&note, std::slice::from_ref(&verifier)).unwrap(),
            body
        );
        assert_eq!(NoteVerifier::parse(&verifier.encode()).unwrap(), verifier);
        // Keys whose base64 holds `+` and `/` parse too.
        for seed in 0..64u8 {
            let public = SigningKey::from_bytes(&[seed; 32])
                .verifying_key()
                .to_bytes();
            let v = NoteVerifier::new("example.com/log", public).unwrap();
            assert_eq!(NoteVerifier::parse(&v.encode()).unwrap(), v);
        }

        // Any flipped bit of the note is refused (or, in the name, makes the key unknown).
        for i in 0..note.len() {
            for bit in 0..8 {
                let mut bytes = note.clone().into_bytes();
                bytes[i] ^= 1 << bit;
                let Ok(flipped) = String::from_utf8(bytes) else {
                    continue;
                };
                assert!(
                    open_note(&flipped, std::slice::from_ref(&verifier)).is_err(),
                    "byte {i} bit {bit}"
                );
            }
        }
        // Another key's verifier, or another name for the same key, verifies nothing.
        let other_key = SigningKey::from_bytes(&[8; 32]).verifying_key().to_bytes();
        let other = NoteVerifier::new("example.com/log", other_key).unwrap();
        assert!(open_note(&note, std::slice::from_ref(&other)).is_err());
        // Beside the signer's own verifier, the other one changes nothing.
        assert_eq!(open_note(&note, &[other, verifier.clone()]).unwrap(), body);
        let renamed = NoteVerifier::new("other.example/log", verifier.public).unwrap();
        assert!(open_note(&note, &[renamed]).is_err());
    }

    #[test]
    fn malformed_checkpoints_are_refused() {
        for body in [
            "",
            "origin\n",
            "origin\n12\n",
            "origin\n012\nAAAA\n",
            "origin\n-1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
            "origin\n1\nAAAA\n",
            "origin\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        ] {
            assert!(Checkpoint::parse(body).is_err(), "{body:?}");
        }
    }
}
