//! Community runs: a report measured by our own harness is accepted with a signed receipt,
//! listed by model and hardware and beside the calculator's prediction, labelled community;
//! an inconsistent one is refused naming its fields; only its submitter withdraws it.

use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem};

// One backend each: what is backend-specific (the receipt's log leaf, the daily cap's count)
// is raced on both in the store's tests.
measured_on!(postgres = Postgres; community_runs_are_checked_signed_listed_and_withdrawn);
measured_on_backend!(sqlite = Sqlite; community_submissions_are_clipped_bounded_and_capped_a_day);

/// A real report: the quick matrix (1.5 s windows) measured on the tiny simulated engine by
/// our own harness, recorded once (`data/community-run.json`; to record it again, `gpumarket
/// sim --profile tiny` and `gpumarket bench --profile quick --measure-secs 1.5 --out …`). The
/// harness's own path to a submission is `bench_submits_a_community_run`'s subject; here a
/// recorded report keeps the checks independent of this machine's timing (its cells are
/// valid, which a run beside other tests may not measure).
fn community_report() -> Value {
    serde_json::from_str(include_str!("data/community-run.json")).unwrap()
}

async fn community_runs_are_checked_signed_listed_and_withdrawn(app: TestApp) {
    let report = community_report();
    assert!(
        report["engine"]["base_url"].is_string(),
        "the harness keeps it locally"
    );
    let alice = app.register("alice@example.com").await;
    let bob = app.register("bob@example.com").await;
    let body = |report: &Value| {
        json!({
            "report": report,
            "catalog": {"gpu": "rtx-3060-12gb", "model": "nvidia-nemotron-nano-12b-v2-awq"},
            "launch_command": "vllm serve bench --max-model-len 4096",
            "hardware_notes": "stock power limit",
        })
    };
    assert_problem(
        app.post("/v1/runs", None, body(&report)).await,
        401,
        "unauthenticated",
    )
    .await;

    let res = app
        .post("/v1/runs", Some(&alice.access_token), body(&report))
        .await;
    assert_eq!(res.status(), 201);
    let run: Value = res.json().await.unwrap();
    assert_eq!(run["label"], "community");
    // A pseudonym, never the submitter's name: a signed receipt outlives an erased account.
    let handle = run["submitter"]["handle"].as_str().unwrap().to_owned();
    assert!(
        handle.starts_with("member-") && handle.len() == 19 && !handle.contains("alice"),
        "{handle}"
    );
    assert!(
        run["report"]["engine"]["base_url"].is_null(),
        "no engine address is stored"
    );
    assert!(!run.to_string().contains("127.0.0.1"), "{run}");
    assert!(run["log"]["leaf_index"].is_u64());
    // The receipt: signed by the platform, over the report as stored.
    let keys: Vec<attest::PublishedKey> = app.get_json("/v1/signing-keys", None).await;
    let receipt: attest::Envelope = serde_json::from_value(run["receipt"].clone()).unwrap();
    let (statement, _) = attest::verify_statement(&receipt, &keys).unwrap();
    use sha2::Digest as _;
    let digest = hex::encode(sha2::Sha256::digest(attest::canonical_json(&run["report"])));
    assert_eq!(statement["subject"][0]["digest"]["sha256"], digest);
    assert_eq!(run["report_sha256"], digest);
    assert_eq!(
        statement["predicate"]["submitter"]["handle"],
        handle.as_str()
    );
    let id = run["id"].as_str().unwrap().to_owned();

    // Listed by model and hardware, and beside the calculator's prediction.
    let listed: Value = app
        .get_json(
            "/v1/runs?model=nvidia-nemotron-nano-12b-v2-awq&gpu=rtx-3060-12gb",
            None,
        )
        .await;
    assert_eq!(listed["items"][0]["id"], id.as_str());
    let other: Value = app.get_json("/v1/runs?gpu=l4-24gb", None).await;
    assert!(other["items"].as_array().unwrap().is_empty());
    let estimate: Value = app
        .get_json(
            "/v1/calculator/decode?gpu=rtx-3060-12gb&model=nvidia-nemotron-nano-12b-v2-awq&context=0&concurrency=1",
            None,
        )
        .await;
    let measured = estimate["measured"].as_array().unwrap();
    assert_eq!(measured.len(), 1, "{estimate}");
    assert_eq!(measured[0]["source"], "community");
    assert_eq!(measured[0]["run_id"], id.as_str());
    // The model's and the GPU's results carry it too, marked community; other entries not.
    let valid_cells = report["decode"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "valid")
        .count();
    for path in [
        "/v1/models/nvidia-nemotron-nano-12b-v2-awq",
        "/v1/hardware/rtx-3060-12gb",
    ] {
        let entry: Value = app.get_json(path, None).await;
        let results = entry["results"].as_array().unwrap();
        assert_eq!(results.len(), valid_cells, "{path}: {entry}");
        assert!(
            results
                .iter()
                .all(|r| r["source"] == "community" && r["run_id"] == id.as_str()),
            "{path}: {entry}"
        );
    }
    let other: Value = app.get_json("/v1/hardware/l4-24gb", None).await;
    assert!(other["results"].as_array().unwrap().is_empty(), "{other}");
    // The leaderboard keeps the two apart: verified by default, community on request.
    let verified: Value = app.get_json("/v1/leaderboard", None).await;
    assert!(
        verified["items"].as_array().unwrap().is_empty(),
        "{verified}"
    );
    let community: Value = app.get_json("/v1/leaderboard?source=community", None).await;
    let row = &community["items"][0];
    assert_eq!(row["source"], "community");
    assert_eq!(row["run_id"], id.as_str());
    assert_eq!(row["gpu_model"], "NVIDIA GeForce RTX 3060 12GB");
    assert!(row["report_id"].is_null());
    let best = report["decode"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "valid")
        .filter_map(|c| c["total_tok_s"].as_f64())
        .fold(0.0, f64::max);
    assert_eq!(row["total_tok_s"].as_f64(), Some(best));
    assert_eq!(row["engine"], "vllm", "{row}");
    // Rows are per GPU, model and engine: the same figures measured on llama.cpp are a row
    // of their own; a report naming an engine the standard does not know is shown without
    // one (its name is never echoed).
    let (mut others, mut handles) = (Vec::new(), Vec::new());
    for engine in ["llamacpp", "my-engine\u{7}"] {
        let mut renamed = report.clone();
        renamed["engine"]["name"] = json!(engine);
        let res = app
            .post("/v1/runs", Some(&bob.access_token), body(&renamed))
            .await;
        assert_eq!(res.status(), 201, "{engine}");
        let run: Value = res.json().await.unwrap();
        others.push(run["id"].as_str().unwrap().to_owned());
        handles.push(run["submitter"]["handle"].as_str().unwrap().to_owned());
    }
    assert_eq!(handles[0], handles[1], "one person, one pseudonym");
    assert_ne!(handles[0], handle, "another person, another pseudonym");
    let community: Value = app.get_json("/v1/leaderboard?source=community", None).await;
    let engines: Vec<&Value> = community["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["engine"])
        .collect();
    assert_eq!(engines.len(), 3, "{community}");
    for engine in [json!("vllm"), json!("llamacpp"), Value::Null] {
        assert!(engines.contains(&&engine), "{engine}: {community}");
    }
    assert!(!community.to_string().contains("my-engine"), "{community}");
    for id in others {
        let res = app
            .call(
                reqwest::Method::DELETE,
                &format!("/v1/runs/{id}"),
                Some(&bob.access_token),
                None,
            )
            .await;
        assert_eq!(res.status(), 204);
    }
    let problem = assert_problem(
        app.get("/v1/leaderboard?source=everyone", None).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "source");

    // Inconsistent reports are refused, naming the fields.
    let valid = report["decode"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["status"] == "valid")
        .unwrap();
    let mut inflated = report.clone();
    let total = inflated["decode"][valid]["total_tok_s"].as_f64().unwrap();
    inflated["decode"][valid]["total_tok_s"] = json!(total * 2.0);
    let problem = assert_problem(
        app.post("/v1/runs", Some(&alice.access_token), body(&inflated))
            .await,
        422,
        "validation_failed",
    )
    .await;
    let fields: Vec<&str> = problem["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert!(
        fields.contains(&format!("report.decode[{valid}].total_tok_s").as_str()),
        "{problem}"
    );
    let mut misshapen = report.clone();
    misshapen["decode"][0]["status"] = json!("great");
    let problem = assert_problem(
        app.post("/v1/runs", Some(&alice.access_token), body(&misshapen))
            .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(
        problem["errors"][0]["field"], "report.decode[0].status",
        "{problem}"
    );
    // A second cell at the same context and concurrency (one page would show either).
    let mut doubled = report.clone();
    let cells = doubled["decode"].as_array_mut().unwrap();
    cells.push(cells[valid].clone());
    let last = cells.len() - 1;
    let problem = assert_problem(
        app.post("/v1/runs", Some(&alice.access_token), body(&doubled))
            .await,
        422,
        "validation_failed",
    )
    .await;
    assert!(
        problem["errors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["field"] == format!("report.decode[{last}]").as_str()),
        "{problem}"
    );
    let mut unknown = body(&report);
    unknown["catalog"]["gpu"] = json!("rtx-9999");
    let problem = assert_problem(
        app.post("/v1/runs", Some(&alice.access_token), unknown)
            .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "catalog.gpu");
    let listed: Value = app.get_json("/v1/runs", None).await;
    assert_eq!(
        listed["items"].as_array().unwrap().len(),
        1,
        "nothing refused was stored"
    );

    // Only the submitter withdraws it; then it is gone from lists and pages.
    let path = format!("/v1/runs/{id}");
    assert_problem(
        app.call(
            reqwest::Method::DELETE,
            &path,
            Some(&bob.access_token),
            None,
        )
        .await,
        403,
        "forbidden",
    )
    .await;
    let res = app
        .call(
            reqwest::Method::DELETE,
            &path,
            Some(&alice.access_token),
            None,
        )
        .await;
    assert_eq!(res.status(), 204);
    assert_problem(app.get(&path, None).await, 404, "not_found").await;
    let listed: Value = app.get_json("/v1/runs", None).await;
    assert!(listed["items"].as_array().unwrap().is_empty());
    let board: Value = app.get_json("/v1/leaderboard?source=community", None).await;
    assert!(board["items"].as_array().unwrap().is_empty(), "{board}");

    // Erasing her account withdraws the runs she still has; their receipts keep the
    // pseudonym they were signed with.
    let res = app
        .post("/v1/runs", Some(&alice.access_token), body(&report))
        .await;
    assert_eq!(res.status(), 201);
    let run: Value = res.json().await.unwrap();
    assert_eq!(run["submitter"]["handle"], handle.as_str());
    let path = format!("/v1/runs/{}", run["id"].as_str().unwrap());
    assert_eq!(app.get(&path, None).await.status(), 200);
    let res = app
        .call(
            reqwest::Method::DELETE,
            "/v1/me",
            Some(&alice.access_token),
            None,
        )
        .await;
    assert_eq!(res.status(), 204);
    assert_problem(app.get(&path, None).await, 404, "not_found").await;
    let listed: Value = app.get_json("/v1/runs", None).await;
    assert!(listed["items"].as_array().unwrap().is_empty(), "{listed}");
}

/// Every string of a submitted report is clipped like an engine's, a report too large is
/// refused, and an account submits at most `community_runs_per_day` runs a day.
async fn community_submissions_are_clipped_bounded_and_capped_a_day(backend: store::Backend) {
    let app = TestApp::spawn_with(backend, |c| c.limits.community_runs_per_day = 2).await;
    let mut report = community_report();
    let alice = app.register("alice@example.com").await;
    report["engine"]["version"] = json!(format!("0.32\u{7}{}", "x".repeat(5000)));
    let res = app
        .post(
            "/v1/runs",
            Some(&alice.access_token),
            json!({"report": report}),
        )
        .await;
    assert_eq!(res.status(), 201, "{}", res.text().await.unwrap());
    let runs: Value = app.get_json("/v1/runs", None).await;
    let version = runs["items"][0]["report"]["engine"]["version"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        version.starts_with("0.32 x") && version.ends_with("…[truncated]"),
        "{version}"
    );
    assert!(version.chars().count() <= 300 + "…[truncated]".chars().count());
    // Too large even when clipped: thousands of cells.
    let mut huge = report.clone();
    let cell = huge["decode"][0].clone();
    huge["decode"] = Value::Array(vec![cell; 2000]);
    let res = app
        .post(
            "/v1/runs",
            Some(&alice.access_token),
            json!({"report": huge}),
        )
        .await;
    assert!(
        res.status() == 413 || res.status() == 422,
        "{}",
        res.status()
    );
    let res = app
        .post(
            "/v1/runs",
            Some(&alice.access_token),
            json!({"report": report}),
        )
        .await;
    assert_eq!(res.status(), 201);
    let res = app
        .post(
            "/v1/runs",
            Some(&alice.access_token),
            json!({"report": report}),
        )
        .await;
    let retry: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry > 23 * 3600, "{retry}");
    let problem = assert_problem(res, 429, "rate_limited").await;
    assert!(
        problem["detail"]
            .as_str()
            .unwrap()
            .contains("community_runs_per_day")
    );
}
