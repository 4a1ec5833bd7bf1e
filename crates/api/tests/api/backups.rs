//! Backups on both backends (SQLite's online copy, PostgreSQL's pg_dump) taken while the
//! server serves writes: the copy passes every check; restored behind a checkpoint the log had
//! published, the server signs nothing (no leaf, no checkpoint) until the rollback is
//! accepted, when it logs a signed rollback statement and signs again; a checkpoint of another
//! key, or of a log that forked from the backup's, is refused and nothing is written.

use std::path::Path;
use std::time::Duration;

use app::operations::backup::{self, RestoreOptions};
use serde_json::{Value, json};
use store::Backend;
use store::tools::testing::TestDatabase;

use crate::helpers::{TestApp, secrets_key_file, test_config};
use crate::verification::{list, provider};

on_backends!(a_restore_behind_a_published_checkpoint_signs_nothing_until_the_rollback_is_accepted);

/// A server on `url` whose checkpoints are due every second.
async fn server_on(url: &str) -> app::App {
    let mut config = test_config(url);
    config.reports.log_checkpoint_secs = 1;
    app::App::build(config, true)
        .await
        .expect("a server on the restored database")
}

/// An organisation report signed and logged (its listings changed since the last).
async fn sign_org_report(app: &TestApp, p: &crate::verification::Provider) {
    list(app, p, "http://127.0.0.1:9").await;
    let res = app.get(&format!("/v1/orgs/{}/report", p.org), None).await;
    assert_eq!(res.status(), 200);
}

/// The next checkpoint, once due (every second here).
async fn next_checkpoint(app: &app::App) -> app::trust::transparency::SignedCheckpoint {
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    app.checkpoint_log().await.expect("a checkpoint")
}

fn options<'a>(key: &'a Path, checkpoint: &'a Path, accept: bool) -> RestoreOptions<'a> {
    RestoreOptions {
        key: Some(key),
        checkpoint: Some(checkpoint),
        accept_rollback: accept,
    }
}

async fn a_restore_behind_a_published_checkpoint_signs_nothing_until_the_rollback_is_accepted(
    backend: Backend,
) {
    let app = TestApp::spawn_with(backend, |c| c.reports.log_checkpoint_secs = 1).await;
    let key = secrets_key_file();
    let p = provider(&app).await;
    sign_org_report(&app, &p).await;
    next_checkpoint(&app.app).await;
    // A leaf after the last checkpoint: a server on the copy would have one to sign.
    sign_org_report(&app, &p).await;

    // The backup, taken while accounts register.
    let files = tempfile::tempdir().unwrap();
    let file = files.path().join("backup");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writes = {
        let (url, stop) = (app.url("/v1/auth/register"), stop.clone());
        tokio::spawn(async move {
            let client = reqwest::Client::new();
            let mut registered = 0;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) || registered == 0 {
                let res = client
                    .post(&url)
                    .json(&json!({
                        "email": format!("during-{registered}@example.com"),
                        "password": "correct horse battery",
                        "name": "During",
                    }))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(res.status(), 201, "registering during the backup");
                registered += 1;
            }
            registered
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    backup::backup(app.database_url(), &file).await.unwrap();
    assert!(!writes.is_finished(), "writes went on during the backup");
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(writes.await.unwrap() > 0);
    // A backup is written to a new file only.
    assert!(backup::backup(app.database_url(), &file).await.is_err());

    let checked = backup::check_backup(&file, Some(&key), app.database_url())
        .await
        .unwrap();
    assert_eq!(checked.problems, Vec::<String>::new());
    assert!(
        checked.log_size >= 2 && checked.checkpoints >= 1,
        "{checked:?}"
    );
    let backed_up = checked.log_size;

    // The log goes on past the backup and publishes a newer checkpoint.
    sign_org_report(&app, &p).await;
    let published = next_checkpoint(&app.app).await;
    assert!(published.size > backed_up);
    let published_file = files.path().join("checkpoint");
    std::fs::write(&published_file, &published.note).unwrap();

    // Restored behind it: the checks pass, and signing is held.
    let target = TestDatabase::empty(backend).await.unwrap();
    let restored = backup::restore(&file, target.url(), &options(&key, &published_file, false))
        .await
        .unwrap();
    assert_eq!(restored.problems, Vec::<String>::new());
    let rollback = restored.rollback.clone().expect("a rollback");
    assert_eq!(
        (rollback.restored, rollback.published, rollback.accepted),
        (backed_up, published.size, false)
    );
    // Into a database holding tables, nothing is restored.
    assert!(
        backup::restore(&file, target.url(), &options(&key, &published_file, false))
            .await
            .is_err()
    );
    let held = server_on(target.url()).await;
    let server = api::Application::build(held.clone(), 1).unwrap();
    let base = format!("http://{}", server.local_addr());
    tokio::spawn(server.run());
    let client = reqwest::Client::new();
    let status: Value = client
        .get(format!("{base}/v1/log/status"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(status["signing"], "held", "{status}");
    assert_eq!(status["held_behind"], published.size);
    assert_eq!(status["size"], backed_up);
    // No checkpoint, though one is due (a leaf came after the last) …
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let refused = held.checkpoint_log().await.unwrap_err();
    assert!(refused.signing_held(), "{refused}");
    // … and no report: an organisation report is refused, 503 signing_held, nothing logged.
    let listing = client
        .post(format!("{base}/v1/listings"))
        .bearer_auth(&p.owner.access_token)
        .json(&crate::verification::listing_body(
            &p.org,
            "http://127.0.0.1:9",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(listing.status(), 201);
    let report = client
        .get(format!("{base}/v1/orgs/{}/report", p.org))
        .send()
        .await
        .unwrap();
    let problem = crate::helpers::json_of(report, 503).await;
    assert_eq!(problem["code"], "signing_held", "{problem}");
    assert_eq!(held.log_status().await.unwrap().size, backed_up);

    // A checkpoint signed by another key is refused; nothing is written.
    let stranger = files.path().join("stranger");
    let other = attest::KeyPair::generate().unwrap();
    let verifier = tlog::NoteVerifier::new(&app.app.log_origin(), other.public_key()).unwrap();
    let body = tlog::Checkpoint {
        origin: app.app.log_origin(),
        size: published.size,
        root: published.root,
    }
    .body();
    std::fs::write(
        &stranger,
        tlog::signed_note(&body, &verifier, &other.sign_raw(body.as_bytes())),
    )
    .unwrap();
    let fresh = TestDatabase::empty(backend).await.unwrap();
    let refused = backup::restore(&file, fresh.url(), &options(&key, &stranger, true))
        .await
        .unwrap();
    assert_eq!(refused.problems.len(), 1, "{refused:?}");
    assert!(
        refused.problems[0].contains("does not verify"),
        "{refused:?}"
    );
    assert_empty(fresh.url()).await;

    // Accepted: the next server logs a signed rollback statement and signs again.
    let accepted_db = TestDatabase::empty(backend).await.unwrap();
    let accepted = backup::restore(
        &file,
        accepted_db.url(),
        &options(&key, &published_file, true),
    )
    .await
    .unwrap();
    assert!(accepted.problems.is_empty() && accepted.rollback.unwrap().accepted);
    let going_on = server_on(accepted_db.url()).await;
    let status = going_on.log_status().await.unwrap();
    assert_eq!((status.size, status.held_behind), (backed_up + 1, None));
    let entry = going_on
        .log_entries(backed_up, None)
        .await
        .unwrap()
        .items
        .remove(0);
    assert_eq!(entry.kind, "log_rollback");
    let envelope: attest::Envelope = serde_json::from_slice(&entry.leaf).unwrap();
    let keys = going_on.signing_keys().await.unwrap();
    let (statement, _) = attest::verify_statement(&envelope, &keys).expect("a signed statement");
    let predicate = &statement["predicate"];
    assert_eq!(predicate["published"]["size"], published.size);
    assert_eq!(predicate["restored"]["size"], backed_up);
    assert_eq!(predicate["withdrawn_leaves"]["to"], published.size);
    // A second server starting logs no second statement.
    let again = server_on(accepted_db.url()).await;
    assert_eq!(again.log_status().await.unwrap().size, backed_up + 1);
    let forked = next_checkpoint(&going_on).await;
    assert_eq!(forked.size, backed_up + 1);

    // The log that went on from the restore forked from the original: a backup of the
    // original restored against the fork's checkpoint is refused (they differ at its size).
    let newer = files.path().join("newer");
    backup::backup(app.database_url(), &newer).await.unwrap();
    let fork_file = files.path().join("fork-checkpoint");
    std::fs::write(&fork_file, &forked.note).unwrap();
    let fresh = TestDatabase::empty(backend).await.unwrap();
    let refused = backup::restore(&newer, fresh.url(), &options(&key, &fork_file, true))
        .await
        .unwrap();
    assert_eq!(refused.problems.len(), 1, "{refused:?}");
    assert!(refused.problems[0].contains("would fork"), "{refused:?}");
    assert_empty(fresh.url()).await;
}

/// Nothing was restored into the database at `url`.
async fn assert_empty(url: &str) {
    if url.starts_with("sqlite") {
        let file = url
            .trim_start_matches("sqlite://")
            .split('?')
            .next()
            .unwrap();
        assert!(!Path::new(file).exists(), "{file} was written");
        return;
    }
    let db = store::Db::connect(url).await.unwrap();
    assert!(db.holds_no_table().await.unwrap());
    db.close().await.unwrap();
}
