//! The community board is a maintained aggregate: with 500 maximum-size community runs
//! stored, 40 concurrent `/?source=community` pages keep a `gpumarket serve` process (its own
//! peak RSS) under 300 MB — no request parses stored reports.

use std::time::Duration;

use chrono::Utc;
use serde_json::{Value, json};
use store::testing::TestDatabase;
use store::{Backend, CommunityCellRecord, CommunityRunRecord, Db};

use crate::{Server, gpumarket, http};

/// A stored report as large as a submission may be (128 KiB), with its valid cells.
fn big_run(submitter: uuid::Uuid, n: usize) -> (CommunityRunRecord, Vec<CommunityCellRecord>) {
    let id = uuid::Uuid::now_v7();
    let mut decode = Vec::new();
    let mut cells = Vec::new();
    for (position, (context, concurrency)) in [0, 1024, 4096, 8192]
        .iter()
        .flat_map(|c| [1, 2, 4, 8, 16, 32, 64, 128].map(move |q| (*c, q)))
        .enumerate()
    {
        let total = 10.0 * concurrency as f64 + n as f64;
        decode.push(json!({"status": "valid", "context_tokens": context, "concurrency": concurrency, "total_tok_s": total, "note": "x".repeat(300)}));
        cells.push(CommunityCellRecord {
            run_id: id,
            position: position as i32,
            catalog_gpu: Some("rtx-3060-12gb".to_owned()),
            model: format!("model-{}", n % 50),
            context_tokens: context,
            concurrency,
            total_tok_s: total,
            per_request_tok_s: Some(10.0),
        });
    }
    let mut report = json!({"engine": {"model": format!("model-{}", n % 50)}, "decode": decode});
    let size = report.to_string().len();
    report["padding"] = Value::Array(vec![json!("y".repeat(250)); (128 * 1024 - size) / 256]);
    let record = CommunityRunRecord {
        id,
        submitter_id: submitter,
        submitter_handle: "seeder".to_owned(),
        catalog_gpu: Some("rtx-3060-12gb".to_owned()),
        catalog_model: None,
        model: format!("model-{}", n % 50),
        report: report.to_string(),
        report_sha256: "0".repeat(64),
        launch_command: None,
        hardware_notes: None,
        receipt: json!({"payload": "", "signatures": []}).to_string(),
        created_at: Utc::now(),
        withdrawn_at: None,
    };
    (record, cells)
}

/// A `/proc/{pid}/status` figure in kB.
fn status_kb(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .unwrap()
}

fn peak_rss_mb(pid: u32) -> f64 {
    status_kb(pid, "VmHWM:") / 1024.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_community_board_stays_small_with_500_large_runs() {
    let database = TestDatabase::new(Backend::Sqlite).await.unwrap();
    let db = Db::connect(database.url()).await.unwrap();
    let mut submitters = Vec::new();
    for n in 0..10 {
        let email = domain::Email::parse(&format!("seeder{n}@example.com")).unwrap();
        let name = domain::DisplayName::parse("seeder").unwrap();
        let user = db
            .insert_user(domain::UserId::new(), &email, &name, "x".into(), Utc::now())
            .await
            .unwrap();
        submitters.push(user.id.as_uuid());
    }
    for n in 0..500 {
        let (run, cells) = big_run(submitters[n % 10], n);
        let stored = db
            .insert_community_run(run, cells, vec![n as u8; 32], 1000)
            .await
            .unwrap();
        assert!(matches!(stored, store::Submitted::Stored(_)));
    }
    db.close().await.unwrap();

    let dir = tempfile::tempdir().unwrap();
    let mut command = gpumarket(dir.path());
    command
        .env("GPUMARKET_DATABASE_URL", database.url())
        .env("GPUMARKET_RATE_LIMITS", "false")
        .env(
            "GPUMARKET_JWT_SECRET",
            "cli-test-secret-cli-test-secret-0123456",
        );
    let mut server = Server::start(command);
    server.wait_until_up().await;
    let client = http();
    let pages: Vec<_> = (0..40)
        .map(|_| {
            let request = client
                .get(format!("{}/?source=community", server.base))
                .send();
            tokio::spawn(async move {
                let res = request.await.unwrap();
                assert_eq!(res.status(), 200);
                res.text().await.unwrap()
            })
        })
        .collect();
    let mut answered = Vec::new();
    for page in pages {
        answered.push(page.await.unwrap());
    }
    assert!(answered[0].contains("model-49"), "the board shows the runs");
    let board: Value = client
        .get(format!("{}/v1/leaderboard?source=community", server.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        board["items"].as_array().unwrap().len(),
        50,
        "one row per model"
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    let peak = peak_rss_mb(server.child.id());
    // Most of it is file-backed (the binary, the memory-mapped database); what the requests
    // themselves hold is anonymous memory.
    let anonymous = status_kb(server.child.id(), "RssAnon:") / 1024.0;
    println!("the server peaked at {peak:.0} MB, {anonymous:.0} MB anonymous after the pages");
    assert!(anonymous < 100.0, "{anonymous:.0} MB anonymous");
    assert!(peak < 300.0, "the server peaked at {peak:.0} MB");
}
