//! Every migration applies to an empty database, rolls back cleanly, and applies again; a
//! migration that has landed is never edited.

use std::collections::BTreeSet;
use std::path::Path;

use migration::{Migrator, MigratorTrait};
use sha2::{Digest, Sha256};
use store::testing::TestDatabase;
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

/// What the data migrations of the accounts-and-limits wave keep: accounts that exist count
/// as confirmed (000023), and the community board starts with the valid cells of the runs
/// that were not withdrawn (000022).
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
                r#"{"decode": [
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
    assert_eq!(board.len(), 1, "{board:?}");
    assert_eq!(
        board[0].total_tok_s, 19.0,
        "the withdrawn run's 99 is not on the board"
    );
    assert_eq!(board[0].concurrency, 2);
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
