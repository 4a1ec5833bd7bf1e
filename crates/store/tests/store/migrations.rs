//! Every migration applies to an empty database, rolls back cleanly, and applies again.

use migration::{Migrator, MigratorTrait};
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
