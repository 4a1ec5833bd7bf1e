//! `gpumarket verify`: checks offline that a report is signed by a published key, that it is
//! in the transparency log under a signed checkpoint (`--checkpoint`, `--proof`), or that a
//! newer checkpoint extends an older one (`--consistency OLD NEW`).
//!
//! Exit codes: 0 holds; 1 bad or unknown signature (the report's or a checkpoint's); 2 not
//! included, or a bad proof; 3 inconsistent log; 4 usage or I/O error.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use attest::{Envelope, PublishedKey};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;
use tlog::Checkpoint;

/// The keys a local server publishes, when `--keys` is not given.
pub const DEFAULT_KEYS: &str = "http://127.0.0.1:8080/v1/signing-keys";
/// The largest document read from a file or URL.
const MAX_DOCUMENT_BYTES: usize = 64 * 1024 * 1024;

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The report: a DSSE envelope, or the JSON of GET /v1/reports/{id}, of an organisation
    /// report or of a community run (its receipt). Not with --consistency.
    pub file: Option<PathBuf>,
    /// The published keys: a file or URL with the JSON of GET /v1/signing-keys.
    #[arg(long, default_value = DEFAULT_KEYS)]
    pub keys: String,
    /// Also check that the report is in the log under this signed checkpoint (a file or the
    /// URL of GET /v1/log/checkpoint).
    #[arg(long)]
    pub checkpoint: Option<String>,
    /// The proof: a file or URL with the JSON of GET /v1/reports/{id}/proof (with
    /// --consistency, of GET /v1/log/consistency). Default: fetched from --server.
    #[arg(long)]
    pub proof: Option<String>,
    /// Check that the checkpoint NEW extends the checkpoint OLD (files or URLs).
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"])]
    pub consistency: Option<Vec<String>>,
    /// The server proofs are fetched from. Default: the one --keys names.
    #[arg(long)]
    pub server: Option<String>,
}

/// Why a check does not hold, with its exit code.
pub(crate) enum Refusal {
    Signature(String),
    NotIncluded(String),
    Inconsistent(String),
}

impl Refusal {
    fn report(self) -> ExitCode {
        let (code, what, why) = match self {
            Self::Signature(why) => (1, "NOT verified", why),
            Self::NotIncluded(why) => (2, "NOT included", why),
            Self::Inconsistent(why) => (3, "INCONSISTENT", why),
        };
        #[allow(clippy::print_stderr)]
        {
            eprintln!("{what}: {why}");
        }
        ExitCode::from(code)
    }
}

pub async fn verify(args: VerifyArgs) -> ExitCode {
    match run(args).await {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(refusal)) => refusal.report(),
        Err(e) => {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("error: {e:#}");
            }
            ExitCode::from(4)
        }
    }
}

async fn run(args: VerifyArgs) -> anyhow::Result<Result<(), Refusal>> {
    let keys = load_keys(&args.keys).await?;
    let server = args
        .server
        .clone()
        .or_else(|| base_of(&args.keys, "/v1/signing-keys"))
        .or_else(|| {
            args.checkpoint
                .as_deref()
                .and_then(|c| base_of(c, "/v1/log/checkpoint"))
        });
    if let Some(pair) = &args.consistency {
        if args.file.is_some() || args.checkpoint.is_some() {
            bail!("--consistency OLD NEW takes no report and no --checkpoint");
        }
        let [old, new] = pair.as_slice() else {
            bail!("--consistency takes two checkpoints");
        };
        return consistency(old, new, args.proof.as_deref(), server.as_deref(), &keys).await;
    }
    let Some(file) = &args.file else {
        bail!("name a report to verify, or use --consistency OLD NEW");
    };
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let document: Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", file.display()))?;
    // Either the envelope itself or a report with an `envelope`.
    let envelope_json = document
        .get("envelope")
        .cloned()
        .unwrap_or(document.clone());
    let envelope: Envelope = serde_json::from_value(envelope_json.clone())
        .context("the file holds neither a DSSE envelope nor a report with an `envelope`")?;
    let (statement, key_id) = match attest::verify_statement(&envelope, &keys) {
        Ok(verified) => verified,
        Err(e) => return Ok(Err(Refusal::Signature(e.to_string()))),
    };
    let retired = keys
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
    let predicate = statement["predicateType"].as_str().unwrap_or("?");
    println!("predicate: {predicate}");
    println!("kind: {}", kind_of(predicate));
    if let Some(compliance) = statement["predicate"].get("compliance") {
        println!("compliant: {}", compliance["compliant"]);
    }
    if args.checkpoint.is_none() && args.proof.is_none() {
        return Ok(Ok(()));
    }
    inclusion(&document, &envelope_json, &args, server.as_deref(), &keys).await
}

/// What a statement of this `predicateType` is, in words.
fn kind_of(predicate: &str) -> &'static str {
    match predicate {
        app::trust::reports::REPORT_PREDICATE => "benchmark report",
        app::trust::reports::ORG_PREDICATE => "organisation report",
        app::trust::liveness::UPTIME_PREDICATE => "uptime statement",
        app::trust::community::RECEIPT_PREDICATE => "community run receipt",
        _ => "unknown statement",
    }
}

/// Checks the report's leaf against a signed checkpoint.
async fn inclusion(
    document: &Value,
    envelope: &Value,
    args: &VerifyArgs,
    server: Option<&str>,
    keys: &[PublishedKey],
) -> anyhow::Result<Result<(), Refusal>> {
    let checkpoint = match &args.checkpoint {
        Some(source) => match open_checkpoint(&read_source(source).await?, keys) {
            Ok(c) => Some(c),
            Err(refusal) => return Ok(Err(refusal)),
        },
        None => None,
    };
    let proof: Value = match &args.proof {
        Some(source) => serde_json::from_str(&read_source(source).await?)
            .context("the proof is not the JSON of GET /v1/reports/{id}/proof")?,
        None => {
            let server = server.context("no --proof, and no --server to fetch it from")?;
            let id = document["id"]
                .as_str()
                .context("no --proof, and the file has no report `id` to fetch it by")?;
            let mut url = format!("{}/v1/reports/{id}/proof", server.trim_end_matches('/'));
            if let Some(c) = &checkpoint {
                url.push_str(&format!("?tree_size={}", c.size));
            }
            let (status, body) = fetch(&url).await?;
            if status == reqwest::StatusCode::ACCEPTED {
                return Ok(Err(Refusal::NotIncluded(
                    "the report is logged but in no checkpoint yet; try again shortly".into(),
                )));
            }
            if status == reqwest::StatusCode::NOT_FOUND {
                return Ok(Err(Refusal::NotIncluded(format!(
                    "{server} has no log entry for report {id}"
                ))));
            }
            anyhow::ensure!(status.is_success(), "fetching {url}: HTTP {status}");
            serde_json::from_str(&body).with_context(|| format!("{url} is not JSON"))?
        }
    };
    let checkpoint = match checkpoint {
        Some(c) => c,
        None => {
            let note = proof["checkpoint"]
                .as_str()
                .context("the proof carries no `checkpoint`")?;
            match open_checkpoint(note, keys) {
                Ok(c) => c,
                Err(refusal) => return Ok(Err(refusal)),
            }
        }
    };
    let (Some(index), Some(size)) = (proof["leaf_index"].as_u64(), proof["tree_size"].as_u64())
    else {
        bail!("the proof has no `leaf_index` and `tree_size`");
    };
    if size != checkpoint.size {
        return Ok(Err(Refusal::NotIncluded(format!(
            "the proof is for a tree of {size} leaves, the checkpoint has {}",
            checkpoint.size
        ))));
    }
    if let Some(logged) = document["log"]["leaf_index"].as_u64()
        && logged != index
    {
        return Ok(Err(Refusal::NotIncluded(format!(
            "the report says leaf {logged}, the proof leaf {index}"
        ))));
    }
    let Some(path) = hashes(&proof["inclusion_proof"]) else {
        return Ok(Err(Refusal::NotIncluded(
            "the inclusion proof is not a list of base64 SHA-256 hashes".into(),
        )));
    };
    let (leaf, _) = attest::log_leaf(envelope);
    if !tlog::verify_inclusion(
        &tlog::leaf_hash(&leaf),
        index,
        size,
        &path,
        &checkpoint.root,
    ) {
        return Ok(Err(Refusal::NotIncluded(format!(
            "the proof does not lead from the report to the root of {}'s tree of {size}",
            checkpoint.origin
        ))));
    }
    println!(
        "included: leaf {index} of {size} in {}, root {}",
        checkpoint.origin,
        STANDARD.encode(checkpoint.root)
    );
    Ok(Ok(()))
}

/// Checks that the checkpoint at `new` extends the one at `old`.
async fn consistency(
    old: &str,
    new: &str,
    proof: Option<&str>,
    server: Option<&str>,
    keys: &[PublishedKey],
) -> anyhow::Result<Result<(), Refusal>> {
    let server = server
        .map(str::to_owned)
        .or_else(|| base_of(new, "/v1/log/checkpoint"));
    let (old, new) = match (
        open_checkpoint(&read_source(old).await?, keys),
        open_checkpoint(&read_source(new).await?, keys),
    ) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(refusal), _) | (_, Err(refusal)) => return Ok(Err(refusal)),
    };
    if old.origin != new.origin {
        return Ok(Err(Refusal::Inconsistent(format!(
            "the checkpoints are of two logs: {} and {}",
            old.origin, new.origin
        ))));
    }
    if new.size < old.size {
        return Ok(Err(Refusal::Inconsistent(format!(
            "the newer checkpoint has fewer leaves ({} < {})",
            new.size, old.size
        ))));
    }
    let proof: Value = match proof {
        Some(source) => serde_json::from_str(&read_source(source).await?)
            .context("the proof is not the JSON of GET /v1/log/consistency")?,
        None => {
            let server = server.context("no --proof, and no --server to fetch it from")?;
            let url = format!(
                "{}/v1/log/consistency?first={}&second={}",
                server.trim_end_matches('/'),
                old.size,
                new.size
            );
            serde_json::from_str(&read_source(&url).await?)
                .with_context(|| format!("{url} is not JSON"))?
        }
    };
    let Some(path) = hashes(&proof["proof"]) else {
        return Ok(Err(Refusal::Inconsistent(
            "the consistency proof is not a list of base64 SHA-256 hashes".into(),
        )));
    };
    if !tlog::verify_consistency(old.size, new.size, &path, &old.root, &new.root) {
        return Ok(Err(Refusal::Inconsistent(format!(
            "the tree of {} leaves does not extend the tree of {}",
            new.size, old.size
        ))));
    }
    println!(
        "consistent: {} extends {} leaves to {}",
        new.origin, old.size, new.size
    );
    Ok(Ok(()))
}

/// Opens a signed checkpoint with the note keys of the published signing keys (named by
/// the checkpoint's origin).
pub(crate) fn open_checkpoint(note: &str, keys: &[PublishedKey]) -> Result<Checkpoint, Refusal> {
    app::trust::transparency::open_checkpoint(note, keys)
        .map_err(|e| Refusal::Signature(format!("the checkpoint: {e}")))
}

/// Base64 hashes of a proof, or `None` when any is not one.
pub(crate) fn hashes(list: &Value) -> Option<Vec<tlog::Hash>> {
    list.as_array()?
        .iter()
        .map(|h| STANDARD.decode(h.as_str()?).ok()?.try_into().ok())
        .collect()
}

/// The server's base URL when `url` is one of its endpoints.
fn base_of(url: &str, endpoint: &str) -> Option<String> {
    let is_url = url.starts_with("http://") || url.starts_with("https://");
    is_url
        .then(|| url.strip_suffix(endpoint).map(str::to_owned))
        .flatten()
}

pub async fn load_keys(source: &str) -> anyhow::Result<Vec<PublishedKey>> {
    serde_json::from_str(&read_source(source).await?)
        .context("the keys are not the JSON of GET /v1/signing-keys")
}

/// A file's text, or a URL's body (at most 64 MiB either way).
pub async fn read_source(source: &str) -> anyhow::Result<String> {
    if !(source.starts_with("http://") || source.starts_with("https://")) {
        let bytes = std::fs::read(source).with_context(|| format!("reading {source}"))?;
        anyhow::ensure!(bytes.len() <= MAX_DOCUMENT_BYTES, "{source} is over 64 MiB");
        return String::from_utf8(bytes).with_context(|| format!("{source} is not UTF-8"));
    }
    let (status, body) = fetch(source).await?;
    anyhow::ensure!(status.is_success(), "fetching {source}: HTTP {status}");
    Ok(body)
}

/// A URL's status and body (at most 64 MiB, within 60 s).
pub async fn fetch(url: &str) -> anyhow::Result<(reqwest::StatusCode, String)> {
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(60))
        .build()?;
    let response = client
        .get(url)
        .send()
        .await
        .with_context(|| format!("fetching {url}"))?;
    let status = response.status();
    let body = read_bounded(response, MAX_DOCUMENT_BYTES)
        .await
        .with_context(|| format!("reading {url}"))?;
    Ok((status, body))
}

/// A response's body as text, refused past `limit` bytes.
pub async fn read_bounded(mut response: reqwest::Response, limit: usize) -> anyhow::Result<String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        body.extend_from_slice(&chunk);
        anyhow::ensure!(body.len() <= limit, "the answer is over {limit} bytes");
    }
    Ok(String::from_utf8(body)?)
}
