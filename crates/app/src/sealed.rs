//! Secrets at rest: engine API keys and the secrets the server makes for itself (the JWT key,
//! the signing key) are stored sealed — AES-256-GCM under the key of `secrets_key_file`, each
//! bound to its place (table, column, row), so a sealed value copied to another row does not
//! open. A database dump or a stolen file then holds nothing usable without the key file.
//!
//! Values written before sealing existed are sealed by a start-up job ([`App::seal_stored`]),
//! row by row, so it is idempotent and resumes where a stopped start left off.

use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use secrecy::{ExposeSecret, SecretString};

use crate::secrets::random_bytes;
use crate::{App, AppError, Config, Db};

/// What starts every sealed value.
const SEALED: &str = "sealed:v1:";
/// The file a SQLite deployment's key is generated into, beside its database.
pub const GENERATED_FILE: &str = "gpumarket-secrets.key";

/// The key secrets are sealed with.
pub struct SecretsKey(LessSafeKey);

impl std::fmt::Debug for SecretsKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretsKey(..)")
    }
}

/// Where a sealed value lives: what it is bound to.
#[derive(Debug, Clone, Copy)]
pub enum Place<'a> {
    /// A listing's engine API key.
    EngineKey(uuid::Uuid),
    /// A secret of the server's own, by name.
    ServerSecret(&'a str),
    /// A webhook endpoint's signing secret.
    WebhookSecret(uuid::Uuid),
    /// The secret a rotation replaced, kept for a while.
    WebhookPreviousSecret(uuid::Uuid),
}

impl Place<'_> {
    fn aad(self) -> String {
        match self {
            Self::EngineKey(listing) => format!("listings.engine_api_key:{listing}"),
            Self::ServerSecret(name) => format!("server_secrets.value:{name}"),
            Self::WebhookSecret(id) => format!("webhook_endpoints.secret:{id}"),
            Self::WebhookPreviousSecret(id) => format!("webhook_endpoints.previous_secret:{id}"),
        }
    }
}

/// Whether a stored value is sealed.
pub fn is_sealed(stored: &str) -> bool {
    stored.starts_with(SEALED)
}

impl SecretsKey {
    fn from_hex(text: &str, origin: &str) -> Result<Self, AppError> {
        let bytes = hex::decode(text.trim())
            .ok()
            .filter(|b| b.len() == 32)
            .ok_or_else(|| {
                AppError::Config(format!(
                    "{origin}: must hold 32 random bytes as 64 hexadecimal characters \
                     (make one with `openssl rand -hex 32`)"
                ))
            })?;
        let key = UnboundKey::new(&AES_256_GCM, &bytes)
            .map_err(|_| AppError::Config(format!("{origin}: not an AES-256 key")))?;
        Ok(Self(LessSafeKey::new(key)))
    }

    /// The key in `path` (a `secrets_key_file`).
    pub fn from_file(path: &Path) -> Result<Self, AppError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| AppError::Config(format!("{}: {e}", path.display())))?;
        Self::from_hex(&text, &path.display().to_string())
    }

    /// The configured key; on SQLite without one, a key generated beside the database (with
    /// a warning: back it up with the database); on PostgreSQL, where every replica must
    /// share it, none is an error.
    pub(crate) fn resolve(config: &Config) -> Result<Self, AppError> {
        if let Some(path) = &config.keys.secrets_key_file {
            let text = std::fs::read_to_string(path).map_err(|e| {
                AppError::Config(format!("secrets_key_file {}: {e}", path.display()))
            })?;
            return Self::from_hex(&text, &format!("secrets_key_file {}", path.display()));
        }
        let url = config.database_url();
        let Some(file) = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
        else {
            return Err(AppError::Config(
                "secrets_key_file is required with PostgreSQL: every replica must seal and \
                 open secrets with the same key (make one with `openssl rand -hex 32`)"
                    .into(),
            ));
        };
        let file = file.split('?').next().unwrap_or_default();
        if file.is_empty() || file.starts_with(':') {
            tracing::warn!(
                "no secrets_key_file and an in-memory database: secrets are sealed with a key that lives as long as the process"
            );
            return Self::from_hex(&hex::encode(random_bytes::<32>()?), "a generated key");
        }
        let dir = Path::new(file).parent().unwrap_or(Path::new("."));
        let path = dir.join(GENERATED_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::from_hex(&text, &path.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                write_private(&path, &hex::encode(random_bytes::<32>()?))?;
                tracing::warn!(path = %path.display(), "no secrets_key_file: generated one beside the database; back it up with the database (without it, sealed secrets cannot be read)");
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| AppError::Config(format!("{}: {e}", path.display())))?;
                Self::from_hex(&text, &path.display().to_string())
            }
            Err(e) => Err(AppError::Config(format!("{}: {e}", path.display()))),
        }
    }

    /// `secret` sealed for `place`.
    pub fn seal(&self, place: Place<'_>, secret: &str) -> Result<String, AppError> {
        let nonce = random_bytes::<NONCE_LEN>()?;
        let mut sealed = secret.as_bytes().to_vec();
        self.0
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(place.aad()),
                &mut sealed,
            )
            .map_err(|_| AppError::Internal("sealing a secret".into()))?;
        let mut out = nonce.to_vec();
        out.extend(sealed);
        Ok(format!("{SEALED}{}", STANDARD.encode(out)))
    }

    /// A stored value opened: sealed ones with the key (an error when the key is not the one
    /// it was sealed with), values from before sealing as they are.
    pub fn open(&self, place: Place<'_>, stored: &str) -> Result<SecretString, AppError> {
        let Some(sealed) = stored.strip_prefix(SEALED) else {
            return Ok(SecretString::from(stored.to_owned()));
        };
        let wrong = || {
            AppError::Config(
                "a stored secret does not open with secrets_key_file: it is not the key the \
                 database's secrets were sealed with"
                    .into(),
            )
        };
        let bytes = STANDARD.decode(sealed).map_err(|_| wrong())?;
        if bytes.len() < NONCE_LEN {
            return Err(wrong());
        }
        let (nonce, rest) = bytes.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| wrong())?;
        let mut rest = rest.to_vec();
        let plain = self
            .0
            .open_in_place(nonce, Aad::from(place.aad()), &mut rest)
            .map_err(|_| wrong())?;
        String::from_utf8(plain.to_vec())
            .map(SecretString::from)
            .map_err(|_| wrong())
    }
}

/// The name of the canary: a known text sealed with the key, so that a key can be told to be
/// the database's at once (at start, and when a backup is restored) rather than when a
/// secret fails to open later.
pub const CANARY: &str = "canary";
const CANARY_TEXT: &str = "gpumarket: this database's secrets are sealed with this key";

/// Stores the canary sealed with `sealer` when there is none; an error when the stored one
/// does not open with it (the key is not the database's).
pub(crate) async fn keep_canary(db: &Db, sealer: &SecretsKey) -> Result<(), AppError> {
    let opened = generated_secret(db, sealer, CANARY, CANARY_TEXT).await?;
    if opened.expose_secret() == CANARY_TEXT {
        Ok(())
    } else {
        Err(AppError::Config("the canary holds another text".into()))
    }
}

/// Whether the canary stored in `db` opens with `key`: `None` when `db` has none.
pub async fn canary_opens(db: &Db, key: &SecretsKey) -> Result<Option<bool>, AppError> {
    Ok(db.server_secret(CANARY).await?.map(|stored| {
        key.open(Place::ServerSecret(CANARY), &stored)
            .is_ok_and(|text| text.expose_secret() == CANARY_TEXT)
    }))
}

/// A secret the server makes for itself, shared by every replica: the one stored under `name`
/// (sealed; one stored before sealing is sealed now), or `candidate` stored first.
pub(crate) async fn generated_secret(
    db: &Db,
    sealer: &SecretsKey,
    name: &str,
    candidate: &str,
) -> Result<SecretString, AppError> {
    let place = Place::ServerSecret(name);
    let stored = db
        .secret_or_insert(name, &sealer.seal(place, candidate)?)
        .await?;
    if !is_sealed(&stored) {
        db.replace_secret(name, &stored, &sealer.seal(place, &stored)?)
            .await?;
    }
    sealer.open(place, &stored)
}

/// Most unsealed rows sealed per pass of the start-up job.
const SEAL_BATCH: u64 = 500;

impl App {
    /// The start-up job: seals every engine API key stored before sealing existed. Row by
    /// row, each written only while it still holds what was read (idempotent, and another
    /// replica doing the same at once does no harm); a stopped start resumes where it was.
    pub async fn seal_stored(&self) -> Result<u64, AppError> {
        let mut sealed = 0;
        loop {
            let rows = self.db().unsealed_engine_keys(SEALED, SEAL_BATCH).await?;
            if rows.is_empty() {
                break;
            }
            for (listing, key) in rows {
                let new = self.inner.sealer.seal(Place::EngineKey(listing), &key)?;
                if self.db().replace_engine_key(listing, &key, &new).await? {
                    sealed += 1;
                }
            }
        }
        if sealed > 0 {
            tracing::info!(sealed, "sealed engine API keys stored in the clear");
        }
        Ok(sealed)
    }

    /// `key` sealed for listing `listing`.
    pub(crate) fn seal_engine_key(
        &self,
        listing: uuid::Uuid,
        key: &domain::EngineKey,
    ) -> Result<domain::EngineKey, AppError> {
        Ok(domain::EngineKey::new(
            self.inner
                .sealer
                .seal(Place::EngineKey(listing), key.expose())?,
        ))
    }

    /// A stored listing's engine API key, opened.
    pub fn engine_key_of(
        &self,
        listing: &store::ListingRecord,
    ) -> Result<Option<domain::EngineKey>, AppError> {
        listing
            .engine_api_key
            .as_deref()
            .map(|stored| {
                self.inner
                    .sealer
                    .open(Place::EngineKey(listing.id), stored)
                    .map(|key| domain::EngineKey::new(key.expose_secret().to_owned()))
            })
            .transpose()
    }
}

/// Writes `text` to a new file only its owner reads (never over an existing one).
fn write_private(path: &Path, text: &str) -> Result<(), AppError> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = match options.open(path) {
        Ok(file) => file,
        // Another process made it first: use theirs.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(()),
        Err(e) => return Err(AppError::Config(format!("{}: {e}", path.display()))),
    };
    file.write_all(format!("{text}\n").as_bytes())
        .map_err(|e| AppError::Config(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_only_in_its_place_and_with_its_key() {
        let key = SecretsKey::from_hex(&"ab".repeat(32), "test").unwrap();
        let listing = uuid::Uuid::now_v7();
        let sealed = key.seal(Place::EngineKey(listing), "sk-engine").unwrap();
        assert!(is_sealed(&sealed) && !sealed.contains("sk-engine"));
        assert_ne!(
            sealed,
            key.seal(Place::EngineKey(listing), "sk-engine").unwrap()
        );
        let opened = key.open(Place::EngineKey(listing), &sealed).unwrap();
        assert_eq!(opened.expose_secret(), "sk-engine");
        assert!(
            key.open(Place::EngineKey(uuid::Uuid::now_v7()), &sealed)
                .is_err()
        );
        let other = SecretsKey::from_hex(&"cd".repeat(32), "test").unwrap();
        assert!(other.open(Place::EngineKey(listing), &sealed).is_err());
        // A value from before sealing reads as it is.
        let legacy = key.open(Place::ServerSecret("x"), "plain").unwrap();
        assert_eq!(legacy.expose_secret(), "plain");
        assert!(SecretsKey::from_hex("short", "test").is_err());
        assert_eq!(format!("{key:?}"), "SecretsKey(..)");
    }
}
