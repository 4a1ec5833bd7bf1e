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
        outbound: outbound::Policy::permissive(),
        require_dialect: false,
        expect_engine: None,
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
            api_key: api_key.map(|key| key.to_owned().into()),
            params: tiny_run(),
            outbound: outbound::Policy::permissive(),
            require_dialect: false,
            expect_engine: None,
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
    // Answered and counted with the key. Whether the cell is valid is the measurement's
    // business: this test runs beside others, outside the measuring group.
    assert!(
        report.decode[0].total_tok_s.is_some_and(|t| t > 0.0),
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
    // Errors end up in reports and events: they never repeat the engine's address.
    assert!(!err.to_string().contains("127.0.0.1"), "{err}");
    assert!(err.to_string().contains("connect"), "{err}");
}

/// The simulator speaking SGLang or TGI: the harness reads the dialect from its metrics and
/// measures it by its rules — SGLang's tokens from running usage (its chunks are engine
/// steps), TGI's one per chunk to the last (no running usage, and not held against it), both
/// cross-checked over the requests that ended. Speaking llama.cpp, it is measured by
/// llama.cpp's rules: capacity from `/props`, tokens one per content chunk (no continuous
/// usage, and not held against it), and a stated engine that differs refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_engines_are_recognised_and_measured_by_their_rules() {
    let serve = |dialect| {
        let mut profile = sim::Profile::load("tiny").unwrap();
        profile.dialect = dialect;
        let server = sim::serve(profile, "127.0.0.1:0", 1.0).unwrap();
        let url = format!("http://{}", server.local_addr());
        tokio::spawn(server.run());
        url
    };
    for (dialect, name, continuous) in [
        (sim::Dialect::Sglang, "sglang", true),
        (sim::Dialect::Tgi, "tgi", false),
    ] {
        let report = run(&serve(dialect), None, tiny_run()).await.unwrap();
        assert_eq!(report.engine.name, name);
        assert_eq!(report.evidence.continuous_usage, continuous, "{name}");
        assert!(
            report.compliance.compliant,
            "{name}: {:?}",
            report.compliance
        );
        let cell = &report.decode[0];
        assert_eq!(cell.status, bench::Status::Valid, "{name}: {cell:?}");
        assert!(cell.total_tok_s.is_some_and(|t| t > 0.0), "{cell:?}");
        if dialect == sim::Dialect::Tgi {
            assert_eq!(cell.tokens_per_chunk, Some(1.0), "{cell:?}");
        }
    }
    let llamacpp = serve(sim::Dialect::LlamaCpp);
    let report = run(&llamacpp, None, tiny_run()).await.unwrap();
    assert_eq!(report.engine.name, "llamacpp");
    // `/props`: 16 slots (the profile's `max_num_seqs`) of 8192 tokens.
    assert_eq!(report.engine.max_model_len, Some(8192));
    assert_eq!(report.engine.kv_cache_tokens, Some(16 * 8192));
    assert_eq!(
        report.engine.kv_cache_source.as_deref(),
        Some("total_slots*n_ctx")
    );
    assert!(!report.evidence.continuous_usage);
    assert!(
        report
            .compliance
            .reasons
            .iter()
            .all(|r| !r.contains("continuous usage")),
        "{:?}",
        report.compliance
    );
    let cell = &report.decode[0];
    assert!(cell.total_tok_s.is_some_and(|t| t > 0.0), "{cell:?}");
    assert_eq!(cell.tokens_per_chunk, Some(1.0), "{cell:?}");
    // A listing that states another engine is refused at preflight.
    let (_cancel_tx, cancel) = watch::channel(false);
    let options = Options {
        base_url: llamacpp,
        model: None,
        api_key: None,
        params: tiny_run(),
        outbound: outbound::Policy::permissive(),
        require_dialect: true,
        expect_engine: Some("vllm".to_owned()),
    };
    let err = bench::run(options, None, cancel).await.unwrap_err();
    assert_eq!(err.code(), "engine_mismatch", "{err}");
    assert!(err.to_string().contains("states engine \"vllm\""), "{err}");
    // The same engine speaking vLLM is measured as vLLM.
    let report = run(&start_sim("tiny"), None, tiny_run()).await.unwrap();
    assert_eq!(report.engine.name, "vllm");
}

/// The tiny profile's simulator speaking `dialect`; its address.
fn start_sim_speaking(dialect: sim::Dialect) -> String {
    let mut profile = sim::Profile::load("tiny").unwrap();
    profile.dialect = dialect;
    let server = sim::serve(profile, "127.0.0.1:0", 1.0).unwrap();
    let url = format!("http://{}", server.local_addr());
    tokio::spawn(server.run());
    url
}

/// The chunks of a streamed answer to `body` at `path`, which must end with `[DONE]`.
async fn sse_chunks(url: &str, path: &str, body: serde_json::Value) -> Vec<serde_json::Value> {
    outbound::install_crypto_provider();
    let text = reqwest::Client::new()
        .post(format!("{url}{path}"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let data: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect();
    assert_eq!(data.last(), Some(&"[DONE]"), "{text}");
    data[..data.len() - 1]
        .iter()
        .map(|d| serde_json::from_str::<serde_json::Value>(d).unwrap())
        .collect()
}

/// The simulator's SGLang and TGI streams are written as their sources write them (the
/// sources are cited in `crates/sim/src/dialect/`): SGLang's running usage on every chunk when
/// `continuous_usage_stats` asks (without `include_usage`), `usage: null` otherwise, a chat's
/// role first and finish apart; TGI's one token a chunk, `finish_reason: ""` until the last
/// token's chunk, which ends a completion with its usage, and a chat's usage apart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_simulators_sglang_and_tgi_streams_follow_their_sources() {
    use serde_json::json;
    let sglang = start_sim_speaking(sim::Dialect::Sglang);
    let completion = sse_chunks(
        &sglang,
        "/v1/completions",
        json!({"model": "tiny", "prompt": "hello", "max_tokens": 6, "stream": true,
            "stream_options": {"continuous_usage_stats": true}}),
    )
    .await;
    let last = completion.last().unwrap();
    assert_eq!(
        last["choices"][0]["finish_reason"], "length",
        "{completion:#?}"
    );
    assert_eq!(last["usage"]["completion_tokens"], 6);
    assert!(
        completion
            .iter()
            .all(|c| c["usage"]["completion_tokens"].is_u64()
                && c["choices"][0].get("matched_stop").is_some()
                && !c["id"].as_str().unwrap().starts_with("cmpl-"))
    );
    let plain = sse_chunks(
        &sglang,
        "/v1/completions",
        json!({"model": "tiny", "prompt": "hello", "max_tokens": 6, "stream": true}),
    )
    .await;
    assert!(
        plain
            .iter()
            .all(|c| c["usage"].is_null() && c.get("usage").is_some()),
        "{plain:#?}"
    );
    let chat = sse_chunks(
        &sglang,
        "/v1/chat/completions",
        json!({"model": "tiny", "max_tokens": 3, "stream": true,
            "messages": [{"role": "user", "content": "hello"}],
            "stream_options": {"include_usage": true}}),
    )
    .await;
    assert_eq!(
        chat[0]["choices"][0]["delta"],
        json!({"reasoning_content": null, "role": "assistant", "content": ""})
    );
    let (usage, finish) = (&chat[chat.len() - 1], &chat[chat.len() - 2]);
    assert_eq!(
        finish["choices"][0]["delta"],
        json!({"reasoning_content": null}),
        "{chat:#?}"
    );
    assert_eq!(finish["choices"][0]["finish_reason"], "length");
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(usage["usage"]["completion_tokens"], 3);
    assert!(
        chat[1..chat.len() - 2]
            .iter()
            .all(|c| c["choices"][0]["finish_reason"].is_null() && c.get("usage").is_none())
    );

    let tgi = start_sim_speaking(sim::Dialect::Tgi);
    let completion = sse_chunks(
        &tgi,
        "/v1/completions",
        json!({"model": "tiny", "prompt": "hello", "max_tokens": 6, "stream": true,
            "stream_options": {"include_usage": true, "continuous_usage_stats": true}}),
    )
    .await;
    assert_eq!(completion.len(), 6, "one chunk per token: {completion:#?}");
    assert!(
        completion[..5]
            .iter()
            .all(|c| c["choices"][0]["finish_reason"] == ""
                && c.get("usage").is_none()
                && c["id"] == "")
    );
    let last = &completion[5];
    assert_eq!(last["choices"][0]["finish_reason"], "length");
    assert!(last["choices"][0]["text"].is_string());
    assert_eq!(last["usage"]["completion_tokens"], 6);
    assert!(
        last["system_fingerprint"]
            .as_str()
            .unwrap()
            .ends_with("-native")
    );
    let chat = sse_chunks(
        &tgi,
        "/v1/chat/completions",
        json!({"model": "tiny", "max_tokens": 3, "stream": true,
            "messages": [{"role": "user", "content": "hello"}],
            "stream_options": {"include_usage": true}}),
    )
    .await;
    // Three tokens, each naming the role, the last with the finish reason; then the usage.
    assert_eq!(chat.len(), 4, "{chat:#?}");
    assert!(
        chat[..3]
            .iter()
            .all(|c| c["choices"][0]["delta"]["role"] == "assistant" && c["usage"].is_null())
    );
    assert_eq!(chat[2]["choices"][0]["finish_reason"], "length");
    assert_eq!(chat[3]["choices"], json!([]));
    assert_eq!(chat[3]["usage"]["completion_tokens"], 3);
}

/// The simulator's llama.cpp streams end as the real server's do: one token a chunk, the
/// usage and timings only at the end — in a completion's last chunk, in a chat's own chunk
/// only when asked for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_simulators_llamacpp_streams_count_at_the_end() {
    let url = start_sim_speaking(sim::Dialect::LlamaCpp);
    let chunks = |path: &'static str, body: serde_json::Value| sse_chunks(&url, path, body);
    let completion = chunks(
        "/v1/completions",
        serde_json::json!({"model": "tiny", "prompt": "hello", "max_tokens": 6, "stream": true,
            "stream_options": {"include_usage": true, "continuous_usage_stats": true}}),
    )
    .await;
    assert_eq!(completion.len(), 7, "{completion:#?}");
    assert!(
        completion[..6]
            .iter()
            .all(|c| c.get("usage").is_none() && c["choices"][0]["finish_reason"].is_null())
    );
    let last = &completion[6];
    assert_eq!(last["choices"][0]["finish_reason"], "length");
    assert_eq!(last["usage"]["completion_tokens"], 6);
    assert_eq!(last["timings"]["predicted_n"], 6);
    for include_usage in [false, true] {
        let chat = chunks(
            "/v1/chat/completions",
            serde_json::json!({"model": "tiny", "max_tokens": 3, "stream": true,
                "messages": [{"role": "user", "content": "hello"}],
                "stream_options": {"include_usage": include_usage}}),
        )
        .await;
        // The role, three tokens, the finish, and the usage when asked for.
        assert_eq!(chat.len(), 5 + usize::from(include_usage), "{chat:#?}");
        assert_eq!(chat[4]["choices"][0]["finish_reason"], "length");
        assert_eq!(chat.iter().any(|c| c.get("usage").is_some()), include_usage);
    }
}

/// A server whose metrics name no engine (Ollama's, say): a verification refuses it, naming
/// the engines it reads; a plain run measures it as a server without metrics — its report says
/// queueing and the server's count could not be checked, and it is not compliant. The server
/// here is the simulator behind a front whose `/metrics` name nothing known.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verification_needs_an_engine_the_harness_reads() {
    let engine = start_sim("tiny");
    let server = HttpServer::new(move || {
        let engine = engine.clone();
        App::new()
            .route(
                "/metrics",
                web::get().to(|| async { HttpResponse::Ok().body("# TYPE up gauge\nup 1\n") }),
            )
            .default_service(web::to(move |req: actix_web::HttpRequest, body: Bytes| {
                let url = format!("{engine}{}", req.uri());
                async move {
                    let client = reqwest::Client::new();
                    let answer = if req.method() == actix_web::http::Method::POST {
                        client
                            .post(url)
                            .header("content-type", "application/json")
                            .body(body.to_vec())
                            .send()
                            .await
                    } else {
                        client.get(url).send().await
                    };
                    let answer = answer.unwrap();
                    let status =
                        actix_web::http::StatusCode::from_u16(answer.status().as_u16()).unwrap();
                    let chunks = futures_util::stream::unfold(answer, |mut answer| async move {
                        let chunk = answer.chunk().await.transpose()?;
                        Some((chunk, answer))
                    });
                    HttpResponse::build(status).streaming(chunks)
                }
            }))
    })
    .bind("127.0.0.1:0")
    .unwrap();
    let url = format!("http://{}", server.addrs()[0]);
    tokio::spawn(server.run());
    let attempt = |require_dialect: bool| {
        let (_cancel_tx, cancel) = watch::channel(false);
        let options = Options {
            base_url: url.clone(),
            model: None,
            api_key: None,
            params: tiny_run(),
            outbound: outbound::Policy::permissive(),
            require_dialect,
            expect_engine: None,
        };
        async move {
            let _keep = _cancel_tx;
            tokio::time::timeout(Duration::from_secs(60), bench::run(options, None, cancel))
                .await
                .unwrap()
        }
    };
    let refused = attempt(true).await.unwrap_err();
    assert_eq!(refused.code(), "engine_unsupported");
    assert!(
        refused
            .to_string()
            .contains("name no engine the standard reads (vllm, llamacpp, sglang, tgi)"),
        "{refused}"
    );
    // Without the requirement it is measured, its metrics unread.
    let report = attempt(false).await.unwrap();
    assert!(!report.evidence.metrics_endpoint);
    assert!(!report.compliance.compliant);
    assert!(
        report
            .compliance
            .reasons
            .iter()
            .any(|r| r.contains("queueing") && r.contains("could not be checked")),
        "{:?}",
        report.compliance
    );
    let cell = &report.decode[0];
    assert!(cell.total_tok_s.is_some_and(|t| t > 0.0), "{cell:?}");
    assert_eq!(cell.server_generation_tokens, None, "{cell:?}");
    assert_eq!(cell.avg_active_requests, None, "{cell:?}");
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
    assert!(matches!(err, BenchError::Unsupported(_)), "{err}");
    assert_eq!(err.code(), "engine_unsupported");

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
    assert_eq!(json["standard"], "standard/2");
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
        outbound: outbound::Policy::permissive(),
        require_dialect: false,
        expect_engine: None,
    };
    let running = tokio::spawn(bench::run(options, Some(progress_tx), cancel));
    let mut live = 0;
    while let Some(event) = progress.recv().await {
        match event {
            Progress::Live { .. } => live += 1,
            Progress::CellFinished(_) => {
                // The run may already have stopped (and dropped its receiver) when a second
                // cell's event is read.
                let _ = cancel_tx.send(true);
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
    assert!(
        report.decode[0].total_tok_s.is_some_and(|t| t > 0.0),
        "{:?}",
        report.decode[0]
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

/// Reads one HTTP/1.1 request (head and a `content-length` body); `false` at EOF.
async fn read_request(stream: &mut tokio::net::TcpStream) -> bool {
    use tokio::io::AsyncReadExt;
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(head_end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..head_end]).to_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            if data.len() >= head_end + 4 + length {
                return true;
            }
        }
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_keep_alive_connection_is_retried_once_on_a_fresh_one() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::AsyncWriteExt;
    // A server that, like one whose keep-alive timer fired just as the next request came,
    // closes the connection of the second request without answering it. Which connection
    // that is depends on whether the client's pool had the first one back yet (a fresh
    // clone's run once saw a second connection); the server drops the second request on
    // whichever it came, so the test does not depend on the pool's timing.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let requests = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&requests);
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let body = "data: {\"choices\":[{\"index\":0,\"text\":\" x\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n";
                while read_request(&mut stream).await {
                    if seen.fetch_add(1, Ordering::SeqCst) == 1 {
                        return; // drop the connection: the request gets no answer
                    }
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n",
                        body.len()
                    );
                    stream.write_all(head.as_bytes()).await.unwrap();
                    stream.write_all(body.as_bytes()).await.unwrap();
                }
            });
        }
    });
    let engine = bench::client::Engine::new(&url, None, outbound::Policy::permissive()).unwrap();
    let client = engine.stream_client().unwrap();
    let body = br#"{"model":"m","prompt":"p","max_tokens":1,"stream":true}"#;
    let idle = bench::client::StreamLimits {
        max_tokens: 1,
        idle: Duration::from_secs(5),
        total: None,
    };
    let first = client
        .stream(body, idle, &mut (), std::future::pending())
        .await;
    assert!(first.completed && first.error.is_none(), "{first:?}");
    assert!(!first.retried);
    let second = client
        .stream(body, idle, &mut (), std::future::pending())
        .await;
    assert!(second.completed, "{second:?}");
    assert!(second.error.is_none(), "{second:?}");
    assert!(second.retried, "the connection was closed unanswered");
    assert_eq!(second.chunks.len(), 1);
    // The lost request, then its retry on a second connection: sent twice, answered once.
    assert_eq!(requests.load(Ordering::SeqCst), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_cell_is_measured_at_saturation_not_after_a_timeout() {
    // The `queued` engine runs 4 sequences at once, 12 ms per step at 4 (83.3 tok/s each),
    // and publishes /metrics 100 ms late. At 8 streams, 4 wait whatever the harness does.
    let url = start_sim("queued");
    let params = Parameters {
        concurrency: vec![4, 8],
        measure_secs: 2.0,
        // The whole window: the test times it.
        window_rule: params::WindowRule::Fixed,
        max_output: 256,
        // The safety net must not be what ends the wait.
        readiness_timeout_secs: 300.0,
        ..tiny_run()
    };
    let started = std::time::Instant::now();
    let report = run(&url, None, params).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let full = &report.decode[0];
    assert_eq!(full.status, Status::Valid, "{:?}", full.reasons);
    let queued = &report.decode[1];
    assert_eq!(
        queued.status,
        Status::RequestsQueued,
        "{:?}",
        queued.reasons
    );
    assert!(
        queued.reasons[0].contains("at most 4 of 8"),
        "{:?}",
        queued.reasons
    );
    // Saturation is seen within seconds (2 s of a flat running count), not at a timeout.
    let readiness = queued.readiness_s.unwrap();
    assert!(readiness < 10.0, "ready after {readiness} s");
    assert!((queued.measured_s.unwrap() - 2.0).abs() < 0.2);
    // Measured as the server runs it: 4 at a time, 83.3 tok/s each.
    let per_request = queued.per_request_tok_s.unwrap();
    assert!(
        (per_request / (1000.0 / 12.0) - 1.0).abs() < 0.1,
        "{per_request}"
    );
    let total = queued.total_tok_s.unwrap();
    assert!((total / (4000.0 / 12.0) - 1.0).abs() < 0.1, "{total}");
    assert!((queued.avg_active_requests.unwrap() - 4.0).abs() < 0.3);
    assert!(queued.client_in_flight.unwrap() > 7.5);
    // TTFT only of requests that started on an idle slot: not the queued ones' waits.
    assert!(queued.ttft_samples.unwrap() >= 4);
    assert!(queued.ttft_ms_median.unwrap() < 1000.0, "{queued:?}");
    // The lagging counter still agrees with the client over the samples' interval.
    let server = queued.server_generation_tokens.unwrap();
    let client = queued.client_generation_tokens.unwrap() as f64;
    assert!((server / client - 1.0).abs() < 0.15, "{server} vs {client}");
}

/// A completions endpoint that claims three tokens for every one it streams, and keeps going
/// past `max_tokens`.
#[tokio::test]
async fn a_stream_inflating_its_usage_is_refused() {
    let server = HttpServer::new(|| {
        App::new().route(
            "/v1/completions",
            web::post().to(|| async {
                let mut body = String::new();
                for i in 1..=40u64 {
                    body.push_str(&format!(
                        "data: {{\"choices\": [{{\"index\": 0, \"text\": \"a\"}}], \"usage\": {{\"prompt_tokens\": 3, \"completion_tokens\": {}}}}}\n\n",
                        3 * i
                    ));
                }
                body.push_str("data: [DONE]\n\n");
                HttpResponse::Ok()
                    .content_type("text/event-stream")
                    .body(body)
            }),
        )
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let url = format!("http://{}", server.addrs()[0]);
    tokio::spawn(server.run());
    let engine = bench::client::Engine::new(&url, None, outbound::Policy::permissive()).unwrap();
    let limits = bench::client::StreamLimits {
        max_tokens: 64,
        idle: Duration::from_secs(5),
        total: None,
    };
    let timeline = engine
        .stream_client()
        .unwrap()
        .stream(b"{}", limits, &mut (), std::future::pending())
        .await;
    let error = timeline.error.unwrap();
    assert!(
        error.contains("claimed 66 tokens") && error.contains("max_tokens 64"),
        "{error}"
    );
    let counted: u64 = timeline.chunks.iter().map(|(_, n)| n).sum();
    assert!(counted <= 64, "{counted} tokens were counted");
}

/// A run's stop reaches a request stuck on a silent engine at once.
#[tokio::test]
async fn stopping_the_run_ends_a_stuck_request_at_once() {
    let server = HttpServer::new(|| {
        App::new().default_service(web::to(|| async {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            HttpResponse::Ok().finish()
        }))
    })
    .workers(1)
    .bind("127.0.0.1:0")
    .unwrap();
    let url = format!("http://{}", server.addrs()[0]);
    tokio::spawn(server.run());
    let (stop_tx, stop) = watch::channel(false);
    let engine = bench::client::Engine::new(&url, None, outbound::Policy::permissive())
        .unwrap()
        .stopped_by(stop);
    let asking = tokio::spawn(async move { engine.info().await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let stopped_at = std::time::Instant::now();
    stop_tx.send(true).unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(2), asking)
        .await
        .expect("the request ended within 2 s")
        .unwrap();
    assert!(matches!(answer, Err(BenchError::Stopped)), "{answer:?}");
    assert!(stopped_at.elapsed() < Duration::from_millis(500));
}
