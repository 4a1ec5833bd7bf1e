//! Secrets at rest: an engine API key is stored sealed under the secrets key; one stored in
//! the clear before sealing existed is sealed by the start-up job, after which the database
//! file holds it nowhere, and a server with another key does not start on that database.

use serde_json::{Value, json};
use store::Backend;

use crate::helpers::{TestApp, test_config};
use crate::verification::{listing_body, provider};

const ENGINE_KEY: &str = "sk-engine-key-in-the-clear-0123456789";

/// Every byte of the SQLite database, its WAL included.
fn database_bytes(dir: &std::path::Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().contains("test.db") {
            bytes.extend(std::fs::read(&path).unwrap());
        }
    }
    bytes
}

fn holds(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_keys_are_sealed_at_rest_and_old_ones_by_the_start_up_job() {
    // No key configured: SQLite generates one beside the database.
    let app = TestApp::spawn_with(Backend::Sqlite, |c| c.keys.secrets_key_file = None).await;
    let url = app.database_url().to_owned();
    let dir = std::path::PathBuf::from(
        url.trim_start_matches("sqlite://")
            .split('?')
            .next()
            .unwrap(),
    )
    .parent()
    .unwrap()
    .to_owned();
    let key_file = dir.join(app::sealed::GENERATED_FILE);
    let key_text = std::fs::read_to_string(&key_file).unwrap();
    assert_eq!(key_text.trim().len(), 64);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let p = provider(&app).await;
    let mut body = listing_body(&p.org, "http://127.0.0.1:9");
    body["engine"]["api_key"] = json!(ENGINE_KEY);
    let listing: Value = app
        .post("/v1/listings", Some(&p.owner.access_token), body)
        .await
        .json()
        .await
        .unwrap();
    let id: uuid::Uuid = listing["id"].as_str().unwrap().parse().unwrap();
    let stored = app.column("listings", "engine_api_key").await;
    assert!(stored[0].starts_with("sealed:v1:") && !stored[0].contains(ENGINE_KEY));
    let record = app.app.db().listing_by_id(id).await.unwrap().unwrap();
    let opened = app.app.engine_key_of(&record).unwrap().unwrap();
    assert_eq!(opened.expose(), ENGINE_KEY);
    assert!(!format!("{opened:?}").contains(ENGINE_KEY));
    // An edit that keeps the key keeps it working.
    let res = app
        .call(
            reqwest::Method::PATCH,
            &format!("/v1/listings/{id}"),
            Some(&p.owner.access_token),
            Some(json!({"title": "renamed"})),
        )
        .await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let record = app.app.db().listing_by_id(id).await.unwrap().unwrap();
    assert_eq!(
        app.app.engine_key_of(&record).unwrap().unwrap().expose(),
        ENGINE_KEY
    );

    // A key stored before sealing existed: in the file until the job seals it.
    app.execute(&format!(
        "UPDATE listings SET engine_api_key = '{ENGINE_KEY}'"
    ))
    .await;
    app.execute("PRAGMA wal_checkpoint(TRUNCATE)").await;
    assert!(holds(&database_bytes(&dir), ENGINE_KEY));
    assert_eq!(app.app.seal_stored().await.unwrap(), 1);
    assert_eq!(app.app.seal_stored().await.unwrap(), 0, "idempotent");
    app.execute("PRAGMA wal_checkpoint(TRUNCATE)").await;
    app.execute("VACUUM").await;
    app.execute("PRAGMA wal_checkpoint(TRUNCATE)").await;
    assert!(
        !holds(&database_bytes(&dir), ENGINE_KEY),
        "the key is in the file"
    );
    let record = app.app.db().listing_by_id(id).await.unwrap().unwrap();
    assert_eq!(
        app.app.engine_key_of(&record).unwrap().unwrap().expose(),
        ENGINE_KEY
    );

    // Another key does not open the database's secrets: such a server does not start.
    let other = dir.join("other.key");
    std::fs::write(&other, "ab".repeat(32)).unwrap();
    let mut config = test_config(&url);
    config.keys.jwt_secret = None;
    config.keys.secrets_key_file = Some(other);
    let refused = app::App::build(config, false).await.unwrap_err();
    assert!(
        refused.to_string().contains("secrets_key_file"),
        "{refused}"
    );
}
