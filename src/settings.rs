//! Loads the configuration: defaults, then an optional TOML file (one table a section), then
//! environment variables under their flat names (`GPUMARKET_DATABASE_URL` → `[database]
//! url`). An unknown key in either is an error naming the key.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use figment::value::{Uncased, UncasedStr};

pub fn load(file: Option<&Path>) -> anyhow::Result<app::Config> {
    let mut figment = Figment::from(Serialized::defaults(app::Config::default()));
    if let Some(file) = file {
        anyhow::ensure!(
            file.exists(),
            "config file {} does not exist",
            file.display()
        );
        refuse_flat_keys(file)?;
        figment = figment.merge(Toml::file_exact(file));
    }
    // Stripe's own variable names work too; GPUMARKET_* ones win.
    figment = figment.merge(
        Env::raw()
            .filter(|key| {
                [
                    "stripe_secret_key",
                    "stripe_api_base",
                    "stripe_webhook_secret",
                ]
                .iter()
                .any(|k| key.as_str().eq_ignore_ascii_case(k))
            })
            .map(into_section),
    );
    figment = figment.merge(
        Env::prefixed("GPUMARKET_")
            .ignore(app::config::NOT_SETTINGS)
            .map(into_section),
    );
    let config: app::Config = figment
        .extract()
        .map_err(|err| {
            // figment names the key and where it came from (file or variable).
            anyhow::anyhow!("{err}")
        })
        .context("invalid configuration")?;
    config
        .validate()
        .map_err(|why| anyhow::anyhow!(why))
        .context("invalid configuration")?;
    Ok(config)
}

/// A flat environment name's place in the sections (`database_url` → `database.url`); a name
/// that is no setting stays as it is, so the extraction refuses it by name.
fn into_section(key: &UncasedStr) -> Uncased<'_> {
    match app::config::setting_path(key.as_str()) {
        Some(path) => path.into(),
        None => key.into(),
    }
}

/// A file written before the settings had sections (`listen = …` at the top) is refused with
/// the table each key moved to, rather than with a bare "unknown field".
fn refuse_flat_keys(file: &Path) -> anyhow::Result<()> {
    let top: BTreeMap<String, figment::value::Value> = Figment::from(Toml::file_exact(file))
        .extract()
        .map_err(|err| anyhow::anyhow!("{err}"))
        .context("invalid configuration")?;
    let moved: Vec<String> = top
        .keys()
        .filter_map(|key| {
            let path = app::config::setting_path(key)?;
            let (section, name) = path.split_once('.')?;
            Some(format!("`{key}` is now `{name}` under [{section}]"))
        })
        .collect();
    anyhow::ensure!(
        moved.is_empty(),
        "invalid configuration in {}: settings live in sections now: {} (the GPUMARKET_* \
         variables are unchanged)",
        file.display(),
        moved.join(", ")
    );
    Ok(())
}
