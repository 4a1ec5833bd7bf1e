//! The key reports are signed with: `signing_key_file` (PKCS#8 PEM) when configured, else one
//! generated on first start and kept in the database, so every worker signs with it. The
//! active key is published; every other published key is retired but stays published, so
//! reports it signed still verify.

use attest::KeyPair;
use chrono::Utc;

use crate::{AppError, Config, Db};

const GENERATED_KEY: &str = "signing_key_pkcs8_pem";

pub(crate) async fn resolve(
    db: &Db,
    config: &Config,
    sealer: &crate::sealed::SecretsKey,
) -> Result<KeyPair, AppError> {
    let key = match &config.keys.signing_key_file {
        Some(path) => {
            let pem = std::fs::read_to_string(path).map_err(|e| {
                AppError::Config(format!("signing_key_file {}: {e}", path.display()))
            })?;
            KeyPair::from_pkcs8_pem(&pem).map_err(|e| {
                AppError::Config(format!("signing_key_file {}: {e}", path.display()))
            })?
        }
        None => {
            let candidate = KeyPair::generate()
                .and_then(|k| k.to_pkcs8_pem())
                .map_err(|e| AppError::Internal(e.to_string()))?;
            let pem =
                crate::sealed::generated_secret(db, sealer, GENERATED_KEY, &candidate).await?;
            KeyPair::from_pkcs8_pem(secrecy::ExposeSecret::expose_secret(&pem))
                .map_err(|e| AppError::Internal(e.to_string()))?
        }
    };
    let now = Utc::now();
    let public = key.published(&now.to_rfc3339(), None).public_key;
    db.publish_signing_key(key.key_id(), &public, now).await?;
    let retired = db.retire_signing_keys_except(key.key_id(), now).await?;
    if retired > 0 {
        tracing::info!(
            key_id = key.key_id(),
            retired,
            "signing key rotated; earlier keys retired and still published"
        );
    }
    Ok(key)
}
