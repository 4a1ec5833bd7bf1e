//! Loads the configuration: defaults, then an optional TOML file, then `GPUMARKET_*`
//! variables. An unknown key in either is an error naming the key.

use std::path::Path;

use anyhow::Context;
use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};

pub fn load(file: Option<&Path>) -> anyhow::Result<app::Config> {
    let mut figment = Figment::from(Serialized::defaults(Defaults::default()));
    if let Some(file) = file {
        anyhow::ensure!(
            file.exists(),
            "config file {} does not exist",
            file.display()
        );
        figment = figment.merge(Toml::file_exact(file));
    }
    // Stripe's own variable names work too; GPUMARKET_* ones win.
    figment = figment.merge(Env::raw().filter(|key| {
        [
            "stripe_secret_key",
            "stripe_api_base",
            "stripe_webhook_secret",
        ]
        .iter()
        .any(|k| key.as_str().eq_ignore_ascii_case(k))
    }));
    figment = figment.merge(Env::prefixed("GPUMARKET_").ignore(app::config::NOT_SETTINGS));
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

/// Nothing: `app::Config`'s own defaults apply. A provider is needed for figment to have a
/// base to merge onto.
#[derive(Debug, Default, serde::Serialize)]
struct Defaults {}
