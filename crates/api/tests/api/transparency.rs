//! The transparency log over HTTP: every stored report is a leaf, checkpoints are signed
//! notes, proofs of inclusion and consistency verify against them, entries replay to the
//! same root, organisation reports are logged once per change, and concurrent appends take
//! every index exactly once.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chrono::Utc;
use serde_json::{Value, json};
use tlog::{Checkpoint, NoteVerifier};
use uuid::Uuid;

use crate::badges::badge_report;
use crate::helpers::{TestApp, assert_problem};
use crate::verification::{list, provider};

on_both_backends!(
    concurrent_reports_take_every_index_once,
    the_log_is_backfilled_in_creation_order_without_engine_addresses,
);

on_backends!(an_organisation_report_is_signed_again_at_most_once_per_period);

/// Title edits and new listings cannot grow the log faster than `org_report_min_secs`.
async fn an_organisation_report_is_signed_again_at_most_once_per_period(backend: store::Backend) {
    let app = TestApp::spawn_with(backend, |c| c.reports.org_report_min_secs = 3600).await;
    let p = provider(&app).await;
    list(&app, &p, "http://127.0.0.1:9").await;
    let path = format!("/v1/orgs/{}/report", p.org);
    let first: Value = app.get_json(&path, None).await;
    assert_eq!(first["report"]["counts"]["listings"], 1);
    let logged = app.app.db().log_size().await.unwrap();
    list(&app, &p, "http://127.0.0.1:9").await;
    let again: Value = app.get_json(&path, None).await;
    assert_eq!(
        again["id"], first["id"],
        "within the period: the same snapshot"
    );
    assert_eq!(again["report"]["counts"]["listings"], 1);
    assert_eq!(app.app.db().log_size().await.unwrap(), logged);
}

/// With checkpoints at most every second, so that the test sees them come.
mod reports_are_logged_with_proofs_and_signed_checkpoints {
    use crate::helpers::TestApp;
    use store::Backend;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        let app = TestApp::spawn_with(Backend::Sqlite, |c| c.reports.log_checkpoint_secs = 1).await;
        super::reports_are_logged_with_proofs_and_signed_checkpoints(app).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        let app =
            TestApp::spawn_with(Backend::Postgres, |c| c.reports.log_checkpoint_secs = 1).await;
        super::reports_are_logged_with_proofs_and_signed_checkpoints(app).await;
    }
}

/// A signed envelope (by a key of the test's own: the log proves inclusion, not who signed).
fn envelope(n: usize) -> Value {
    signed(json!({"n": n, "ratio": 0.1 + n as f64, "€": "not ASCII"}))
}

fn signed(predicate: Value) -> Value {
    let key = attest::KeyPair::generate().unwrap();
    let statement = attest::statement(
        "gpumarket:listing:test",
        &"0".repeat(64),
        "https://example/predicate",
        predicate,
    );
    serde_json::to_value(attest::sign_statement(&key, &statement)).unwrap()
}

fn decode(hashes: &Value) -> Vec<tlog::Hash> {
    hashes
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            STANDARD
                .decode(h.as_str().unwrap())
                .unwrap()
                .try_into()
                .unwrap()
        })
        .collect()
}

/// Opens the current checkpoint with the published verifier key.
async fn checkpoint(app: &TestApp, verifier: &NoteVerifier) -> Checkpoint {
    let note = app
        .get("/v1/log/checkpoint", None)
        .await
        .text()
        .await
        .unwrap();
    Checkpoint::parse(tlog::open_note(&note, std::slice::from_ref(verifier)).unwrap()).unwrap()
}

async fn reports_are_logged_with_proofs_and_signed_checkpoints(app: TestApp) {
    let key = app.get("/v1/log/verifier-key", None).await;
    assert_eq!(key.status(), 200);
    assert!(
        key.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let verifier = NoteVerifier::parse(&key.text().await.unwrap()).unwrap();
    // The origin is the public URL's host and `/log`; the key is the signing key.
    assert_eq!(verifier.name, "127.0.0.1:8080/log");
    let keys: Value = app.get_json("/v1/signing-keys", None).await;
    assert_eq!(
        STANDARD.encode(verifier.public),
        keys[0]["public_key"].as_str().unwrap()
    );
    assert_eq!(keys[0]["log_verifier_key"], verifier.encode());

    // The empty log's first checkpoint.
    let empty = checkpoint(&app, &verifier).await;
    assert_eq!((empty.size, empty.root), (0, tlog::empty_root()));

    let p = provider(&app).await;
    let listing = list(&app, &p, "http://127.0.0.1:9").await;
    let mut ids = Vec::new();
    let mut envelopes = Vec::new();
    for n in 0..5 {
        let envelope = envelope(n);
        ids.push(
            badge_report(
                &app,
                &listing,
                &envelope,
                Utc::now() + chrono::Duration::days(1),
            )
            .await,
        );
        envelopes.push(envelope);
    }
    // Reports carry their leaf index; before a checkpoint covers them, proofs are 202.
    for (i, id) in ids.iter().enumerate() {
        let report: Value = app.get_json(&format!("/v1/reports/{id}"), None).await;
        assert_eq!(report["log"]["leaf_index"], i, "{report}");
    }
    let listed: Value = app
        .get_json(&format!("/v1/listings/{listing}/reports"), None)
        .await;
    assert_eq!(listed["items"][0]["log"]["leaf_index"], 4, "newest first");
    let pending = app
        .get(&format!("/v1/reports/{}/proof", ids[0]), None)
        .await;
    assert_eq!(pending.status(), 202);
    assert_eq!(pending.headers()["retry-after"], "1");

    tokio::time::sleep(Duration::from_millis(1100)).await;
    app.app.checkpoint_log().await.unwrap();
    let five = checkpoint(&app, &verifier).await;
    assert_eq!(five.size, 5);
    assert_eq!(five.origin, "127.0.0.1:8080/log");

    // Each proof leads from the leaf — the envelope the API serves, as RFC 8785 JSON — to the
    // signed root.
    for (i, id) in ids.iter().enumerate() {
        let proof: Value = app.get_json(&format!("/v1/reports/{id}/proof"), None).await;
        assert_eq!(proof["leaf_index"], i);
        assert_eq!(proof["tree_size"], 5);
        let signed = Checkpoint::parse(
            tlog::open_note(
                proof["checkpoint"].as_str().unwrap(),
                std::slice::from_ref(&verifier),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(signed, five);
        let report: Value = app.get_json(&format!("/v1/reports/{id}"), None).await;
        let leaf = tlog::leaf_hash(&attest::canonical_json(&report["envelope"]));
        let path = decode(&proof["inclusion_proof"]);
        assert!(tlog::verify_inclusion(
            &leaf, i as u64, 5, &path, &five.root
        ));
        let other = tlog::leaf_hash(&attest::canonical_json(&envelopes[(i + 1) % 5]));
        assert!(!tlog::verify_inclusion(
            &other, i as u64, 5, &path, &five.root
        ));
    }
    // A flipped bit in the note's signature is refused.
    let note = app
        .get("/v1/log/checkpoint", None)
        .await
        .text()
        .await
        .unwrap();
    let mut bytes = note.clone().into_bytes();
    let at = bytes.len() - 10;
    bytes[at] ^= 0x01;
    assert!(
        tlog::open_note(
            &String::from_utf8(bytes).unwrap(),
            std::slice::from_ref(&verifier)
        )
        .is_err()
    );

    // Three more; a new checkpoint only once the last is a second old.
    for n in 5..8 {
        ids.push(
            badge_report(
                &app,
                &listing,
                &envelope(n),
                Utc::now() + chrono::Duration::days(1),
            )
            .await,
        );
    }
    app.app.checkpoint_log().await.unwrap();
    assert_eq!(checkpoint(&app, &verifier).await.size, 5, "not due yet");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    app.app.checkpoint_log().await.unwrap();
    let eight = checkpoint(&app, &verifier).await;
    assert_eq!(eight.size, 8);
    let consistency: Value = app
        .get_json("/v1/log/consistency?first=5&second=8", None)
        .await;
    let proof = decode(&consistency["proof"]);
    assert!(tlog::verify_consistency(
        5,
        8,
        &proof,
        &five.root,
        &eight.root
    ));
    assert!(!tlog::verify_consistency(
        5,
        8,
        &proof,
        &empty.root,
        &eight.root
    ));
    // Proofs against an older checkpoint, when asked.
    let old: Value = app
        .get_json(&format!("/v1/reports/{}/proof?tree_size=5", ids[2]), None)
        .await;
    assert_eq!(old["tree_size"], 5);

    // The entries replay to the signed root, two pages at a time.
    let mut frontier = tlog::Frontier::default();
    let mut path = "/v1/log/entries?start=0&end=8".to_owned();
    let mut seen = Vec::new();
    loop {
        let page: Value = app.get_json(&path, None).await;
        for item in page["items"].as_array().unwrap() {
            assert_eq!(item["index"], seen.len());
            let leaf = STANDARD.decode(item["leaf"].as_str().unwrap()).unwrap();
            let envelope: Value = serde_json::from_slice(&leaf).unwrap();
            assert_eq!(
                attest::canonical_json(&envelope),
                leaf,
                "the leaf is canonical"
            );
            assert_eq!(item["private"], false);
            assert_eq!(item["kind"], "verification");
            frontier.push(tlog::leaf_hash(&leaf));
            seen.push(item["report_id"].as_str().unwrap().parse::<Uuid>().unwrap());
        }
        match page["next_cursor"].as_u64() {
            Some(next) => path = format!("/v1/log/entries?start={next}&end=8"),
            None => break,
        }
    }
    assert_eq!(seen, ids);
    assert_eq!(frontier.root(), eight.root);

    // Bad input names the parameter.
    for (path, field) in [
        ("/v1/log/consistency?first=6&second=5", "first"),
        ("/v1/log/consistency?first=1&second=9", "second"),
        ("/v1/log/entries?start=5&end=2", "end"),
        (
            &*format!("/v1/reports/{}/proof?tree_size=7", ids[0]),
            "tree_size",
        ),
        (
            &*format!("/v1/reports/{}/proof?tree_size=5", ids[6]),
            "tree_size",
        ),
    ] {
        let body = assert_problem(app.get(path, None).await, 422, "validation_failed").await;
        assert_eq!(body["errors"][0]["field"], field, "{path}: {body}");
    }
    assert_problem(
        app.get("/v1/log/consistency?first=x&second=1", None).await,
        400,
        "invalid_parameter",
    )
    .await;
    assert_problem(
        app.get(&format!("/v1/reports/{}/proof", Uuid::now_v7()), None)
            .await,
        404,
        "not_found",
    )
    .await;

    // The organisation report: a snapshot signed and logged once per change.
    let first: Value = app
        .get_json(&format!("/v1/orgs/{}/report", p.org), None)
        .await;
    let again: Value = app
        .get_json(&format!("/v1/orgs/{}/report", p.org), None)
        .await;
    assert_eq!(first["id"], again["id"]);
    assert_eq!(first["envelope"], again["envelope"]);
    assert_eq!(first["log"]["leaf_index"], 8);
    assert_eq!(app.app.db().log_size().await.unwrap(), 9, "logged once");
    list(&app, &p, "http://127.0.0.1:9").await;
    let changed: Value = app
        .get_json(&format!("/v1/orgs/{}/report", p.org), None)
        .await;
    assert_ne!(changed["id"], first["id"]);
    assert_eq!(changed["log"]["leaf_index"], 9);
    assert_eq!(changed["report"]["counts"]["listings"], 2);
    let entries: Value = app.get_json("/v1/log/entries?start=8", None).await;
    let items = entries["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["kind"], "organisation");
    assert_eq!(items[0]["report_id"], first["id"]);
    let leaf = STANDARD.decode(items[1]["leaf"].as_str().unwrap()).unwrap();
    assert_eq!(leaf, attest::canonical_json(&changed["envelope"]));
    let envelope: attest::Envelope = serde_json::from_value(changed["envelope"].clone()).unwrap();
    let keys: Vec<attest::PublishedKey> = app.get_json("/v1/signing-keys", None).await;
    attest::verify_statement(&envelope, &keys).unwrap();
}

async fn concurrent_reports_take_every_index_once(app: TestApp) {
    // Appends alone, with nothing else in their transactions to serialise them: 24 at once.
    let db = app.app.db();
    let writers = (0..24u8).map(|n| async move {
        let id = Uuid::now_v7();
        db.append_log_leaf(store::NewLeaf {
            report_id: id,
            kind: "verification".into(),
            leaf: vec![n; 1 + n as usize],
            private: false,
            created_at: Utc::now(),
        })
        .await
        .unwrap();
        id
    });
    let mut ids = futures_util::future::join_all(writers).await;
    // And reports stored as the worker stores them, on two listings at once.
    let p = provider(&app).await;
    let listings = [
        list(&app, &p, "http://127.0.0.1:9").await,
        list(&app, &p, "http://127.0.0.1:9").await,
    ];
    let reports = (0..8).map(|n| {
        let (app, listing) = (&app, &listings[n % 2]);
        async move {
            badge_report(
                app,
                listing,
                &envelope(n),
                Utc::now() + chrono::Duration::days(1),
            )
            .await
        }
    });
    ids.extend(futures_util::future::join_all(reports).await);
    assert_eq!(db.log_size().await.unwrap(), 32);
    let entries = db.log_entries(0, 100).await.unwrap();
    let indexes: Vec<u64> = entries.iter().map(|e| e.index).collect();
    assert_eq!(
        indexes,
        (0..32).collect::<Vec<_>>(),
        "no gap, no index twice"
    );
    let mut logged: Vec<Uuid> = entries.iter().map(|e| e.report_id).collect();
    logged.sort();
    ids.sort();
    assert_eq!(logged, ids, "every leaf once");
    // The stored subtree hashes agree with the leaves.
    let mut frontier = tlog::Frontier::default();
    for entry in &entries {
        frontier.push(tlog::leaf_hash(&entry.leaf));
    }
    let root = db.over_log_hashes(|h| tlog::root(32, h)).await.unwrap();
    assert_eq!(root, frontier.root());
}

async fn the_log_is_backfilled_in_creation_order_without_engine_addresses(app: TestApp) {
    let p = provider(&app).await;
    let listing = list(&app, &p, "http://127.0.0.1:9").await;
    let mut envelopes = Vec::new();
    for n in 0..4 {
        // The third was signed before engine addresses were left out of reports.
        let envelope = if n == 2 {
            signed(json!({"engine": {"base_url": "http://10.1.2.3:8000"}}))
        } else {
            envelope(n)
        };
        badge_report(
            &app,
            &listing,
            &envelope,
            Utc::now() + chrono::Duration::days(1),
        )
        .await;
        envelopes.push(envelope);
    }
    let db = app.app.db();
    let live = db.log_entries(0, 100).await.unwrap();
    assert_eq!(live.len(), 4);

    // Undo the log's migration (and those after it) and apply them again: it rebuilds the
    // log from the reports.
    use migration::MigratorTrait as _;
    let migrations = migration::Migrator::migrations();
    let log = migrations
        .iter()
        .position(|m| m.name() == "m20261201_000012_transparency_log")
        .unwrap();
    let conn = sea_orm::Database::connect(app.database_url())
        .await
        .unwrap();
    migration::Migrator::down(&conn, Some((migrations.len() - log) as u32))
        .await
        .unwrap();
    assert!(db.log_size().await.is_err(), "the log's tables are gone");
    migration::Migrator::up(&conn, None).await.unwrap();
    conn.close().await.unwrap();

    let rebuilt = db.log_entries(0, 100).await.unwrap();
    assert_eq!(rebuilt, live, "the same leaves at the same indexes");
    assert_eq!(db.log_size().await.unwrap(), 4);
    for (entry, envelope) in rebuilt.iter().zip(&envelopes) {
        let canonical = attest::canonical_json(envelope);
        if entry.index == 2 {
            assert!(entry.private);
            use sha2::Digest as _;
            assert_eq!(entry.leaf, sha2::Sha256::digest(&canonical).to_vec());
        } else {
            assert!(!entry.private);
            assert_eq!(entry.leaf, canonical);
        }
        assert!(!String::from_utf8_lossy(&entry.leaf).contains("10.1.2.3"));
    }
    let mut frontier = tlog::Frontier::default();
    for entry in &rebuilt {
        frontier.push(tlog::leaf_hash(&entry.leaf));
    }
    let root = db.over_log_hashes(|h| tlog::root(4, h)).await.unwrap();
    assert_eq!(root, frontier.root());
    // The leaf rule the backfill logged them under is checked (migration 000018): a leaf
    // that no longer follows it stops the migration, naming the report.
    db.tamper_with_log_leaf(1, attest::canonical_json(&envelopes[0]))
        .await
        .unwrap();
    let conn = sea_orm::Database::connect(app.database_url())
        .await
        .unwrap();
    let check = migrations
        .iter()
        .position(|m| m.name() == "m20261201_000018_log_backfill_check")
        .unwrap();
    migration::Migrator::down(&conn, Some((migrations.len() - check) as u32))
        .await
        .unwrap();
    let refused = migration::Migrator::up(&conn, None).await.unwrap_err();
    conn.close().await.unwrap();
    assert!(
        refused.to_string().contains("does not follow the rule"),
        "{refused}"
    );
    db.tamper_with_log_leaf(1, live[1].leaf.clone())
        .await
        .unwrap();
    // Restored, the check passes and the migrations after it apply.
    let conn = sea_orm::Database::connect(app.database_url())
        .await
        .unwrap();
    migration::Migrator::up(&conn, None).await.unwrap();
    conn.close().await.unwrap();
    // New reports go on from there.
    badge_report(
        &app,
        &listing,
        &envelope(9),
        Utc::now() + chrono::Duration::days(1),
    )
    .await;
    assert_eq!(db.log_size().await.unwrap(), 5);
}
