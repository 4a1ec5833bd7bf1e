//! Renters' SSH public keys, as their account keeps them: parsed (never a private key),
//! limited to the algorithms worth trusting a machine to, kept without their comment, and
//! fingerprinted as OpenSSH prints them (`ssh-keygen -lf`).

use ssh_key::public::KeyData;
use ssh_key::{HashAlg, PublicKey};

use crate::ValidationError;

/// The most keys one account keeps.
pub const MAX_SSH_KEYS: usize = 10;

/// The fewest bits an RSA key may have.
pub const MIN_RSA_BITS: usize = 3072;

/// The longest public key line read (an RSA key of 16,384 bits is about 2,800 characters).
const MAX_LINE: usize = 8 * 1024;

/// A public key an account may keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshPublicKey {
    /// Its algorithm and key, as an `authorized_keys` line starts (`ssh-ed25519 AAAA…`),
    /// without the comment it came with.
    pub openssh: String,
    /// `SHA256:…`, as `ssh-keygen -lf` prints it.
    pub fingerprint: String,
}

impl SshPublicKey {
    /// One OpenSSH public key line (`ssh-ed25519 AAAA… comment`): ed25519, ECDSA (P-256,
    /// P-384, P-521) or RSA of at least 3,072 bits. Anything else — options before the key,
    /// certificates, security keys, DSA, short RSA, a private key, several lines — is refused,
    /// naming `public_key`.
    pub fn parse(text: &str) -> Result<Self, ValidationError> {
        let refuse = |why: String| Err(ValidationError::new("public_key", why));
        let line = text.trim();
        if line.len() > MAX_LINE {
            return refuse(format!("is longer than {MAX_LINE} characters"));
        }
        if line.contains("PRIVATE KEY") {
            return refuse(
                "is a private key: add the public one (the .pub file), and keep this one secret"
                    .to_owned(),
            );
        }
        if line.contains('\n') || line.contains('\r') {
            return refuse("must be one line: one public key".to_owned());
        }
        let Ok(key) = PublicKey::from_openssh(line) else {
            return refuse(
                "is not an OpenSSH public key line (`ssh-ed25519 AAAA… comment`, as in a .pub file)"
                    .to_owned(),
            );
        };
        let name = key.algorithm();
        match key.key_data() {
            KeyData::Ed25519(_) | KeyData::Ecdsa(_) => {}
            KeyData::Rsa(rsa) => {
                let bits = bit_length(rsa.n.as_positive_bytes().unwrap_or_default());
                if bits < MIN_RSA_BITS {
                    return refuse(format!(
                        "is an RSA key of {bits} bits: at least {MIN_RSA_BITS} (or ed25519)"
                    ));
                }
            }
            _ => {
                return refuse(format!(
                    "is a {name} key: ed25519, ECDSA or RSA of at least {MIN_RSA_BITS} bits"
                ));
            }
        }
        let bare = PublicKey::from(key.key_data().clone());
        let openssh = bare.to_openssh().map_err(|_| {
            ValidationError::new("public_key", "could not be written back as OpenSSH")
        })?;
        Ok(Self {
            openssh,
            fingerprint: key.fingerprint(HashAlg::Sha256).to_string(),
        })
    }
}

/// The bits of a big-endian unsigned integer.
fn bit_length(bytes: &[u8]) -> usize {
    let bytes = match bytes.iter().position(|b| *b != 0) {
        Some(first) => &bytes[first..],
        None => return 0,
    };
    bytes.len() * 8 - bytes[0].leading_zeros() as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_lengths() {
        assert_eq!(bit_length(&[]), 0);
        assert_eq!(bit_length(&[0, 0]), 0);
        assert_eq!(bit_length(&[0, 1]), 1);
        assert_eq!(bit_length(&[0x80, 0]), 16);
        assert_eq!(bit_length(&[0, 0x7f, 0xff]), 15);
    }
}
