//! Backups (`gpumarket backup`): an online copy of a SQLite database, and the checks a copy
//! passes before it is trusted — every stored report's signature with the published keys, the
//! transparency log's root against its last signed checkpoint, every earlier checkpoint's
//! consistency with it, and the ledger's balance per booking.

use std::collections::BTreeMap;
use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use store::Db;
use tlog::{Checkpoint, NoteVerifier};

use crate::AppError;

/// Leaves read at once when the log is replayed.
const REPLAY_PAGE: u64 = 1_000;

/// What a check read, and every problem it found (none: the copy holds).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checked {
    pub reports: usize,
    pub log_size: u64,
    pub checkpoints: usize,
    pub bookings: usize,
    pub problems: Vec<String>,
}

/// Copies the SQLite database at `database_url` to `out` while it serves (a new file).
pub async fn backup_sqlite(database_url: &str, out: &Path) -> Result<(), AppError> {
    if !database_url.starts_with("sqlite:") {
        return Err(AppError::Config(
            "backup --out copies a SQLite database; back PostgreSQL up with pg_dump (the \
             book's Backups)"
                .into(),
        ));
    }
    if out.exists() {
        return Err(AppError::Config(format!(
            "{} exists: a backup is written to a new file",
            out.display()
        )));
    }
    let db = Db::connect(database_url).await?;
    let copied = db.vacuum_into(&out.to_string_lossy()).await;
    db.close().await?;
    Ok(copied?)
}

/// Checks the backup `file` (a SQLite file) on a scratch copy, migrated to this release: the
/// backup itself is never written. With `key` (a `secrets_key_file`), also that its canary
/// opens with it.
pub async fn check_backup(file: &Path, key: Option<&Path>) -> Result<Checked, AppError> {
    let key = key.map(crate::sealed::SecretsKey::from_file).transpose()?;
    let scratch = tempfile::tempdir().map_err(|e| AppError::Internal(e.to_string()))?;
    let copy = scratch.path().join("check.db");
    std::fs::copy(file, &copy)
        .map_err(|e| AppError::Config(format!("reading {}: {e}", file.display())))?;
    let db = Db::connect(&format!("sqlite://{}?mode=rw", copy.display())).await?;
    db.migrate().await?;
    let mut checked = check_database(&db).await;
    if let (Ok(checked), Some(key)) = (&mut checked, key) {
        match crate::sealed::canary_opens(&db, &key).await? {
            Some(true) => {}
            Some(false) => checked.problems.push(
                "the secrets key does not open the backup's canary: it is not the key its \
                 secrets were sealed with"
                    .into(),
            ),
            None => checked.problems.push(
                "the backup has no canary (made before canaries): the key cannot be checked".into(),
            ),
        }
    }
    db.close().await?;
    checked
}

/// The file a `sqlite:` URL names.
fn sqlite_file(database_url: &str) -> Option<&str> {
    database_url
        .strip_prefix("sqlite://")
        .or_else(|| database_url.strip_prefix("sqlite:"))
        .map(|rest| rest.split('?').next().unwrap_or_default())
        .filter(|file| !file.is_empty() && !file.starts_with(':'))
}

/// Restores the SQLite backup `file` as the database at `database_url` (a file that does not
/// exist yet), once it passes [`check_backup`] with `key`: what it found when it does not
/// (nothing is written then), or the checks it passed.
pub async fn restore_sqlite(
    file: &Path,
    database_url: &str,
    key: Option<&Path>,
) -> Result<Checked, AppError> {
    let target = sqlite_file(database_url).ok_or_else(|| {
        AppError::Config(
            "restore writes a SQLite database file; restore PostgreSQL with psql or \
             pg_restore (the book's Backups)"
                .into(),
        )
    })?;
    if Path::new(target).exists() {
        return Err(AppError::Config(format!(
            "{target} exists: a backup is restored into a new database only"
        )));
    }
    let checked = check_backup(file, key).await?;
    if !checked.problems.is_empty() {
        return Ok(checked);
    }
    std::fs::copy(file, target).map_err(|e| AppError::Config(format!("writing {target}: {e}")))?;
    let db = Db::connect(database_url).await?;
    db.migrate().await?;
    db.close().await?;
    Ok(checked)
}

/// Runs every check on `db`.
pub async fn check_database(db: &Db) -> Result<Checked, AppError> {
    let mut checked = Checked::default();
    let keys = crate::trust::reports::published_keys(db).await?;
    for (id, envelope) in db.report_envelopes().await? {
        checked.reports += 1;
        let verified = serde_json::from_str::<attest::Envelope>(&envelope)
            .map_err(|e| e.to_string())
            .and_then(|envelope| envelope.verify(&keys).map_err(|e| e.to_string()));
        if let Err(why) = verified {
            checked.problems.push(format!(
                "report {id}: its signature does not verify ({why})"
            ));
        }
    }
    check_log(db, &keys, &mut checked).await?;
    check_ledger(db, &mut checked).await?;
    Ok(checked)
}

/// The last checkpoint's signature and root against the stored log, and each earlier one's
/// signature and consistency with it.
async fn check_log(
    db: &Db,
    keys: &[attest::PublishedKey],
    checked: &mut Checked,
) -> Result<(), AppError> {
    checked.log_size = db.log_size().await?;
    let checkpoints = db.checkpoints().await?;
    checked.checkpoints = checkpoints.len();
    let Some(latest) = checkpoints.last() else {
        return Ok(());
    };
    let opened = |note: &str| -> Result<Checkpoint, String> {
        let origin = note.lines().next().unwrap_or_default();
        let verifiers: Vec<NoteVerifier> = keys
            .iter()
            .filter_map(|k| {
                let public: [u8; 32] = STANDARD.decode(&k.public_key).ok()?.try_into().ok()?;
                NoteVerifier::new(origin, public).ok()
            })
            .collect();
        let body = tlog::open_note(note, &verifiers).map_err(|e| e.to_string())?;
        Checkpoint::parse(body).map_err(|e| e.to_string())
    };
    for checkpoint in &checkpoints {
        match opened(&checkpoint.note) {
            Ok(body) if body.size == checkpoint.size && body.root == checkpoint.root => {}
            Ok(_) => checked.problems.push(format!(
                "checkpoint {}: its signed note names another tree",
                checkpoint.size
            )),
            Err(why) => checked.problems.push(format!(
                "checkpoint {}: its signature does not verify ({why})",
                checkpoint.size
            )),
        }
    }
    if checked.log_size < latest.size {
        checked.problems.push(format!(
            "the log holds {} leaves, fewer than its last checkpoint's {}",
            checked.log_size, latest.size
        ));
        return Ok(());
    }
    // The leaves replayed from the first: each checkpoint's root is the root of the leaves
    // before its size (which also makes every two checkpoints consistent).
    let mut frontier = tlog::Frontier::default();
    let mut next = checkpoints.iter().peekable();
    while let Some(&checkpoint) = next.peek() {
        if frontier.size() == checkpoint.size {
            if frontier.root() != checkpoint.root {
                checked.problems.push(format!(
                    "the log's first {} leaves replayed do not give checkpoint {}'s root",
                    checkpoint.size, checkpoint.size
                ));
            }
            next.next();
            continue;
        }
        let start = frontier.size();
        let page = db
            .log_entries(start, checkpoint.size.min(start + REPLAY_PAGE))
            .await?;
        if page.is_empty() {
            break;
        }
        for entry in page {
            frontier.push(tlog::leaf_hash(&entry.leaf));
        }
    }
    // The stored hashes, which proofs are served from, agree.
    let size = latest.size;
    let root = db.over_log_hashes(|h| tlog::root(size, h)).await?;
    if root != latest.root {
        checked.problems.push(format!(
            "the log's stored hashes at {size} leaves do not give its last checkpoint's root"
        ));
    }
    for earlier in &checkpoints[..checkpoints.len() - 1] {
        let first = earlier.size;
        let proof = db
            .over_log_hashes(|h| tlog::consistency_proof(first, size, h))
            .await?
            .unwrap_or_default();
        if !tlog::verify_consistency(first, size, &proof, &earlier.root, &latest.root) {
            checked.problems.push(format!(
                "checkpoint {first} is not consistent with the last checkpoint ({size})"
            ));
        }
    }
    Ok(())
}

/// Per booking and currency: charges are their fee and transfer; no refund, fee refund or
/// transfer reversal exceeds what it gives back.
async fn check_ledger(db: &Db, checked: &mut Checked) -> Result<(), AppError> {
    let mut books: BTreeMap<(uuid::Uuid, String), BTreeMap<String, i64>> = BTreeMap::new();
    for sum in db.ledger_sums().await? {
        books
            .entry((sum.booking_id, sum.currency))
            .or_default()
            .insert(sum.kind, sum.amount);
    }
    checked.bookings = books.len();
    for ((booking, currency), sums) in books {
        let of = |kind: domain::LedgerKind| sums.get(kind.as_str()).copied().unwrap_or(0);
        use domain::LedgerKind as K;
        let (charge, fee, transfer) = (of(K::Charge), of(K::Fee), of(K::Transfer));
        let mut wrong = Vec::new();
        if charge != fee + transfer {
            wrong.push(format!(
                "charges {charge} are not fees {fee} and transfers {transfer}"
            ));
        }
        for (back, of_what, name) in [
            (of(K::Refund), charge, "refunds"),
            (of(K::FeeRefund), fee, "fee refunds"),
            (of(K::TransferReversal), transfer, "transfer reversals"),
        ] {
            if back > 0 || -back > of_what {
                wrong.push(format!(
                    "{name} {back} exceed what they give back ({of_what})"
                ));
            }
        }
        for why in wrong {
            checked
                .problems
                .push(format!("booking {booking} ({currency}): {why}"));
        }
    }
    Ok(())
}
