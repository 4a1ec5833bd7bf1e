//! Backups (`gpumarket backup`): an online copy of a SQLite database, and the checks a copy
//! passes before it is trusted — every stored report's signature with the published keys, the
//! transparency log's root against its last signed checkpoint, every earlier checkpoint's
//! consistency with it, and the ledger's balance per booking. SQLite is copied online with
//! `VACUUM INTO`, PostgreSQL with `pg_dump`; a dump is checked in a scratch database on the
//! same server, dropped after. A restore given the newest published checkpoint never forks
//! the log: a smaller log holds signing until the rollback is accepted.

use std::collections::BTreeMap;
use std::path::Path;

use store::Db;

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
    /// Restored behind the published checkpoint given.
    pub rollback: Option<Rollback>,
}

/// A restored log behind this checkpoint (the newest the log had published): signing is
/// held until the rollback is accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rollback {
    /// The restored log's leaves.
    pub restored: u64,
    /// The published checkpoint's.
    pub published: u64,
    /// Accepted at the restore (`--accept-rollback`): the next server to start logs a signed
    /// rollback statement and signs again.
    pub accepted: bool,
}

/// What a restore needs besides the backup.
#[derive(Debug, Clone, Default)]
pub struct RestoreOptions<'a> {
    /// The key the backup's secrets were sealed with.
    pub key: Option<&'a Path>,
    /// The newest checkpoint the log had published (its signed note).
    pub checkpoint: Option<&'a Path>,
    /// Accept restoring a log smaller than `checkpoint`.
    pub accept_rollback: bool,
}

/// What kind of file a backup is, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Sqlite,
    /// `pg_dump --format=custom`.
    PgCustom,
    /// `pg_dump`'s plain SQL.
    PgPlain,
}

fn format_of(file: &Path) -> Result<Format, AppError> {
    use std::io::Read;
    let mut head = Vec::with_capacity(256);
    std::fs::File::open(file)
        .and_then(|f| f.take(256).read_to_end(&mut head))
        .map_err(|e| AppError::Config(format!("reading {}: {e}", file.display())))?;
    if head.starts_with(b"SQLite format 3\0") {
        Ok(Format::Sqlite)
    } else if head.starts_with(b"PGDMP") {
        Ok(Format::PgCustom)
    } else if String::from_utf8_lossy(&head).contains("PostgreSQL database dump") {
        Ok(Format::PgPlain)
    } else {
        Err(AppError::Config(format!(
            "{} is neither a SQLite database nor a pg_dump file",
            file.display()
        )))
    }
}

fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// Backs the database at `database_url` up to `out` (a new file) while it serves: SQLite's
/// `VACUUM INTO`, or `pg_dump --format=custom` (one snapshot of the database).
pub async fn backup(database_url: &str, out: &Path) -> Result<(), AppError> {
    if out.exists() {
        return Err(AppError::Config(format!(
            "{} exists: a backup is written to a new file",
            out.display()
        )));
    }
    if is_postgres(database_url) {
        let mut pg_dump = std::process::Command::new("pg_dump");
        pg_dump
            .args(["--format=custom", "--no-owner", "--no-privileges", "--file"])
            .arg(out);
        dbname(&mut pg_dump, database_url);
        return run_tool(pg_dump, "pg_dump").await;
    }
    let db = Db::connect(database_url).await?;
    let copied = db.vacuum_into(&out.to_string_lossy()).await;
    db.close().await?;
    Ok(copied?)
}

/// Points a PostgreSQL client tool at `url`; a password goes in its environment, never on its
/// command line (which every user of the machine can read).
fn dbname(command: &mut std::process::Command, url: &str) {
    let mut url_without = url.to_owned();
    if let Ok(mut parsed) = url::Url::parse(url)
        && let Some(password) = parsed.password().map(str::to_owned)
    {
        let decoded = percent_encoding::percent_decode_str(&password).decode_utf8_lossy();
        command.env("PGPASSWORD", decoded.as_ref());
        let _ = parsed.set_password(None);
        url_without = parsed.to_string();
    }
    command.arg(format!("--dbname={url_without}"));
}

/// Runs a PostgreSQL client tool to its end; what it said when it failed.
async fn run_tool(mut command: std::process::Command, tool: &str) -> Result<(), AppError> {
    let tool = tool.to_owned();
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .map_err(|e| AppError::Internal(e.to_string()))?
        .map_err(|e| {
            AppError::Config(format!(
                "{tool} could not be run ({e}): PostgreSQL's client tools must be on PATH"
            ))
        })?;
    if output.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr);
    let said: String = said.chars().take(2_000).collect();
    Err(AppError::Config(format!(
        "{tool} failed ({}): {}",
        output.status,
        said.trim()
    )))
}

/// Loads the pg_dump `file` into the (empty) database at `url`, in one transaction: a load that
/// fails leaves the database as empty as it was.
async fn load_dump(file: &Path, format: Format, url: &str) -> Result<(), AppError> {
    let (mut command, tool) = match format {
        Format::PgCustom => {
            let mut command = std::process::Command::new("pg_restore");
            command.args([
                "--no-owner",
                "--no-privileges",
                "--exit-on-error",
                "--single-transaction",
            ]);
            (command, "pg_restore")
        }
        _ => {
            let mut command = std::process::Command::new("psql");
            command.args([
                "--no-psqlrc",
                "--quiet",
                "--set=ON_ERROR_STOP=1",
                "--single-transaction",
            ]);
            (command, "psql")
        }
    };
    dbname(&mut command, url);
    command
        .arg(if tool == "psql" { "--file" } else { "--" })
        .arg(file);
    run_tool(command, tool).await
}

/// A backup restored where it can be checked: a copy of a SQLite file in a temporary
/// directory, or a dump loaded into a database of its own on the PostgreSQL server; either
/// is removed by [`Scratch::remove`].
struct Scratch {
    db: Db,
    place: Place,
}

enum Place {
    Dir(#[allow(dead_code)] tempfile::TempDir),
    Postgres(store::ScratchDatabase),
}

impl Scratch {
    /// `file` restored and migrated to this release; `server_url` is where a dump is loaded.
    async fn of(file: &Path, format: Format, server_url: &str) -> Result<Self, AppError> {
        if format == Format::Sqlite {
            let dir = tempfile::tempdir().map_err(|e| AppError::Internal(e.to_string()))?;
            let copy = dir.path().join("check.db");
            std::fs::copy(file, &copy)
                .map_err(|e| AppError::Config(format!("reading {}: {e}", file.display())))?;
            let db = Db::connect(&format!("sqlite://{}?mode=rw", copy.display())).await?;
            db.migrate().await?;
            return Ok(Self {
                db,
                place: Place::Dir(dir),
            });
        }
        if !is_postgres(server_url) {
            return Err(AppError::Config(
                "a pg_dump file is checked in a scratch database on a PostgreSQL server: set \
                 GPUMARKET_DATABASE_URL to one"
                    .into(),
            ));
        }
        let scratch = store::ScratchDatabase::create(server_url).await?;
        let loaded = async {
            load_dump(file, format, scratch.url()).await?;
            let db = Db::connect(scratch.url()).await?;
            db.migrate().await?;
            Ok::<_, AppError>(db)
        }
        .await;
        match loaded {
            Ok(db) => Ok(Self {
                db,
                place: Place::Postgres(scratch),
            }),
            Err(e) => {
                scratch.drop().await?;
                Err(e)
            }
        }
    }

    async fn remove(self) -> Result<(), AppError> {
        self.db.close().await?;
        if let Place::Postgres(scratch) = self.place {
            scratch.drop().await?;
        }
        Ok(())
    }
}

/// Checks the backup `file` (a SQLite file or a pg_dump file, loaded into a scratch database
/// on the server `server_url` names): the backup itself is never written. With `key` (a
/// `secrets_key_file`), also that its canary opens with it.
pub async fn check_backup(
    file: &Path,
    key: Option<&Path>,
    server_url: &str,
) -> Result<Checked, AppError> {
    let options = RestoreOptions {
        key,
        ..Default::default()
    };
    Ok(check_restorable(file, server_url, &options).await?.0)
}

/// Every check on `file` restored into a scratch database, with the floor a restore sets.
async fn check_restorable(
    file: &Path,
    server_url: &str,
    options: &RestoreOptions<'_>,
) -> Result<(Checked, Option<store::LogFloor>), AppError> {
    let key = options
        .key
        .map(crate::sealed::SecretsKey::from_file)
        .transpose()?;
    let published = options
        .checkpoint
        .map(|path| {
            std::fs::read_to_string(path)
                .map_err(|e| AppError::Config(format!("reading {}: {e}", path.display())))
        })
        .transpose()?;
    let scratch = Scratch::of(file, format_of(file)?, server_url).await?;
    let checked = async {
        let mut checked = check_database(&scratch.db).await?;
        if let Some(key) = key {
            match crate::sealed::canary_opens(&scratch.db, &key).await? {
                Some(true) => {}
                Some(false) => checked.problems.push(
                    "the secrets key does not open the backup's canary: it is not the key its \
                     secrets were sealed with"
                        .into(),
                ),
                None => checked.problems.push(
                    "the backup has no canary (made before canaries): the key cannot be checked"
                        .into(),
                ),
            }
        }
        let floor = match &published {
            Some(note) => {
                against_published(&scratch.db, note, options.accept_rollback, &mut checked).await?
            }
            None => None,
        };
        Ok::<_, AppError>((checked, floor))
    }
    .await;
    scratch.remove().await?;
    checked
}

/// The backup's log against `note`, the newest checkpoint the log had published: the same
/// tree up to its size, or a smaller log (a floor, held until the rollback is accepted). A
/// note that does not verify, or a log that differs from it, is a problem.
async fn against_published(
    db: &Db,
    note: &str,
    accept_rollback: bool,
    checked: &mut Checked,
) -> Result<Option<store::LogFloor>, AppError> {
    let keys = crate::trust::reports::published_keys(db).await?;
    let published = match crate::trust::transparency::open_checkpoint(note, &keys) {
        Ok(published) => published,
        Err(why) => {
            checked.problems.push(format!(
                "the published checkpoint does not verify with the backup's keys ({why})"
            ));
            return Ok(None);
        }
    };
    let size = db.log_size().await?;
    if published.size > size {
        checked.rollback = Some(Rollback {
            restored: size,
            published: published.size,
            accepted: accept_rollback,
        });
        return Ok(Some(store::LogFloor {
            size: published.size,
            root: published.root,
            note: note.trim_end_matches('\n').to_owned() + "\n",
            accepted: accept_rollback,
        }));
    }
    let first = published.size;
    let root = db.over_log_hashes(|h| tlog::root(first, h)).await?;
    if root != published.root {
        checked.problems.push(format!(
            "the backup's log differs from the published checkpoint at its {first} leaves: \
             restoring it would fork the log"
        ));
    }
    Ok(None)
}

/// The file a `sqlite:` URL names.
fn sqlite_file(database_url: &str) -> Option<&str> {
    database_url
        .strip_prefix("sqlite://")
        .or_else(|| database_url.strip_prefix("sqlite:"))
        .map(|rest| rest.split('?').next().unwrap_or_default())
        .filter(|file| !file.is_empty() && !file.starts_with(':'))
}

/// Restores the backup `file` as the database at `database_url` — a SQLite file that does
/// not exist yet for a SQLite backup, an empty PostgreSQL database for a pg_dump file — once
/// it passes every check of [`check_backup`] on a scratch copy (and, with a published
/// checkpoint, is the same log or a smaller one): what it found when it does not (nothing is
/// written then), or the checks it passed. A log restored behind the published checkpoint
/// holds signing (see [`Rollback`]).
pub async fn restore(
    file: &Path,
    database_url: &str,
    options: &RestoreOptions<'_>,
) -> Result<Checked, AppError> {
    let format = format_of(file)?;
    if format == Format::Sqlite {
        let target = sqlite_file(database_url).ok_or_else(|| {
            AppError::Config(
                "a SQLite backup is restored into a SQLite database file (a sqlite: URL)".into(),
            )
        })?;
        if Path::new(target).exists() {
            return Err(AppError::Config(format!(
                "{target} exists: a backup is restored into a new database only"
            )));
        }
    } else {
        if !is_postgres(database_url) {
            return Err(AppError::Config(
                "a pg_dump file is restored into an empty PostgreSQL database (a postgres:// \
                 URL)"
                    .into(),
            ));
        }
        let db = Db::connect(database_url).await?;
        let empty = db.holds_no_table().await;
        db.close().await?;
        if !empty? {
            return Err(AppError::Config(
                "the database holds tables: a backup is restored into an empty database only"
                    .into(),
            ));
        }
    }
    let (checked, floor) = check_restorable(file, database_url, options).await?;
    if !checked.problems.is_empty() {
        return Ok(checked);
    }
    match format {
        Format::Sqlite => {
            let target = sqlite_file(database_url).unwrap_or_default();
            std::fs::copy(file, target)
                .map_err(|e| AppError::Config(format!("writing {target}: {e}")))?;
        }
        _ => load_dump(file, format, database_url).await?,
    }
    let db = Db::connect(database_url).await?;
    let written = async {
        db.migrate().await?;
        if let Some(floor) = &floor {
            db.set_log_floor(floor).await?;
        }
        Ok::<_, AppError>(())
    }
    .await;
    db.close().await?;
    written?;
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
    for checkpoint in &checkpoints {
        match crate::trust::transparency::open_checkpoint(&checkpoint.note, keys) {
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
