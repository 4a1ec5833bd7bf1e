//! `gpumarket log-monitor --url URL --state FILE`: watches a server's transparency log. It
//! fetches the signed checkpoint, checks that it extends the last one it saw (a consistency
//! proof), replays the new entries — each public leaf must be a canonical DSSE envelope
//! signed by a published key and naming no engine address — and recomputes the root from
//! them and the subtrees it kept. Any disagreement exits non-zero and leaves the state as it
//! was: 1 a bad signature, 2 entries that do not make the signed root, 3 an inconsistent log,
//! 4 usage or I/O error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tlog::Frontier;

use crate::verify_cmd::{hashes, load_keys, open_checkpoint, read_source};

#[derive(Debug, clap::Args)]
pub struct LogMonitorArgs {
    /// The server's base URL (e.g. https://gpumarket.example).
    #[arg(long)]
    pub url: String,
    /// Where the monitor keeps what it has checked (created on the first run).
    #[arg(long)]
    pub state: PathBuf,
}

/// What the monitor has checked: a signed checkpoint and the complete subtrees of its tree.
#[derive(Debug, Serialize, Deserialize)]
struct State {
    origin: String,
    size: u64,
    /// Standard base64.
    root: String,
    /// The tree's complete subtrees, largest first, standard base64.
    subtrees: Vec<String>,
    /// The signed note last checked.
    checkpoint: String,
}

enum Finding {
    Signature(String),
    Root(String),
    Inconsistent(String),
}

pub async fn monitor(args: LogMonitorArgs) -> ExitCode {
    let outcome = run(&args).await;
    #[allow(clippy::print_stderr)]
    match outcome {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(finding)) => {
            let (code, why) = match finding {
                Finding::Signature(why) => (1, why),
                Finding::Root(why) => (2, why),
                Finding::Inconsistent(why) => (3, why),
            };
            eprintln!("DISAGREEMENT: {why}");
            ExitCode::from(code)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(4)
        }
    }
}

fn decode_hash(text: &str) -> anyhow::Result<tlog::Hash> {
    STANDARD
        .decode(text)
        .ok()
        .and_then(|h| h.try_into().ok())
        .context("not a base64 SHA-256 hash")
}

fn load_state(path: &Path) -> anyhow::Result<Option<(State, Frontier)>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let state: State = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a monitor's state", path.display()))?;
    let subtrees = state
        .subtrees
        .iter()
        .map(|h| decode_hash(h))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let frontier = Frontier::from_parts(state.size, subtrees)
        .with_context(|| format!("{}: subtrees do not match the size", path.display()))?;
    Ok(Some((state, frontier)))
}

async fn run(args: &LogMonitorArgs) -> anyhow::Result<Result<(), Finding>> {
    let base = args.url.trim_end_matches('/');
    let keys = load_keys(&format!("{base}/v1/signing-keys")).await?;
    let note = read_source(&format!("{base}/v1/log/checkpoint")).await?;
    let checkpoint = match open_checkpoint(&note, &keys) {
        Ok(c) => c,
        Err(_) => {
            return Ok(Err(Finding::Signature(
                "the checkpoint's signature does not verify with a published key".into(),
            )));
        }
    };
    let previous = load_state(&args.state)?;
    let mut frontier = match &previous {
        Some((state, frontier)) => {
            if state.origin != checkpoint.origin {
                return Ok(Err(Finding::Inconsistent(format!(
                    "the log was {}, it is now {}",
                    state.origin, checkpoint.origin
                ))));
            }
            if checkpoint.size < state.size {
                return Ok(Err(Finding::Inconsistent(format!(
                    "the log shrank from {} to {} leaves",
                    state.size, checkpoint.size
                ))));
            }
            let old_root = decode_hash(&state.root)?;
            if state.size > 0 {
                let url = format!(
                    "{base}/v1/log/consistency?first={}&second={}",
                    state.size, checkpoint.size
                );
                let proof: Value = serde_json::from_str(&read_source(&url).await?)
                    .with_context(|| format!("{url} is not JSON"))?;
                let path = hashes(&proof["proof"])
                    .context("the consistency proof is not a list of base64 SHA-256 hashes")?;
                if !tlog::verify_consistency(
                    state.size,
                    checkpoint.size,
                    &path,
                    &old_root,
                    &checkpoint.root,
                ) {
                    return Ok(Err(Finding::Inconsistent(format!(
                        "the tree of {} leaves does not extend the tree of {} seen before",
                        checkpoint.size, state.size
                    ))));
                }
            }
            frontier.clone()
        }
        None => Frontier::default(),
    };
    let from = frontier.size();
    let mut start = from;
    while start < checkpoint.size {
        let url = format!(
            "{base}/v1/log/entries?start={start}&end={}",
            checkpoint.size
        );
        let page: Value = serde_json::from_str(&read_source(&url).await?)
            .with_context(|| format!("{url} is not JSON"))?;
        let items = page["items"]
            .as_array()
            .context("entries without `items`")?;
        if items.is_empty() {
            return Ok(Err(Finding::Root(format!(
                "the checkpoint has {} leaves, the entries stop at {start}",
                checkpoint.size
            ))));
        }
        for item in items {
            if item["index"].as_u64() != Some(start) {
                return Ok(Err(Finding::Root(format!(
                    "entry {start} came as index {}",
                    item["index"]
                ))));
            }
            let leaf = STANDARD
                .decode(item["leaf"].as_str().unwrap_or_default())
                .context("a leaf is not base64")?;
            if let Err(finding) = check_leaf(start, &leaf, item["private"] == true, &keys) {
                return Ok(Err(finding));
            }
            frontier.push(tlog::leaf_hash(&leaf));
            start += 1;
        }
    }
    if frontier.root() != checkpoint.root {
        return Ok(Err(Finding::Root(format!(
            "the entries make a different root than the checkpoint of {} leaves",
            checkpoint.size
        ))));
    }
    let state = State {
        origin: checkpoint.origin.clone(),
        size: checkpoint.size,
        root: STANDARD.encode(checkpoint.root),
        subtrees: frontier
            .hashes()
            .iter()
            .map(|h| STANDARD.encode(h))
            .collect(),
        checkpoint: note,
    };
    let tmp = args.state.with_extension("tmp");
    std::fs::write(&tmp, serde_json::to_vec_pretty(&state)?)
        .with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &args.state)
        .with_context(|| format!("writing {}", args.state.display()))?;
    println!(
        "log {}: {} leaves, {} new entries verified, root {}",
        checkpoint.origin,
        checkpoint.size,
        checkpoint.size - from,
        state.root
    );
    Ok(Ok(()))
}

/// A public leaf is a canonical DSSE envelope signed by a published key that names no
/// engine address; a private leaf is a SHA-256 digest.
fn check_leaf(
    index: u64,
    leaf: &[u8],
    private: bool,
    keys: &[attest::PublishedKey],
) -> Result<(), Finding> {
    if private {
        return if leaf.len() == 32 {
            Ok(())
        } else {
            Err(Finding::Root(format!(
                "private entry {index} is not a SHA-256 digest"
            )))
        };
    }
    let Ok(value) = serde_json::from_slice::<Value>(leaf) else {
        return Err(Finding::Root(format!("entry {index} is not JSON")));
    };
    if attest::canonical_json(&value) != leaf {
        return Err(Finding::Root(format!(
            "entry {index} is not RFC 8785 canonical JSON"
        )));
    }
    if attest::names_engine_address(&value) {
        return Err(Finding::Root(format!(
            "entry {index} names an engine address"
        )));
    }
    let envelope: attest::Envelope = serde_json::from_value(value)
        .map_err(|_| Finding::Root(format!("entry {index} is not a DSSE envelope")))?;
    attest::verify_statement(&envelope, keys)
        .map_err(|e| Finding::Signature(format!("entry {index}: {e}")))?;
    Ok(())
}
