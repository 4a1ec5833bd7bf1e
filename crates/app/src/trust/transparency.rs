//! The transparency log: every report the platform signs is a leaf (appended by the store in
//! the transaction that stores it); checkpoints are C2SP signed notes by the current signing
//! key, made at most every `log_checkpoint_secs` when the tree grew; proofs of inclusion and
//! consistency against them; the entries, for monitors to replay.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::Utc;
use store::{CheckpointRecord, LogEntryRecord};
use tlog::{Checkpoint, NoteVerifier};
use uuid::Uuid;

use crate::{App, AppError};

/// Most entries one page of `GET /v1/log/entries` holds.
pub const MAX_ENTRIES_PAGE: u64 = 256;

/// An inclusion proof against a checkpoint.
#[derive(Debug, Clone)]
pub struct InclusionProof {
    pub leaf_index: u64,
    pub tree_size: u64,
    /// Standard base64 of each hash, leaf to root.
    pub inclusion_proof: Vec<String>,
    /// The signed note of the checkpoint the proof leads to.
    pub checkpoint: String,
}

/// A proof, or not yet: the leaf is not in a checkpoint; ask again after `retry_after_secs`.
#[derive(Debug, Clone)]
pub enum ProofOutcome {
    Ready(InclusionProof),
    Pending { retry_after_secs: u64 },
}

/// A page of entries and where the next one starts.
#[derive(Debug, Clone)]
pub struct EntriesPage {
    pub items: Vec<LogEntry>,
    pub next_cursor: Option<u64>,
}

/// A leaf of the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub index: u64,
    /// The logged report (a listing's report, an organisation report, a community run).
    pub report_id: Uuid,
    /// `verification`, `spot_check`, `organisation`, `community_receipt`, `uptime` or
    /// `log_rollback`.
    pub kind: String,
    /// The leaf's bytes: a canonical envelope, or its SHA-256 when `private`.
    pub leaf: Vec<u8>,
    pub private: bool,
}

impl From<LogEntryRecord> for LogEntry {
    fn from(r: LogEntryRecord) -> Self {
        Self {
            index: r.index,
            report_id: r.report_id,
            kind: r.kind,
            leaf: r.leaf,
            private: r.private,
        }
    }
}

/// The predicate type of a rollback statement.
pub const ROLLBACK_PREDICATE: &str = "https://gpumarket.dev/log-rollback/v1";
/// The kind of a rollback statement's leaf.
pub const ROLLBACK_KIND: &str = "log_rollback";
const ROLLBACK_RULE: &str = "the log was restored from a backup behind a checkpoint it had \
    published; the leaves from `withdrawn_leaves.from` to `withdrawn_leaves.to` of that \
    checkpoint are lost, and the log goes on from the restored tree with this statement as its \
    next leaf: proofs against checkpoints of more than `restored.size` leaves signed before it \
    no longer hold";

/// Where the log stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogStatus {
    pub size: u64,
    pub checkpoint_size: Option<u64>,
    /// Restored behind a published checkpoint of this many leaves: nothing is signed until
    /// the rollback is accepted.
    pub held_behind: Option<u64>,
}

/// A signed checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedCheckpoint {
    pub size: u64,
    pub root: tlog::Hash,
    /// The C2SP signed note.
    pub note: String,
}

impl From<CheckpointRecord> for SignedCheckpoint {
    fn from(r: CheckpointRecord) -> Self {
        Self {
            size: r.size,
            root: r.root,
            note: r.note,
        }
    }
}

/// The log's origin when `log_origin` is not set: the host (and port, when it names one) of
/// `public_url`, followed by `/log`.
pub fn default_origin(public_url: &str) -> String {
    let host = url::Url::parse(public_url)
        .ok()
        .and_then(|u| {
            let host = u.host_str()?.to_owned();
            Some(match u.port() {
                Some(port) => format!("{host}:{port}"),
                None => host,
            })
        })
        .unwrap_or_else(|| "localhost".to_owned());
    format!("{host}/log")
}

/// A checkpoint's signed note opened with the note key of one of the published `keys` (named
/// by the checkpoint's origin).
pub fn open_checkpoint(note: &str, keys: &[attest::PublishedKey]) -> Result<Checkpoint, String> {
    let origin = note.split('\n').next().unwrap_or_default();
    let verifiers: Vec<NoteVerifier> = keys
        .iter()
        .filter_map(|k| {
            let public: [u8; 32] = STANDARD.decode(&k.public_key).ok()?.try_into().ok()?;
            NoteVerifier::new(origin, public).ok()
        })
        .collect();
    let body = tlog::open_note(note, &verifiers).map_err(|e| e.to_string())?;
    Checkpoint::parse(body).map_err(|e| e.to_string())
}

fn encode(hashes: &[tlog::Hash]) -> Vec<String> {
    hashes.iter().map(|h| STANDARD.encode(h)).collect()
}

impl App {
    /// The log's origin: the first line of every checkpoint, and the name of its note key.
    pub fn log_origin(&self) -> String {
        self.config()
            .reports
            .log_origin
            .clone()
            .unwrap_or_else(|| default_origin(&self.config().server.public_url))
    }

    /// The note verifier key of a published signing key (base64 of its raw public key).
    pub fn log_verifier_key_of(&self, public_key: &str) -> Option<String> {
        let public: [u8; 32] = STANDARD.decode(public_key).ok()?.try_into().ok()?;
        NoteVerifier::new(&self.log_origin(), public)
            .ok()
            .map(|v| v.encode())
    }

    /// The note key of the current signing key: it signs checkpoints.
    fn note_verifier(&self) -> Result<NoteVerifier, AppError> {
        NoteVerifier::new(&self.log_origin(), self.signer().public_key())
            .map_err(|e| AppError::Config(format!("log_origin: {e}")))
    }

    /// The note verifier key of the current signing key.
    pub fn log_verifier_key(&self) -> Result<String, AppError> {
        self.note_verifier().map(|v| v.encode())
    }

    /// Signs a checkpoint of the whole tree when there is none yet, or when the tree grew
    /// and the latest is at least `log_checkpoint_secs` old. The checkpoint now latest.
    pub async fn checkpoint_log(&self) -> Result<SignedCheckpoint, AppError> {
        let latest = self.db().latest_checkpoint().await?;
        let size = self.db().log_size().await?;
        if let Some(latest) = latest {
            let due = latest.created_at
                + chrono::Duration::seconds(self.config().reports.log_checkpoint_secs as i64);
            if latest.size >= size || Utc::now() < due {
                return Ok(latest.into());
            }
        }
        if let Some(floor) = self.db().log_floor().await? {
            return Err(store::StoreError::SigningHeld {
                size,
                floor: floor.size,
            }
            .into());
        }
        let root = self.db().over_log_hashes(|h| tlog::root(size, h)).await?;
        let body = Checkpoint {
            origin: self.log_origin(),
            size,
            root,
        }
        .body();
        let verifier = self.note_verifier()?;
        let note = tlog::signed_note(&body, &verifier, &self.signer().sign_raw(body.as_bytes()));
        self.db()
            .insert_checkpoint(CheckpointRecord {
                size,
                root,
                note,
                key_id: self.signer().key_id().to_owned(),
                created_at: Utc::now(),
            })
            .await?;
        let stored = self.db().latest_checkpoint().await?;
        stored
            .map(Into::into)
            .ok_or_else(|| AppError::Internal("a checkpoint vanished after insert".into()))
    }

    /// Where the log stands: its size, its latest checkpoint's, and whether it signs.
    pub async fn log_status(&self) -> Result<LogStatus, AppError> {
        let size = self.db().log_size().await?;
        let checkpoint_size = self.db().latest_checkpoint().await?.map(|c| c.size);
        let floor = self.db().log_floor().await?;
        Ok(LogStatus {
            size,
            checkpoint_size,
            held_behind: floor.map(|f| f.size),
        })
    }

    /// A rollback accepted at a restore (`gpumarket restore --accept-rollback`): signs the
    /// statement that the log was restored behind a checkpoint it had published, appends it
    /// as a leaf and signs again (one server does, however many start at once). Its index.
    pub async fn settle_rollback(&self) -> Result<Option<u64>, AppError> {
        let Some(floor) = self.db().log_floor().await? else {
            return Ok(None);
        };
        if !floor.accepted {
            tracing::error!(
                floor = floor.size,
                "signing is held: the log was restored behind a checkpoint it had published; \
                 restore with --accept-rollback to go on from the restored log"
            );
            return Ok(None);
        }
        let size = self.db().log_size().await?;
        let root = self.db().over_log_hashes(|h| tlog::root(size, h)).await?;
        let now = Utc::now();
        let origin = self.log_origin();
        let predicate = serde_json::json!({
            "origin": origin,
            "published": {
                "size": floor.size,
                "root": STANDARD.encode(floor.root),
                "checkpoint": floor.note,
            },
            "restored": {"size": size, "root": STANDARD.encode(root)},
            "withdrawn_leaves": {"from": size, "to": floor.size},
            "accepted_at": now.to_rfc3339(),
            "rule": ROLLBACK_RULE,
        });
        let digest = crate::trust::reports::sha256_hex(&attest::canonical_json(&predicate));
        let statement = attest::statement(
            &format!("gpumarket:log:{origin}:rollback:{}", floor.size),
            &digest,
            ROLLBACK_PREDICATE,
            predicate,
        );
        let envelope = serde_json::to_value(attest::sign_statement(self.signer(), &statement))
            .map_err(|e| AppError::Internal(e.to_string()))?;
        let (leaf, _) = attest::log_leaf(&envelope);
        let index = self
            .db()
            .settle_log_floor(
                &floor,
                store::NewLeaf {
                    report_id: Uuid::now_v7(),
                    kind: ROLLBACK_KIND.to_owned(),
                    leaf,
                    private: false,
                    created_at: now,
                },
            )
            .await?;
        if let Some(index) = index {
            tracing::warn!(
                index,
                restored = size,
                published = floor.size,
                "the log's rollback is logged, signed; signing goes on from the restored log"
            );
        }
        Ok(index)
    }

    /// The latest checkpoint (the first is made on demand).
    pub async fn latest_checkpoint(&self) -> Result<SignedCheckpoint, AppError> {
        match self.db().latest_checkpoint().await? {
            Some(checkpoint) => Ok(checkpoint.into()),
            None => self.checkpoint_log().await,
        }
    }

    /// The inclusion proof of a report's leaf against the latest checkpoint, or against the
    /// checkpoint of `tree_size` when given. A private report's, only for those who may see
    /// it (its organisation's members, `share` links).
    pub async fn report_proof(
        &self,
        report: uuid::Uuid,
        tree_size: Option<u64>,
        viewer: Option<crate::Caller>,
        share: Option<&str>,
    ) -> Result<ProofOutcome, AppError> {
        if let Some(record) = self.db().report_by_id(report).await? {
            self.may_see(
                &crate::trust::reports::StoredReport::of(record),
                viewer,
                share,
            )
            .await?;
        }
        let entry = self
            .db()
            .log_entry_of(report)
            .await?
            .ok_or(AppError::NotFound("report"))?;
        let checkpoint = match tree_size {
            Some(size) => self
                .db()
                .checkpoint_of_size(size)
                .await?
                .map(SignedCheckpoint::from)
                .ok_or_else(|| {
                    domain::ValidationError::new("tree_size", "is not the size of a checkpoint")
                })?,
            None => self.latest_checkpoint().await?,
        };
        if entry.index >= checkpoint.size {
            if tree_size.is_some() {
                return Err(domain::ValidationError::new(
                    "tree_size",
                    "is a checkpoint from before the report was logged",
                )
                .into());
            }
            return Ok(ProofOutcome::Pending {
                retry_after_secs: self.config().reports.log_checkpoint_secs.max(1),
            });
        }
        let (index, size) = (entry.index, checkpoint.size);
        let proof = self
            .db()
            .over_log_hashes(|h| tlog::inclusion_proof(index, size, h))
            .await?
            .ok_or_else(|| AppError::Internal("leaf index past the checkpoint".into()))?;
        Ok(ProofOutcome::Ready(InclusionProof {
            leaf_index: index,
            tree_size: size,
            inclusion_proof: encode(&proof),
            checkpoint: checkpoint.note,
        }))
    }

    /// The consistency proof from the tree of `first` leaves to the tree of `second`.
    pub async fn log_consistency(&self, first: u64, second: u64) -> Result<Vec<String>, AppError> {
        let size = self.db().log_size().await?;
        if second > size {
            return Err(domain::ValidationError::new(
                "second",
                format!("is past the log's {size} leaves"),
            )
            .into());
        }
        if first > second {
            return Err(domain::ValidationError::new("first", "must not exceed `second`").into());
        }
        let proof = self
            .db()
            .over_log_hashes(|h| tlog::consistency_proof(first, second, h))
            .await?
            .unwrap_or_default();
        Ok(encode(&proof))
    }

    /// Entries `[start, end)` (`end` defaults to the log's size), at most
    /// [`MAX_ENTRIES_PAGE`] at once.
    pub async fn log_entries(&self, start: u64, end: Option<u64>) -> Result<EntriesPage, AppError> {
        let size = self.db().log_size().await?;
        if let Some(end) = end
            && end < start
        {
            return Err(domain::ValidationError::new("end", "must not be below `start`").into());
        }
        let end = end.unwrap_or(u64::MAX).min(size);
        let page_end = end.min(start.saturating_add(MAX_ENTRIES_PAGE));
        let items = if start < page_end {
            let entries = self.db().log_entries(start, page_end).await?;
            entries.into_iter().map(LogEntry::from).collect()
        } else {
            Vec::new()
        };
        Ok(EntriesPage {
            next_cursor: (start < page_end && page_end < end).then_some(page_end),
            items,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_origin_is_the_public_host_and_log() {
        assert_eq!(default_origin("https://gpumarket.dev"), "gpumarket.dev/log");
        assert_eq!(
            default_origin("http://127.0.0.1:8080/"),
            "127.0.0.1:8080/log"
        );
        assert_eq!(
            default_origin("https://example.com:443/api"),
            "example.com/log"
        );
    }
}
