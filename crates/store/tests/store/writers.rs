//! Writers that meet: transactions that read before they write, racing on one database. On
//! SQLite they must wait for the write lock, not fail with "database is locked"; on
//! PostgreSQL they must not read the same state and collide.

use std::sync::Arc;

use chrono::Utc;
use domain::{OrgId, OrgName, Role};
use store::tools::testing::TestDatabase;
use store::{Backend, Db, ListingRecord, RunRecord};
use uuid::Uuid;

/// A verification run of the listing, queued or (with a lease) running.
fn run_of(listing: &ListingRecord, status: &str) -> RunRecord {
    let now = Utc::now();
    let running = status == "running";
    RunRecord {
        id: Uuid::now_v7(),
        listing_id: listing.id,
        org_id: listing.org_id,
        requested_by: Uuid::now_v7(),
        profile: "quick".into(),
        status: status.parse::<domain::RunStatus>().unwrap().into(),
        attempts: i32::from(running),
        lease_owner: running.then(|| "w".into()),
        lease_expires_at: running.then(|| now + chrono::Duration::minutes(5)),
        failure_reason: None,
        report_id: None,
        created_at: now,
        started_at: running.then_some(now),
        finished_at: None,
        failure_code: None,
        kind: "verification".into(),
        baseline_report_id: None,
        visibility: "public".into(),
    }
}

/// A database with one listing and one running verification run of it.
async fn a_running_run(backend: Backend) -> (TestDatabase, Arc<Db>, Uuid) {
    let (database, db, _, listings) = crate::organisation(backend, 1, 1).await;
    let run = db
        .insert_run(run_of(&listings[0], "running"))
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

/// A run's log ends with `run_finished`: an event a worker still reports afterwards (it
/// started as the run was cancelled) is not appended, so a follower that stops at the end
/// has seen the whole log.
#[tokio::test]
async fn nothing_is_logged_after_a_run_finished() {
    let (_database, db, run) = a_running_run(Backend::Sqlite).await;
    assert_eq!(
        db.append_event(run, "run_queued", "{}".into())
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        db.append_event(run, store::RUN_FINISHED, "{}".into())
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        db.append_event(run, "run_started", "{}".into())
            .await
            .unwrap(),
        2
    );
    let kinds: Vec<String> = db
        .events_after(run, 0)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(kinds, ["run_queued", store::RUN_FINISHED]);
}

/// Two owners demoting (or removing) each other at the same instant: one wins, the other is
/// refused, and the organisation always keeps an owner. Many organisations at once, so that
/// the pairs really meet.
async fn owners_racing_to_step_down_leave_one(backend: Backend) {
    let database = TestDatabase::new(backend).await.unwrap();
    let db = Arc::new(Db::connect(database.url()).await.unwrap());
    let now = Utc::now();
    let mut pairs = Vec::new();
    for i in 0..24 {
        let users = [
            crate::new_user(&db, &format!("o{i}-a@example.com")).await,
            crate::new_user(&db, &format!("o{i}-b@example.com")).await,
        ];
        let org = db
            .create_org(OrgId::new(), &OrgName::parse("P").unwrap(), users[0], now)
            .await
            .unwrap();
        db.add_member(org.id, users[1], Role::Owner, now)
            .await
            .unwrap();
        pairs.push((org.id, users));
    }
    let races = pairs.iter().enumerate().map(|(i, &(org, [a, b]))| {
        let db = Arc::clone(&db);
        tokio::spawn(async move {
            // Half the pairs demote each other, half remove each other.
            let step_down = |user| {
                let db = Arc::clone(&db);
                async move {
                    if i % 2 == 0 {
                        db.set_role(org, user, Role::Member, None).await.unwrap()
                    } else {
                        db.remove_member(org, user, None).await.unwrap()
                    }
                }
            };
            let (first, second) = tokio::join!(step_down(a), step_down(b));
            (org, first, second)
        })
    });
    for race in futures_util::future::join_all(races).await {
        let (org, first, second) = race.unwrap();
        assert!(first ^ second, "exactly one steps down: {first} {second}");
        let owners = db
            .members_of(org)
            .await
            .unwrap()
            .into_iter()
            .filter(|m| m.role == Role::Owner)
            .count();
        assert_eq!(owners, 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn owners_racing_to_step_down_leave_one_on_sqlite() {
    owners_racing_to_step_down_leave_one(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn owners_racing_to_step_down_leave_one_on_postgres() {
    owners_racing_to_step_down_leave_one(Backend::Postgres).await;
}

/// Eight listings of one organisation asking for a run at once, with room for two more
/// today: two runs are made, six are refused with the day's runs.
async fn racing_runs_never_exceed_the_daily_quota(backend: Backend) {
    let (_database, db, _, listings) = crate::organisation(backend, 1, 8).await;
    let quota = domain::quota::RollingDay::new(2);
    let asks = listings.iter().map(|listing| {
        let db = Arc::clone(&db);
        let run = run_of(listing, "queued");
        tokio::spawn(async move { db.insert_run_within(run, quota).await.unwrap() })
    });
    let mut made = 0;
    for ask in futures_util::future::join_all(asks).await {
        match ask.unwrap() {
            Ok(_) => made += 1,
            Err(over) => assert_eq!(over.counted, 2),
        }
    }
    assert_eq!(made, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_runs_never_exceed_the_daily_quota_on_sqlite() {
    racing_runs_never_exceed_the_daily_quota(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_runs_never_exceed_the_daily_quota_on_postgres() {
    racing_runs_never_exceed_the_daily_quota(Backend::Postgres).await;
}
