//! Who the command line is, and where: named profiles in
//! `$XDG_CONFIG_HOME/gpumarket/config.toml` (else `~/.config/gpumarket/config.toml`), mode
//! 0600, each a server and a credential — an API key, or a session's refresh token with the
//! access token it last gave.
//!
//! An access token lives minutes; a command that finds it (nearly) expired refreshes it under
//! an exclusive lock of `config.toml.lock`, and reads the file again once it holds the lock: two
//! commands at once refresh once, and never present a refresh token already spent (the server
//! revokes the whole session on such reuse).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use super::Failure;

/// The profile used when none is named.
pub const DEFAULT_PROFILE: &str = "default";

/// The server when neither `--server`, `GPUMARKET_URL` nor the profile names one.
pub const DEFAULT_SERVER: &str = "http://127.0.0.1:8080";

/// An access token this close to its expiry is refreshed first.
const REFRESH_MARGIN_SECS: i64 = 30;

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    profiles: BTreeMap<String, Profile>,
}

/// One profile as stored.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub server: Option<String>,
    /// Signed in with an API key (`login --api-key`).
    pub api_key: Option<String>,
    /// Signed in with email and password: the session's refresh token...
    pub refresh_token: Option<String>,
    /// ...and the access token it last gave, until when.
    pub access_token: Option<String>,
    pub access_expires_at: Option<DateTime<Utc>>,
    /// Who signed in, for `gpumarket login --status` and messages.
    pub email: Option<String>,
}

/// The credentials file.
#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
}

impl Store {
    /// The file in the user's configuration directory.
    pub fn locate() -> Result<Self, Failure> {
        let base = match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => {
                let home = std::env::var_os("HOME").ok_or_else(|| {
                    Failure::usage(
                        "neither XDG_CONFIG_HOME nor HOME is set: no place for credentials",
                    )
                })?;
                PathBuf::from(home).join(".config")
            }
        };
        Ok(Self {
            path: base.join("gpumarket").join("config.toml"),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<ConfigFile, Failure> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => toml::from_str(&text).map_err(|e| {
                Failure::usage(format!("{} does not parse: {e}", self.path.display()))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ConfigFile::default()),
            Err(e) => Err(Failure::io(&self.path, e)),
        }
    }

    /// Writes the whole file anew (a temporary file renamed over it), readable by its owner
    /// only.
    fn write(&self, file: &ConfigFile) -> Result<(), Failure> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| Failure::io(dir, e))?;
        let text = toml::to_string(file)
            .map_err(|e| Failure::usage(format!("the credentials do not serialise: {e}")))?;
        let temporary = self.path.with_extension("toml.new");
        let mut out = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .mode(0o600)
            .open(&temporary)
            .map_err(|e| Failure::io(&temporary, e))?;
        out.set_permissions(std::fs::Permissions::from_mode(0o600))
            .and_then(|()| out.write_all(text.as_bytes()))
            .and_then(|()| out.sync_all())
            .map_err(|e| Failure::io(&temporary, e))?;
        std::fs::rename(&temporary, &self.path).map_err(|e| Failure::io(&self.path, e))
    }

    /// Holds the file's lock until dropped.
    fn lock(&self) -> Result<File, Failure> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| Failure::io(dir, e))?;
        let path = self.path.with_extension("toml.lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| Failure::io(&path, e))?;
        lock.lock().map_err(|e| Failure::io(&path, e))?;
        Ok(lock)
    }

    pub fn profile(&self, name: &str) -> Result<Option<Profile>, Failure> {
        Ok(self.read()?.profiles.remove(name))
    }

    /// Stores `profile` under `name`, replacing what was there.
    pub fn save(&self, name: &str, profile: Profile) -> Result<(), Failure> {
        let _lock = self.lock()?;
        let mut file = self.read()?;
        file.profiles.insert(name.to_owned(), profile);
        self.write(&file)
    }

    /// Forgets the profile `name`; whether there was one.
    pub fn remove(&self, name: &str) -> Result<bool, Failure> {
        let _lock = self.lock()?;
        let mut file = self.read()?;
        let had = file.profiles.remove(name).is_some();
        if had {
            self.write(&file)?;
        }
        Ok(had)
    }

    /// A bearer credential for `name`: its API key, or a current access token — refreshed
    /// with `refresh` (which calls the server) under the lock when it is (nearly) expired.
    /// `Ok(None)` when the profile holds no credential.
    pub async fn bearer<F, Fut>(&self, name: &str, refresh: F) -> Result<Option<String>, Failure>
    where
        F: FnOnce(String) -> Fut,
        Fut: std::future::Future<Output = Result<Refreshed, Failure>>,
    {
        let current = |profile: &Profile| -> Option<String> {
            if let Some(key) = &profile.api_key {
                return Some(key.clone());
            }
            match (&profile.access_token, profile.access_expires_at) {
                (Some(token), Some(until))
                    if until - Duration::seconds(REFRESH_MARGIN_SECS) > Utc::now() =>
                {
                    Some(token.clone())
                }
                _ => None,
            }
        };
        let Some(profile) = self.profile(name)? else {
            return Ok(None);
        };
        if let Some(token) = current(&profile) {
            return Ok(Some(token));
        }
        if profile.refresh_token.is_none() {
            return Ok(None);
        }
        // Another command may have refreshed it while we waited for the lock: read again.
        let _lock = self.lock()?;
        let mut file = self.read()?;
        let Some(profile) = file.profiles.get_mut(name) else {
            return Ok(None);
        };
        if let Some(token) = current(profile) {
            return Ok(Some(token));
        }
        let Some(refresh_token) = profile.refresh_token.clone() else {
            return Ok(None);
        };
        let refreshed = refresh(refresh_token).await?;
        profile.access_token = Some(refreshed.access_token.clone());
        profile.refresh_token = Some(refreshed.refresh_token);
        profile.access_expires_at = Some(Utc::now() + Duration::seconds(refreshed.expires_in));
        self.write(&file)?;
        Ok(Some(refreshed.access_token))
    }
}

/// A new pair from `POST /v1/auth/refresh` (or a login).
#[derive(Debug)]
pub struct Refreshed {
    pub access_token: String,
    pub refresh_token: String,
    pub expires_in: i64,
}
