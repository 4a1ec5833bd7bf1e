//! The results site in a real headless Chromium: `tests/browser/check_pages.py` (Playwright
//! for Python driving the system's Chromium) against `serve --demo` with its verified
//! listing (verified twice, for a comparison of its reports) and a community run submitted to
//! it.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Demo, SHORT_WINDOWS, http_get, new_api_key, send_json, stderr};

/// The signing secret of the demo's Stripe webhooks here.
const WEBHOOK_SECRET: &str = "whsec_pages";

const GPU: &str = "rtx-3060-12gb";
const MODEL: &str = "nvidia-nemotron-nano-12b-v2-awq";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_site_pages_render_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    // Stripe, local: the demo organisation subscribes to Pro, for the plans page and a
    // private report.
    let stripe = payments::testing::FakeStripe::start().unwrap();
    let mut settings = SHORT_WINDOWS.to_vec();
    settings.extend([
        ("STRIPE_SECRET_KEY", "sk_test_pages"),
        ("STRIPE_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ("STRIPE_API_BASE", stripe.base_url()),
        ("GPUMARKET_STRIPE_PRO_PRICE_ID", "price_pro_monthly"),
    ]);
    let demo = Demo::start_with(dir.path(), &settings).await;
    let listing = demo.verified_listing().await;
    let report_id = listing["verification"]["report_id"]
        .as_str()
        .unwrap()
        .to_owned();

    // A community run on the same catalog pair (a report our harness measured on the tiny
    // simulator, recorded; `bench --submit`'s own path is `bench_submits_a_community_run`'s
    // subject); its launch command is hostile markup.
    let key = new_api_key(&demo.base, "s@example.com", "Sandberg").await;
    let report: Value = serde_json::from_str(include_str!(
        "../../crates/api/tests/api/data/community-run.json"
    ))
    .unwrap();
    let engine = report["engine"]["base_url"].as_str().unwrap().to_owned();
    let submitted = crate::http()
        .post(format!("{}/v1/runs", demo.base))
        .bearer_auth(&key)
        .json(&json!({
            "report": report,
            "catalog": {"gpu": GPU, "model": MODEL},
            "launch_command": "vllm serve tiny <script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\">",
            "hardware_notes": "<b>1x</b> RTX 3060 </pre><script>alert(1)</script>",
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        submitted.status(),
        201,
        "{}",
        submitted.text().await.unwrap()
    );
    let runs: Value = http_get(format!("{}/v1/runs?gpu={GPU}&model={MODEL}", demo.base))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let run_id = runs["items"][0]["id"].as_str().unwrap().to_owned();

    // A second report of the same machine, to compare with the first: a quick run the demo
    // provider asks for (reports are compared whatever their verdict).
    let http = crate::http();
    let login: Value =
        send_json(http.post(format!("{}/v1/auth/login", demo.base)).json(
            &json!({"email": "demo@gpumarket.local", "password": "demo-password-not-secret"}),
        ))
        .await;
    let listing_id = listing["id"].as_str().unwrap();
    let asked = http
        .post(format!(
            "{}/v1/listings/{listing_id}/verifications",
            demo.base
        ))
        .bearer_auth(login["access_token"].as_str().unwrap())
        .json(&json!({"profile": "quick"}))
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 202, "{}", asked.text().await.unwrap());
    let deadline = Instant::now() + Duration::from_secs(90);
    let other_report_id = loop {
        let reports: Value = http_get(format!("{}/reports", demo.listing_url))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let other = reports["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .find(|id| *id != report_id);
        if let Some(id) = other {
            break id;
        }
        assert!(Instant::now() < deadline, "no second report: {reports}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };

    // The board shows the listing's latest compliant report: the second when it passed.
    let listing: Value = http_get(&demo.listing_url)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let latest = listing["verification"]["report_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (report_id, second_report_id) = if latest == report_id {
        (report_id, other_report_id)
    } else {
        (latest, report_id)
    };

    // The report's proof is on its page once a checkpoint covers it (one a second here).
    let deadline = Instant::now() + Duration::from_secs(30);
    while http_get(format!("{}/v1/reports/{report_id}/proof", demo.base))
        .await
        .unwrap()
        .status()
        != 200
    {
        assert!(Instant::now() < deadline, "no checkpoint covers the report");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // The plans as two organisations' members read them: a new one's (free), and the demo
    // organisation's once it is Pro; then a private report of the demo machine, which no
    // page may show.
    let token = login["access_token"].as_str().unwrap();
    let org_id = listing["org_id"].as_str().unwrap().to_owned();
    let free_org: Value = send_json(
        http.post(format!("{}/v1/orgs", demo.base))
            .bearer_auth(&key)
            .json(&json!({"name": "Sandberg Labs"})),
    )
    .await;
    let billing = |org: String, token: String| {
        let http = http.clone();
        let base = demo.base.clone();
        async move {
            let billing: Value = send_json(
                http.get(format!("{base}/v1/orgs/{org}/billing"))
                    .bearer_auth(token),
            )
            .await;
            billing
        }
    };
    let free = billing(free_org["id"].as_str().unwrap().to_owned(), key.clone()).await;
    assert_eq!(free["plan"], "free", "{free}");
    let checkout: Value = send_json(
        http.post(format!("{}/v1/orgs/{org_id}/billing/checkout", demo.base))
            .bearer_auth(token)
            .json(&json!({})),
    )
    .await;
    let session = checkout["url"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap();
    let (_, subscription) = stripe.complete_checkout(session, "active").unwrap();
    let event = payments::testing::event(
        "evt_pages_pro",
        "customer.subscription.updated",
        subscription,
    );
    let signature = payments::testing::sign(&event, WEBHOOK_SECRET, chrono::Utc::now().timestamp());
    let delivered = http
        .post(format!("{}/v1/webhooks/stripe", demo.base))
        .header("content-type", "application/json")
        .header("Stripe-Signature", signature)
        .body(event)
        .send()
        .await
        .unwrap();
    assert_eq!(delivered.status(), 200);
    let pro = billing(org_id.clone(), token.to_owned()).await;
    assert_eq!(pro["plan"], "pro", "{pro}");
    let private_report = private_report_of(&demo, token, listing_id).await;
    market_history_of(dir.path()).await;

    let facts = dir.path().join("facts.json");
    let chromium =
        std::env::var("GPUMARKET_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned());
    std::fs::write(
        &facts,
        json!({
            "base": demo.base,
            "report_id": report_id,
            "second_report_id": second_report_id,
            "run_id": run_id,
            "listing_id": listing["id"],
            "org_id": org_id,
            "billing_free": free,
            "billing_pro": pro,
            "private_report_id": private_report,
            "gpu_model": listing["hardware"]["gpu_model"],
            "gpu": GPU,
            "model": MODEL,
            "chromium": chromium,
            "engines": [demo.engine, engine.trim_start_matches("http://")],
        })
        .to_string(),
    )
    .unwrap();
    let python = std::env::var("GPUMARKET_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/check_pages.py");
    // Chromium burns both cores for seconds: niced, so the measurements beside this test keep
    // the cores when they want them.
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new("nice")
            .args(["-n", "19"])
            .arg(&python)
            .arg(script)
            .arg(&facts)
            .output()
            .unwrap_or_else(|e| panic!("{python}: {e}"))
    })
    .await
    .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the pages failed in Chromium (scripts/check installs Playwright and Chromium; \
         GPUMARKET_TEST_PYTHON and GPUMARKET_CHROMIUM point at them):\n{printed}\n{}",
        stderr(&output)
    );
    // Every check ran (a script that stopped early would print fewer).
    assert!(
        printed.lines().filter(|l| l.starts_with("ok ")).count() > 300,
        "{printed}"
    );
}

/// A private quick verification of the demo machine (its organisation is Pro): its report's id.
/// Three closed days of the market's history, 20 to 18 days back (beyond what the demo's own
/// sweeper rolls up), written into the demo's database as its sweeper writes them.
async fn market_history_of(dir: &std::path::Path) {
    let url = format!("sqlite://{}?mode=rw", dir.join("gpumarket.db").display());
    let db = store::Db::connect(&url).await.unwrap();
    let today = domain::market::Bucket::Day.start_of(chrono::Utc::now());
    for (back, median, bid) in [(20, 30, Some(12)), (19, 35, None), (18, 33, Some(15))] {
        let start = today - chrono::Duration::days(back);
        let row = store::HistoryRecord {
            bucket: "day".into(),
            gpu: "*".into(),
            currency: "USD".into(),
            starts_at: start,
            listings: 3,
            gpus_listed: 5,
            gpu_hours_booked: 12.5,
            price_p10: median - 5,
            price_median: median,
            price_p90: median + 10,
            clearing_bid: bid,
            price_per_mtok_median: Some(0.25),
        };
        let written = db
            .write_history("day", start, vec![row], chrono::Utc::now())
            .await
            .unwrap();
        assert!(written);
    }
}

async fn private_report_of(demo: &Demo, token: &str, listing: &str) -> String {
    let http = crate::http();
    let asked = http
        .post(format!("{}/v1/listings/{listing}/verifications", demo.base))
        .bearer_auth(token)
        .json(&json!({"profile": "quick", "visibility": "private"}))
        .send()
        .await
        .unwrap();
    assert_eq!(asked.status(), 202, "{}", asked.text().await.unwrap());
    let run: Value = asked.json().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let now: Value = send_json(
            http.get(format!(
                "{}/v1/verifications/{}",
                demo.base,
                run["id"].as_str().unwrap()
            ))
            .bearer_auth(token),
        )
        .await;
        if let Some(report) = now["report_id"].as_str() {
            assert_eq!(now["visibility"], "private", "{now}");
            return report.to_owned();
        }
        assert!(
            Instant::now() < deadline && now["status"] != "failed",
            "the private run did not finish: {now}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
