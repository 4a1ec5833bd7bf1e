//! `gpumarket verify FILE [--keys FILE_OR_URL]`: checks a signed report offline.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use attest::{Envelope, PublishedKey};
use serde_json::Value;

/// The keys a local server publishes, when `--keys` is not given.
pub const DEFAULT_KEYS: &str = "http://127.0.0.1:8080/v1/signing-keys";

pub async fn verify(file: &Path, keys: &str) -> anyhow::Result<ExitCode> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let document: Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", file.display()))?;
    // Either the envelope itself or the JSON of GET /v1/reports/{id}.
    let envelope_json = document.get("envelope").cloned().unwrap_or(document);
    let envelope: Envelope = serde_json::from_value(envelope_json)
        .context("the file holds neither a DSSE envelope nor a report with an `envelope`")?;
    let keys_text = if keys.starts_with("http://") || keys.starts_with("https://") {
        let response = reqwest::get(keys)
            .await
            .with_context(|| format!("fetching keys from {keys}"))?;
        anyhow::ensure!(
            response.status().is_success(),
            "fetching keys from {keys}: HTTP {}",
            response.status()
        );
        response.text().await?
    } else {
        std::fs::read_to_string(keys).with_context(|| format!("reading keys from {keys}"))?
    };
    let published: Vec<PublishedKey> = serde_json::from_str(&keys_text)
        .context("the keys are not the JSON of GET /v1/signing-keys")?;
    match attest::verify_statement(&envelope, &published) {
        Ok((statement, key_id)) => {
            let retired = published
                .iter()
                .find(|k| k.key_id == key_id)
                .and_then(|k| k.retired_at.clone());
            println!(
                "verified: signed by {key_id}{}",
                retired
                    .map(|r| format!(" (retired {r})"))
                    .unwrap_or_default()
            );
            println!(
                "subject: {}",
                statement["subject"][0]["name"].as_str().unwrap_or("?")
            );
            println!(
                "predicate: {}",
                statement["predicateType"].as_str().unwrap_or("?")
            );
            if let Some(compliance) = statement["predicate"].get("compliance") {
                println!("compliant: {}", compliance["compliant"]);
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("NOT verified: {e}");
            }
            Ok(ExitCode::FAILURE)
        }
    }
}
