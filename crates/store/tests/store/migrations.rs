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
