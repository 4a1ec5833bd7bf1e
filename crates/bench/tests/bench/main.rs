//! The harness against real HTTP servers: the simulated engine, and small servers written
//! here to misbehave. Every bad target ends in a clear error or an `invalid` cell — never a
//! panic or a hang.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use actix_web::web::Bytes;
use actix_web::{App, HttpResponse, HttpServer, web};
use bench::{BenchError, Options, Parameters, Progress, Status, params};
use tokio::sync::watch;

/// A simulated engine on a free port; returns its base URL.
fn start_sim(profile: &str) -> String {
    let server = sim::serve(sim::Profile::load(profile).unwrap(), "127.0.0.1:0", 1.0).unwrap();
    let url = format!("http://{}", server.local_addr());
    tokio::spawn(server.run());
    url
}

/// Quick parameters shrunk to one short cell.
fn tiny_run() -> Parameters {
    Parameters {
        contexts: vec![0],
        concurrency: vec![1],
        prefill_contexts: vec![],
        measure_secs: 0.5,
        max_output: 64,
        idle_secs: 0.1,
        idle_timeout_secs: 10.0,
        readiness_timeout_secs: 10.0,
        stream_idle_timeout_secs: 5.0,
        ..params::quick()
    }
}

async fn run(
    base_url: &str,
    model: Option<&str>,
    params: Parameters,
) -> Result<bench::Report, BenchError> {
    let (_cancel_tx, cancel) = watch::channel(false);
    let options = Options {
        base_url: base_url.to_owned(),
        model: model.map(str::to_owned),
        api_key: None,
        params,
    };
    tokio::time::timeout(Duration::from_secs(120), bench::run(options, None, cancel))
        .await
        .expect("the run ends on its own")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_api_key_is_required_and_sent() {
    let mut profile = sim::Profile::load("tiny").unwrap();
    profile.api_key = Some("sk-engine".into());
    let server = sim::serve(profile, "127.0.0.1:0", 1.0).unwrap();
    let url = format!("http://{}", server.local_addr());
    tokio::spawn(server.run());
    let attempt = |api_key: Option<&str>| {
        let (_cancel_tx, cancel) = watch::channel(false);
        let options = Options {
            base_url: url.clone(),
            model: None,
            api_key: api_key.map(str::to_owned),
            params: tiny_run(),
        };
        async move {
            let _keep = _cancel_tx;
            bench::run(options, None, cancel).await
        }
    };
    let refused = attempt(None).await.unwrap_err();
    assert!(refused.to_string().contains("401"), "{refused}");
    let wrong = attempt(Some("sk-other")).await.unwrap_err();
    assert!(wrong.to_string().contains("401"), "{wrong}");
    let report = attempt(Some("sk-engine")).await.unwrap();
    assert_eq!(report.decode.len(), 1);
    assert_eq!(
        report.decode[0].status,
        Status::Valid,
        "{:?}",
        report.decode[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_is_a_clear_error() {
    let err = run("http://127.0.0.1:1", None, tiny_run())
        .await
        .unwrap_err();
    assert!(matches!(err, BenchError::Unreachable(_)), "{err}");
    assert!(err.to_string().contains("unreachable"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_is_not_vllm_is_named_so() {
    let server = HttpServer::new(|| {
        App::new().default_service(web::to(|| async {
            HttpResponse::NotFound().body("nothing here")
        }))
    })
    .bind("127.0.0.1:0")
    .unwrap();
    let url = format!("http://{}", server.addrs()[0]);
    tokio::spawn(server.run());
    let err = run(&url, None, tiny_run()).await.unwrap_err();
    assert!(matches!(err, BenchError::NotVllm(_)), "{err}");

    let server = HttpServer::new(|| {
        App::new().route(
            "/v1/models",
            web::get().to(|| async { HttpResponse::Ok().body("<html>hello</html>") }),
        )
    })
    .bind("127.0.0.1:0")
    .unwrap();
    let url = format!("http://{}", server.addrs()[0]);
    tokio::spawn(server.run());
    let err = run(&url, None, tiny_run()).await.unwrap_err();
    assert!(
        err.to_string().contains("not an OpenAI model list"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_model_lists_what_is_served() {
    let url = start_sim("tiny");
    let err = run(&url, Some("llama-9000"), tiny_run()).await.unwrap_err();
    assert!(matches!(err, BenchError::UnknownModel(_)), "{err}");
    assert!(
        err.to_string().contains("llama-9000") && err.to_string().contains("tiny"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contexts_beyond_the_model_are_over_capacity_not_errors() {
    let url = start_sim("tiny"); // max_model_len 8192
    let params = Parameters {
        contexts: vec![8000],
        prefill_contexts: vec![9000],
        max_output: 256,
        ..tiny_run()
    };
    let report = run(&url, None, params).await.unwrap();
    assert_eq!(report.decode[0].status, Status::OverCapacity);
    assert!(
        report.decode[0].reasons[0].contains("max_model_len 8192"),
        "{:?}",
        report.decode[0].reasons
    );
    assert_eq!(report.prefill[0].status, Status::OverCapacity);
    assert_eq!(report.engine.max_model_len, Some(8192));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_run_against_the_simulator_is_compliant_and_confirmed() {
    let url = start_sim("tiny");
    let params = Parameters {
        prefill_contexts: vec![512],
        prefill_repeats: 1,
        contexts: vec![0, 300],
        ..tiny_run()
    };
    let report = run(&url, None, params).await.unwrap();
    assert!(
        report.compliance.compliant,
        "{:?}",
        report.compliance.reasons
    );
    assert!(report.evidence.continuous_usage && report.evidence.tokenize_endpoint);
    // Every prompt was sized exactly and the server confirmed the count.
    assert!(!report.evidence.prompts.is_empty());
    for prompt in &report.evidence.prompts {
        assert_eq!(
            prompt.confirmed_tokens,
            Some(prompt.prompt_tokens),
            "{prompt:?}"
        );
        assert!(
            prompt.prompt_tokens.abs_diff(prompt.context_tokens)
                <= bench::prompt::tolerance(prompt.context_tokens)
        );
        assert!(prompt.body_sha256.iter().all(|h| h.len() == 64));
    }
    assert_eq!(
        report.prefill[0].repeats[0].prefill_source,
        "server_histogram"
    );
    let json = serde_json::to_value(&report).unwrap();
    for key in [
        "standard",
        "parameters",
        "engine",
        "hardware",
        "prefill",
        "decode",
        "compliance",
        "harness",
        "started_at",
        "finished_at",
    ] {
        assert!(json.get(key).is_some(), "{key}");
    }
    assert_eq!(json["standard"], "standard/1");
}

/// A server that behaves until a long stream starts, then fails in the middle of it.
async fn failing_completions(body: web::Json<serde_json::Value>) -> HttpResponse {
    let max_tokens = body["max_tokens"].as_u64().unwrap_or(1);
    let stream = body["stream"].as_bool().unwrap_or(false);
    let prompt_tokens = body["prompt"]
        .as_str()
        .unwrap_or("")
        .split_whitespace()
        .count() as u64;
    if !stream {
        return HttpResponse::Ok().json(
            serde_json::json!({"usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 1}}),
        );
    }
    let tokens = if max_tokens <= 4 { max_tokens } else { 3 };
    let mut events: Vec<Result<Bytes, actix_web::Error>> = (1..=tokens)
        .map(|n| Ok(Bytes::from(format!(
            "data: {{\"choices\":[{{\"index\":0,\"text\":\" x\"}}],\"usage\":{{\"prompt_tokens\":{prompt_tokens},\"completion_tokens\":{n}}}}}\n\n"
        ))))
        .collect();
    if max_tokens <= 4 {
        events.push(Ok(Bytes::from_static(b"data: [DONE]\n\n")));
    } else {
        events.push(Ok(Bytes::from_static(
            b"data: {\"error\":{\"message\":\"CUDA out of memory\",\"code\":500}}\n\n",
        )));
    }
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .streaming(futures_util::stream::iter(events))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_failing_mid_run_makes_the_cell_invalid_with_the_reason() {
    let server = HttpServer::new(|| {
        App::new()
            .route("/v1/models", web::get().to(|| async { HttpResponse::Ok().json(serde_json::json!({"object": "list", "data": [{"id": "flaky", "max_model_len": 4096}]})) }))
            .route("/v1/completions", web::post().to(failing_completions))
    })
    .bind("127.0.0.1:0")
    .unwrap();
    let url = format!("http://{}", server.addrs()[0]);
    tokio::spawn(server.run());
    let report = run(&url, None, tiny_run()).await.unwrap();
    let cell = &report.decode[0];
    assert_eq!(cell.status, Status::Invalid, "{cell:?}");
    assert!(
        cell.reasons
            .iter()
            .any(|r| r.contains("CUDA out of memory")),
        "{:?}",
        cell.reasons
    );
    assert!(!report.compliance.compliant);
    // No /metrics and no /tokenize: both said, and the sizing fell back to usage.
    let reasons = report.compliance.reasons.join("\n");
    assert!(
        reasons.contains("/metrics") && reasons.contains("/tokenize"),
        "{reasons}"
    );
    assert!(!report.evidence.prompts.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_stops_cleanly_and_keeps_what_was_measured() {
    let url = start_sim("tiny");
    let params = Parameters {
        concurrency: vec![1, 2, 4],
        measure_secs: 1.0,
        ..tiny_run()
    };
    let (cancel_tx, cancel) = watch::channel(false);
    let (progress_tx, mut progress) = tokio::sync::mpsc::unbounded_channel();
    let options = Options {
        base_url: url,
        model: None,
        api_key: None,
        params,
    };
    let running = tokio::spawn(bench::run(options, Some(progress_tx), cancel));
    let mut live = 0;
    while let Some(event) = progress.recv().await {
        match event {
            Progress::Live { .. } => live += 1,
            Progress::CellFinished(_) => {
                cancel_tx.send(true).unwrap();
            }
            _ => {}
        }
    }
    let report = tokio::time::timeout(Duration::from_secs(30), running)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(report.partial);
    assert!(!report.compliance.compliant);
    assert!(
        !report.decode.is_empty() && report.decode.len() < 3,
        "{}",
        report.decode.len()
    );
    assert!(live > 0, "live throughput was reported while the cell ran");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_prefix_mode_sends_one_prompt_and_is_not_compliant() {
    let url = start_sim("tiny");
    let params = Parameters {
        concurrency: vec![2],
        shared_prefix: true,
        ..tiny_run()
    };
    let report = run(&url, None, params).await.unwrap();
    assert!(report.parameters.shared_prefix);
    assert_eq!(
        report.decode[0].status,
        Status::Valid,
        "{:?}",
        report.decode[0].reasons
    );
    let decode_prompts: Vec<_> = report
        .evidence
        .prompts
        .iter()
        .filter(|p| p.phase == "decode")
        .collect();
    assert_eq!(decode_prompts.len(), 1, "both streams used prompt 0");
    assert!(!report.compliance.compliant);
    assert!(
        report
            .compliance
            .reasons
            .iter()
            .any(|r| r.contains("shared-prefix")),
        "{:?}",
        report.compliance.reasons
    );
}
