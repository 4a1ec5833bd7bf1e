//! Every migration applies to an empty database, rolls back cleanly, and applies again; a
//! migration that has landed is never edited.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use migration::{Migrator, MigratorTrait};
use sha2::{Digest, Sha256};
use store::tools::testing::TestDatabase;
use store::{Backend, Db};

async fn up_down_up(backend: Backend) {
    let database = TestDatabase::empty(backend).await.unwrap();
    let db = Db::connect(database.url()).await.unwrap();
    let all: Vec<String> = Migrator::migrations()
        .iter()
        .map(|m| m.name().to_owned())
        .collect();
    assert!(!all.is_empty());

    db.migrate().await.unwrap();
    assert_eq!(db.applied_migrations().await.unwrap(), all);

    db.migrate_down_all().await.unwrap();
    assert!(db.applied_migrations().await.unwrap().is_empty());

    db.migrate().await.unwrap();
    assert_eq!(db.applied_migrations().await.unwrap(), all);
    // Applying again is a no-op, as on every start of the server.
    db.migrate().await.unwrap();
    db.close().await.unwrap();
}

#[tokio::test]
async fn migrations_up_down_up_on_sqlite() {
    up_down_up(Backend::Sqlite).await;
}

#[tokio::test]
async fn migrations_up_down_up_on_postgres() {
    up_down_up(Backend::Postgres).await;
}

/// Migrations are append-only: a database migrated at an earlier commit must be able to
/// upgrade, so the text of a migration that has landed never changes. Each is listed in
/// `migrations/landed.sha256` with its digest; the list only grows.
#[test]
fn landed_migrations_are_never_edited() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations");
    let list = std::fs::read_to_string(root.join("landed.sha256")).unwrap();
    let mut listed = BTreeSet::new();
    for line in list
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (digest, name) = line
            .split_once("  ")
            .unwrap_or_else(|| panic!("not `<sha256>  <file>`: {line}"));
        let text = std::fs::read(root.join("src").join(name))
            .unwrap_or_else(|e| panic!("{name} has landed and cannot be removed: {e}"));
        let actual = hex::encode(Sha256::digest(&text));
        assert_eq!(
            actual, digest,
            "{name} has landed and was edited: migrations are append-only — restore it and add a new migration"
        );
        listed.insert(name.to_owned());
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join("src")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with('m') && name.ends_with(".rs") {
            files.push(name);
        }
    }
    assert!(files.len() >= 5);
    for name in files {
        assert!(
            listed.contains(&name),
            "{name} is not in migrations/landed.sha256: add `sha256sum migrations/src/{name}` output to it in the commit that adds it"
        );
    }
}

/// The commit whose `migrations/landed.sha256` is the first the history guard holds. The
/// edits before it (000004's rename, 000019's line changed within the stop that first landed
/// it) predate the guard; no database outside tests was migrated at those commits.
const GUARDED_SINCE: &str = "636d86f243f1302bb3bd9bdc268950769bbfee6a";

/// The `<sha256>  <file>` lines of a `landed.sha256` text.
fn landed_lines(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// `git -C repo args…`'s standard output, or what it said when it failed.
fn git(repo: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .map_err(|e| format!("git {args:?}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Whether every line that any commit's `migrations/landed.sha256` held, from `since` to
/// `HEAD`, is still in the working tree's copy, unchanged: a line once committed never changes
/// and never goes, so editing a landed migration together with its line fails too. A shallow
/// clone is deepened first (its history is what is checked); one that cannot be says so.
fn landed_lines_never_change(repo: &Path, since: &str) -> Result<(), String> {
    const FILE: &str = "migrations/landed.sha256";
    if git(repo, &["rev-parse", "--is-shallow-repository"])?.trim() == "true" {
        git(repo, &["fetch", "--quiet", "--unshallow"]).map_err(|e| {
            format!(
                "this clone is shallow and could not be deepened ({e}): the migration guard \
                 reads {FILE}'s history; clone with the whole history or `git fetch --unshallow`"
            )
        })?;
    }
    git(repo, &["merge-base", "--is-ancestor", since, "HEAD"])
        .map_err(|e| format!("the guard's first commit {since} is not behind HEAD: {e}"))?;
    let now = landed_lines(
        &std::fs::read_to_string(repo.join(FILE)).map_err(|e| format!("{FILE}: {e}"))?,
    );
    let range = format!("{since}..HEAD");
    let mut commits = vec![since.to_owned()];
    commits.extend(
        git(repo, &["rev-list", &range, "--", FILE])?
            .lines()
            .map(str::to_owned),
    );
    for commit in commits {
        let then = git(repo, &["show", &format!("{commit}:{FILE}")])?;
        for line in landed_lines(&then) {
            if !now.contains(&line) {
                return Err(format!(
                    "{FILE} held `{line}` at commit {commit}, and no longer does: a landed \
                     migration and its line never change — restore both and add a new migration"
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn landed_lines_are_never_edited_in_history() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    landed_lines_never_change(&repo, GUARDED_SINCE).unwrap();
}

/// The guard on a history of its own: a line changed in a later commit (a migration edited
/// together with its digest) fails, as does a line removed; appending a line passes.
#[test]
fn the_guard_fails_a_history_whose_landed_line_changed() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    let run = |args: &[&str]| git(repo, args).unwrap();
    run(&["init", "--quiet"]);
    run(&["config", "user.email", "guard@example.com"]);
    run(&["config", "user.name", "guard"]);
    std::fs::create_dir(repo.join("migrations")).unwrap();
    let commit = |text: &str, message: &str| {
        std::fs::write(repo.join("migrations/landed.sha256"), text).unwrap();
        run(&["add", "."]);
        run(&["commit", "--quiet", "-m", message]);
        run(&["rev-parse", "HEAD"]).trim().to_owned()
    };
    let first = commit("# header\naaaa  m1.rs\n", "first");
    commit("# header\naaaa  m1.rs\nbbbb  m2.rs\n", "append");
    landed_lines_never_change(repo, &first).unwrap();
    // m2's migration edited in a later commit, its digest with it.
    commit("# header\naaaa  m1.rs\ncccc  m2.rs\n", "edit m2");
    let err = landed_lines_never_change(repo, &first).unwrap_err();
    assert!(err.contains("`bbbb  m2.rs`"), "{err}");
    // Putting the old line back does not undo it: the edit's line is in the history now.
    std::fs::write(
        repo.join("migrations/landed.sha256"),
        "aaaa  m1.rs\nbbbb  m2.rs\n",
    )
    .unwrap();
    let err = landed_lines_never_change(repo, &first).unwrap_err();
    assert!(err.contains("`cccc  m2.rs`"), "{err}");
    // A line removed.
    std::fs::write(repo.join("migrations/landed.sha256"), "bbbb  m2.rs\n").unwrap();
    let err = landed_lines_never_change(repo, &first).unwrap_err();
    assert!(err.contains("`aaaa  m1.rs`"), "{err}");
}

/// Migrations copy what they need: none imports a workspace crate, but 000012, whose text is
/// frozen and whose backfill is pinned by `the_log_backfill_of_000012_is_pinned`.
#[test]
fn no_migration_imports_a_workspace_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let crates: Vec<&str> = manifest
        .lines()
        .filter(|l| l.contains("package = \"gpumarket-") && l.contains("path = "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "migration")
        .collect();
    assert!(
        crates.contains(&"domain") && crates.contains(&"attest"),
        "{crates:?}"
    );
    for entry in std::fs::read_dir(root.join("migrations/src")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.contains("000012") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for krate in &crates {
                let path = format!("{krate}::");
                let uses = line.match_indices(&path).any(|(at, _)| {
                    !line[..at]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
                });
                assert!(
                    !uses,
                    "{name} uses the workspace crate `{krate}` (`{}`): a migration copies what it needs",
                    line.trim()
                );
            }
        }
    }
}

/// What the data migrations of the accounts-and-limits wave keep: accounts that exist count
/// as confirmed (000023), and the community board starts with the valid cells of the runs
/// that were not withdrawn (000022), each naming its run's engine when known (000037).
async fn data_migrations_keep_what_was_there(backend: Backend) {
    use migration::sea_orm::sea_query::{Alias, Query};
    use migration::sea_orm::{ConnectionTrait, Database};
    let database = TestDatabase::empty(backend).await.unwrap();
    let conn = Database::connect(database.url()).await.unwrap();
    let names: Vec<String> = Migrator::migrations()
        .iter()
        .map(|m| m.name().to_owned())
        .collect();
    let before = names
        .iter()
        .position(|n| n.contains("000022"))
        .expect("migration 000022");
    Migrator::up(&conn, Some(before as u32)).await.unwrap();
    let user = uuid::Uuid::now_v7();
    let now = chrono::Utc::now();
    let insert = |table: &str, columns: Vec<&str>, values: Vec<migration::sea_orm::Value>| {
        Query::insert()
            .into_table(Alias::new(table))
            .columns(columns.into_iter().map(Alias::new))
            .values_panic(values.into_iter().map(Into::into))
            .to_owned()
    };
    let statements = [
        insert(
            "users",
            vec!["id", "email", "name", "password_hash", "created_at"],
            vec![user.into(), "old@example.com".into(), "Old".into(), "x".into(), now.into()],
        ),
        insert(
            "community_runs",
            vec!["id", "submitter_id", "submitter_handle", "model", "report", "report_sha256", "receipt", "created_at"],
            vec![
                uuid::Uuid::now_v7().into(),
                user.into(),
                "Old".into(),
                "m".into(),
                r#"{"engine": {"name": "llamacpp"}, "decode": [
                    {"status": "valid", "context_tokens": 0, "concurrency": 1, "total_tok_s": 10.0, "per_request_tok_s": 10.0},
                    {"status": "valid", "context_tokens": 0, "concurrency": 2, "total_tok_s": 19.0},
                    {"status": "over_capacity", "context_tokens": 0, "concurrency": 4}
                ]}"#.into(),
                "0".into(),
                "{}".into(),
                now.into(),
            ],
        ),
        insert(
            "community_runs",
            vec!["id", "submitter_id", "submitter_handle", "model", "report", "report_sha256", "receipt", "created_at", "withdrawn_at"],
            vec![
                uuid::Uuid::now_v7().into(),
                user.into(),
                "Old".into(),
                "m".into(),
                r#"{"decode": [{"status": "valid", "context_tokens": 0, "concurrency": 1, "total_tok_s": 99.0}]}"#.into(),
                "0".into(),
                "{}".into(),
                now.into(),
                now.into(),
            ],
        ),
        insert(
            "community_runs",
            vec!["id", "submitter_id", "submitter_handle", "model", "report", "report_sha256", "receipt", "created_at"],
            vec![
                uuid::Uuid::now_v7().into(),
                user.into(),
                "Old".into(),
                "m2".into(),
                r#"{"engine": {"name": "my-engine"}, "decode": [{"status": "valid", "context_tokens": 0, "concurrency": 1, "total_tok_s": 5.0}]}"#.into(),
                "0".into(),
                "{}".into(),
                now.into(),
            ],
        ),
    ];
    for statement in statements {
        conn.execute(&statement).await.unwrap();
    }
    Migrator::up(&conn, None).await.unwrap();
    let db = Db::connect(database.url()).await.unwrap();
    let stored = db.user_by_id(user.into()).await.unwrap().unwrap();
    assert!(
        stored.email_verified_at.is_some(),
        "an account from before counts as confirmed"
    );
    let board = db.community_best(None, None, 10).await.unwrap();
    assert_eq!(board.len(), 2, "{board:?}");
    assert_eq!(
        board[0].total_tok_s, 19.0,
        "the withdrawn run's 99 is not on the board"
    );
    assert_eq!(board[0].concurrency, 2);
    // 000037: each cell names the engine its run's report names, when the standard knows it.
    assert_eq!(board[0].engine_name.as_deref(), Some("llamacpp"));
    assert_eq!(
        (board[1].model.as_str(), board[1].engine_name.as_deref()),
        ("m2", None)
    );
    db.close().await.unwrap();
}

#[tokio::test]
async fn data_migrations_keep_what_was_there_on_sqlite() {
    data_migrations_keep_what_was_there(Backend::Sqlite).await;
}

#[tokio::test]
async fn data_migrations_keep_what_was_there_on_postgres() {
    data_migrations_keep_what_was_there(Backend::Postgres).await;
}

/// Migration 000012 backfilled the transparency log with the live `attest::log_leaf` and
/// `tlog::append`, so its meaning could change without its text changing. Its backfill of a
/// fixture (a public report, one naming its engine's address, a private one, and one whose
/// JSON is far from canonical: keys out of order, `1.0`, `1e3`, escapes) is pinned against the
/// committed expectation in `backfill_000012.json`; a change in `attest` or `tlog` that
/// would change what 000012 wrote fails here. `GPUMARKET_BLESS=1` rewrites the expectation
/// (only ever for a new fixture, never to follow a change in those crates).
#[tokio::test]
async fn the_log_backfill_of_000012_is_pinned() {
    use migration::sea_orm::sea_query::{Alias, Query};
    use migration::sea_orm::{ConnectOptions, ConnectionTrait, Database, Statement};
    use serde_json::{Value, json};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/store/backfill_000012.json");
    let mut fixture: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let database = TestDatabase::empty(Backend::Sqlite).await.unwrap();
    // One connection, so that the pragma holds: the fixture's reports stand alone, without the
    // listings, organisations and runs their foreign keys name.
    let mut options = ConnectOptions::new(database.url());
    options.max_connections(1).min_connections(1);
    let conn = Database::connect(options).await.unwrap();
    let position = Migrator::migrations()
        .iter()
        .position(|m| m.name().contains("000012"))
        .expect("migration 000012");
    Migrator::up(&conn, Some(position as u32)).await.unwrap();
    conn.execute_unprepared("PRAGMA foreign_keys = OFF")
        .await
        .unwrap();
    for report in fixture["reports"].as_array().unwrap() {
        let text = |key: &str| report[key].as_str().unwrap().to_owned();
        let id: uuid::Uuid = text("id").parse().unwrap();
        let at: chrono::DateTime<chrono::Utc> = text("created_at").parse().unwrap();
        let insert = Query::insert()
            .into_table(Alias::new("reports"))
            .columns(
                [
                    "id",
                    "run_id",
                    "listing_id",
                    "org_id",
                    "compliant",
                    "key_id",
                    "envelope",
                    "summary",
                    "created_at",
                    "kind",
                ]
                .map(Alias::new),
            )
            .values_panic([
                id.into(),
                uuid::Uuid::now_v7().into(),
                uuid::Uuid::now_v7().into(),
                uuid::Uuid::now_v7().into(),
                true.into(),
                "k".into(),
                text("envelope").into(),
                "{}".into(),
                at.into(),
                text("kind").into(),
            ])
            .to_owned();
        conn.execute(&insert).await.unwrap();
    }
    Migrator::up(&conn, Some(1)).await.unwrap();
    let rows = |sql: &str| {
        let conn = &conn;
        let sql = sql.to_owned();
        async move {
            conn.query_all_raw(Statement::from_string(conn.get_database_backend(), sql))
                .await
                .unwrap()
        }
    };
    let entries: Vec<Value> = rows(
        "SELECT idx, report_id, kind, leaf, private FROM log_entries ORDER BY idx",
    )
    .await
    .iter()
    .map(|r| {
        json!({
            "idx": r.try_get::<i64>("", "idx").unwrap(),
            "report_id": r.try_get::<uuid::Uuid>("", "report_id").unwrap().to_string(),
            "kind": r.try_get::<String>("", "kind").unwrap(),
            "leaf_sha256": hex::encode(Sha256::digest(r.try_get::<Vec<u8>>("", "leaf").unwrap())),
            "private": r.try_get::<bool>("", "private").unwrap(),
        })
    })
    .collect();
    let hashes: Vec<Value> = rows("SELECT level, idx, hash FROM log_hashes ORDER BY level, idx")
        .await
        .iter()
        .map(|r| {
            json!([
                r.try_get::<i16>("", "level").unwrap(),
                r.try_get::<i64>("", "idx").unwrap(),
                hex::encode(r.try_get::<Vec<u8>>("", "hash").unwrap()),
            ])
        })
        .collect();
    let size: i64 = rows("SELECT size FROM log_state WHERE id = 1").await[0]
        .try_get("", "size")
        .unwrap();
    let actual = json!({"entries": entries, "hashes": hashes, "size": size});
    if std::env::var_os("GPUMARKET_BLESS").is_some() {
        fixture["expected"] = actual;
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&fixture).unwrap() + "\n",
        )
        .unwrap();
        return;
    }
    assert_eq!(
        actual, fixture["expected"],
        "000012's backfill of the fixture changed: attest::log_leaf or tlog::append no longer \
         computes what the landed migration wrote — keep their old behaviour for 000012"
    );
}

/// Migration 000024 fills the search projection's SLO figures (TTFT and stutter p99, TTFT
/// samples, prefill rates) from the latest reports of listings verified before it, so they
/// are searchable by an objective at once: a listing verified, then 000024 undone (its
/// columns and table dropped) and applied again.
async fn the_offer_projection_is_backfilled(backend: Backend) {
    let (database, db, _, listings) = crate::organisation(backend, 1, 1).await;
    let listing = listings[0].id;
    let mut prefill = store::tools::testing::decode_cell(8192, 1, 0.0);
    prefill.phase = domain::CellPhase::Prefill;
    prefill.total_tok_s = None;
    prefill.prompt_tok_s = Some(4096.0);
    let mut decode = store::tools::testing::decode_cell(8192, 4, 120.0);
    decode.ttft_ms_p99 = Some(250.0);
    decode.ttft_samples = Some(12);
    decode.itl_ms_p99 = Some(40.0);
    store::tools::testing::verified_report(&db, listing, vec![decode, prefill])
        .await
        .unwrap();
    let query = store::OfferQuery {
        catalog_model: None,
        served_model: "m".into(),
        min_context: 0,
        currency: Some("USD".into()),
        max_price_per_hour: None,
        min_reliability: None,
        window: None,
        engine: None,
    };
    let before = db.offer_candidates(&query).await.unwrap();
    assert_eq!(before.len(), 1);
    assert_eq!(before[0].prefill, vec![(8192, 4096.0)]);
    assert_eq!(before[0].cells[0].itl_ms_p99, Some(40.0));

    let conn = migration::sea_orm::Database::connect(database.url())
        .await
        .unwrap();
    let names: Vec<String> = Migrator::migrations()
        .iter()
        .map(|m| m.name().to_owned())
        .collect();
    let at = names.iter().position(|n| n.contains("000024")).unwrap();
    Migrator::down(&conn, Some((names.len() - at) as u32))
        .await
        .unwrap();
    Migrator::up(&conn, None).await.unwrap();
    let after = db.offer_candidates(&query).await.unwrap();
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].prefill, before[0].prefill);
    assert_eq!(after[0].cells, before[0].cells);
    assert_eq!(after[0].cells[0].ttft_samples, Some(12));
}

#[tokio::test]
async fn the_offer_projection_is_backfilled_on_sqlite() {
    the_offer_projection_is_backfilled(Backend::Sqlite).await;
}

#[tokio::test]
async fn the_offer_projection_is_backfilled_on_postgres() {
    the_offer_projection_is_backfilled(Backend::Postgres).await;
}
