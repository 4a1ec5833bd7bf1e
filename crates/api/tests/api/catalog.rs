//! The catalogs, the decode calculator, a listing's catalog entries, and the physics check
//! on verification: a machine three times faster than its GPU can be is not verified.

use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem};
use crate::verification::{follow, listing_body, provider, request_run};

on_both_backends!(
    catalogs_and_the_calculator_are_public_and_refuse_unknown_ids,
    listings_name_catalog_entries_checked_against_the_catalogs,
);
measured_on!(sqlite = Sqlite; a_machine_faster_than_its_gpu_can_be_is_not_verified);

async fn catalogs_and_the_calculator_are_public_and_refuse_unknown_ids(app: TestApp) {
    let gpus: Value = app.get_json("/v1/hardware", None).await;
    let gpus = gpus["items"].as_array().unwrap();
    assert!(gpus.len() >= 40, "{}", gpus.len());
    assert!(
        gpus.iter()
            .all(|g| g["source"].as_str().unwrap().starts_with("https://"))
    );
    let rtx: Value = app.get_json("/v1/hardware/rtx-3060-12gb", None).await;
    assert_eq!(rtx["memory_bandwidth_gb_s"], 360.0);
    assert_eq!(rtx["vram_gb"], 12.0);
    assert!(
        rtx["results"].as_array().unwrap().is_empty(),
        "nothing verified yet"
    );
    let models: Value = app.get_json("/v1/models", None).await;
    assert!(models["items"].as_array().unwrap().len() >= 5);
    let nemotron: Value = app
        .get_json("/v1/models/nvidia-nemotron-nano-12b-v2-awq", None)
        .await;
    assert_eq!(nemotron["attention_layers"], 6);
    assert_eq!(nemotron["kv_bytes_per_token"], 24576.0);
    assert_problem(
        app.get("/v1/hardware/rtx-9999", None).await,
        404,
        "not_found",
    )
    .await;
    assert_problem(app.get("/v1/models/nope", None).await, 404, "not_found").await;

    // The reference page's pair, one stream: 40.3 tok/s at 0K, 34.5 at 32K.
    for (context, page) in [(0, 40.3), (32768, 34.5)] {
        let estimate: Value = app
            .get_json(
                &format!("/v1/calculator/decode?gpu=rtx-3060-12gb&model=nvidia-nemotron-nano-12b-v2-awq&context={context}&concurrency=1"),
                None,
            )
            .await;
        let predicted = estimate["predicted"]["per_stream_tok_s"].as_f64().unwrap();
        assert!(
            (predicted / page - 1.0).abs() < 0.25,
            "{context}: {estimate}"
        );
        assert_eq!(estimate["formula"]["efficiency"], 0.8);
        assert!(estimate["max_concurrency"].as_u64().unwrap() >= 1);
        assert!(estimate["measured"].as_array().unwrap().is_empty());
        // The GPU's energy at that speed, from its board power (170 W): a ceiling.
        let energy = &estimate["energy"];
        assert_eq!(energy["board_power_w"], 170.0);
        let total = estimate["predicted"]["total_tok_s"].as_f64().unwrap();
        let ceiling = energy["j_per_token_ceiling"].as_f64().unwrap();
        assert!((ceiling / (170.0 / total) - 1.0).abs() < 1e-4, "{estimate}");
        assert_eq!(energy["cost_per_hour"], Value::Null);
    }
    // Priced at an electricity price (minor units per MWh): 170 W for an hour at 20,000.
    let priced: Value = app
        .get_json(
            "/v1/calculator/decode?gpu=rtx-3060-12gb&model=nvidia-nemotron-nano-12b-v2-awq&electricity_per_mwh=20000",
            None,
        )
        .await;
    assert_eq!(priced["energy"]["cost_per_hour"], 3.4, "{priced}");
    for (query, field) in [
        ("gpu=rtx-9999&model=qwen3-8b", "gpu"),
        (
            "gpu=l4-24gb&model=qwen3-8b&electricity_per_mwh=-5",
            "electricity_per_mwh",
        ),
        ("gpu=l4-24gb&model=nope", "model"),
        ("gpu=l4-24gb&model=qwen3-8b&context=-1", "context"),
        ("gpu=l4-24gb&model=qwen3-8b&concurrency=0", "concurrency"),
    ] {
        let body = assert_problem(
            app.get(&format!("/v1/calculator/decode?{query}"), None)
                .await,
            422,
            "validation_failed",
        )
        .await;
        assert_eq!(body["errors"][0]["field"], field, "{query}");
    }
    assert_problem(
        app.get(
            "/v1/calculator/decode?gpu=l4-24gb&model=qwen3-8b&context=many",
            None,
        )
        .await,
        400,
        "invalid_parameter",
    )
    .await;
}

async fn listings_name_catalog_entries_checked_against_the_catalogs(app: TestApp) {
    let p = provider(&app).await;
    let mut body = listing_body(&p.org, "http://127.0.0.1:9");
    body["catalog"] = json!({"gpu": "rtx-9999", "model": "nvidia-nemotron-nano-12b-v2-awq"});
    let problem = assert_problem(
        app.post("/v1/listings", Some(&p.owner.access_token), body.clone())
            .await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "catalog.gpu");
    body["catalog"]["gpu"] = json!("rtx-3060-12gb");
    let res = app
        .post("/v1/listings", Some(&p.owner.access_token), body)
        .await;
    assert_eq!(res.status(), 201);
    let listing: Value = res.json().await.unwrap();
    assert_eq!(
        listing["catalog"],
        json!({"gpu": "rtx-3060-12gb", "model": "nvidia-nemotron-nano-12b-v2-awq"})
    );
    let path = format!("/v1/listings/{}", listing["id"].as_str().unwrap());
    let patch = |body: Value| {
        let app = &app;
        let (path, token) = (path.clone(), p.owner.access_token.clone());
        async move {
            app.call(reqwest::Method::PATCH, &path, Some(&token), Some(body))
                .await
        }
    };
    let problem = assert_problem(
        patch(json!({"catalog": {"model": "nope"}})).await,
        422,
        "validation_failed",
    )
    .await;
    assert_eq!(problem["errors"][0]["field"], "catalog.model");
    let kept: Value = app.get_json(&path, None).await;
    assert_eq!(
        kept["catalog"]["gpu"], "rtx-3060-12gb",
        "nothing stored is lost"
    );
    let res = patch(json!({"catalog": null})).await;
    assert_eq!(res.status(), 200);
    let cleared: Value = res.json().await.unwrap();
    assert!(cleared["catalog"].is_null(), "{cleared}");
}

async fn a_machine_faster_than_its_gpu_can_be_is_not_verified(app: TestApp) {
    // The simulated RTX 3060 running three times faster than the real one can.
    let profile = sim::Profile::load("rtx3060-nemotron-nano-12b-awq").unwrap();
    let server = sim::serve(profile, "127.0.0.1:0", 3.0).unwrap();
    let engine = format!("http://{}", server.local_addr());
    tokio::spawn(server.run());
    let p = provider(&app).await;
    let mut body = listing_body(&p.org, &engine);
    body["engine"]["model"] = json!("bench");
    body["catalog"] = json!({"gpu": "rtx-3060-12gb", "model": "nvidia-nemotron-nano-12b-v2-awq"});
    let listing: Value = app
        .post("/v1/listings", Some(&p.owner.access_token), body)
        .await
        .json()
        .await
        .unwrap();
    let listing_id = listing["id"].as_str().unwrap().to_owned();
    let run = request_run(&app, &p, &listing_id).await;
    let _workers = app.start_workers();
    let (_, finished) = follow(&app, &run).await.pop().unwrap();
    assert_eq!(finished["status"], "succeeded", "{finished}");
    let report: Value = app
        .get_json(
            &format!("/v1/reports/{}", finished["report_id"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(report["compliant"], false);
    let reasons = report["summary"]["reasons"].to_string();
    assert!(reasons.contains("exceeds_hardware_roofline"), "{reasons}");
    let listing: Value = app
        .get_json(&format!("/v1/listings/{listing_id}"), None)
        .await;
    assert_eq!(listing["verified"], false);
}
