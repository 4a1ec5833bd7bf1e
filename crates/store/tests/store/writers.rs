//! Writers that meet: transactions that read before they write, racing on one database. On
//! SQLite they must wait for the write lock, not fail with "database is locked"; on
//! PostgreSQL they must not read the same state and collide.

use std::sync::Arc;

use chrono::Utc;
use domain::{DisplayName, Email, ListingInput, ListingSpec, OrgId, OrgName, UserId};
use store::testing::TestDatabase;
use store::{Backend, Db, RunRecord};
use uuid::Uuid;

/// A database with one listing and one running verification run of it.
async fn a_running_run(backend: Backend) -> (TestDatabase, Arc<Db>, Uuid) {
    let database = TestDatabase::new(backend).await.unwrap();
    let db = Arc::new(Db::connect(database.url()).await.unwrap());
    let now = Utc::now();
    let user = UserId::new();
    db.insert_user(
        user,
        &Email::parse("p@example.com").unwrap(),
        &DisplayName::parse("P").unwrap(),
        "x".into(),
        now,
    )
    .await
    .unwrap();
    let org = db
        .create_org(OrgId::new(), &OrgName::parse("P").unwrap(), user, now)
        .await
        .unwrap();
    let spec = ListingSpec::parse(&ListingInput {
        title: "t",
        gpu_model: "g",
        gpu_count: 1,
        vram_gb: 1,
        cpu_model: "c",
        ram_gb: 1,
        region: "r",
        price_per_gpu_hour: 1,
        currency: "USD",
        engine_base_url: "http://engine.example",
        engine_model: "m",
        engine_api_key: None,
        available_from: None,
        available_until: None,
        ssh: None,
        https_url: None,
        catalog_gpu: None,
        catalog_model: None,
        guarantee_min_fraction: None,
    })
    .unwrap();
    let listing = db
        .insert_listing(Uuid::now_v7(), org.id, &spec, now)
        .await
        .unwrap();
    let run = db
        .insert_run(RunRecord {
            id: Uuid::now_v7(),
            listing_id: listing.id,
            org_id: org.id.as_uuid(),
            requested_by: user.as_uuid(),
            profile: "quick".into(),
            status: "running".into(),
            attempts: 1,
            lease_owner: Some("w".into()),
            lease_expires_at: Some(now + chrono::Duration::minutes(5)),
            failure_reason: None,
            report_id: None,
            created_at: now,
            started_at: Some(now),
            finished_at: None,
            failure_code: None,
            kind: "verification".into(),
            baseline_report_id: None,
            visibility: "public".into(),
        })
        .await
        .unwrap();
    (database, db, run.id)
}

/// Events appended from many tasks at once (as a worker's progress forwarder and its run do)
/// while the lease is renewed beside them: every append succeeds, and the log numbers them
/// 1, 2, 3, … without a gap or a repeat.
async fn racing_appends_all_land_in_order(backend: Backend) {
    let (_database, db, run) = a_running_run(backend).await;
    let (tasks, each) = (8, 10);
    let appends = (0..tasks).map(|t| {
        let db = Arc::clone(&db);
        tokio::spawn(async move {
            let mut seqs = Vec::new();
            for i in 0..each {
                let seq = db
                    .append_event(run, "cell_finished", format!("{{\"t\":{t},\"i\":{i}}}"))
                    .await
                    .unwrap_or_else(|e| panic!("append {t}/{i}: {e}"));
                seqs.push(seq);
            }
            seqs
        })
    });
    let renewals = (0..2).map(|_| {
        let db = Arc::clone(&db);
        tokio::spawn(async move {
            for _ in 0..20 {
                let until = Utc::now() + chrono::Duration::minutes(5);
                assert!(db.renew_lease(run, "w", until).await.unwrap());
            }
        })
    });
    let renewals = futures_util::future::join_all(renewals);
    let (appended, renewed) = tokio::join!(futures_util::future::join_all(appends), renewals);
    for r in renewed {
        r.unwrap();
    }
    let mut seqs: Vec<i32> = appended.into_iter().flat_map(Result::unwrap).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=tasks * each).collect::<Vec<_>>());
    let log = db.events_after(run, 0).await.unwrap();
    assert_eq!(log.len(), (tasks * each) as usize);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_appends_all_land_in_order_on_sqlite() {
    racing_appends_all_land_in_order(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_appends_all_land_in_order_on_postgres() {
    racing_appends_all_land_in_order(Backend::Postgres).await;
}
