//! The harness against a real llama.cpp server (llama.cpp's own server code through PyPI
//! `xllamacpp`, serving a tiny random GGUF model; `scripts/llamacpp/setup` makes both into a
//! cache outside the clone). The server starts in about a second.
//!
//! What the dialect claims is checked live: the server is recognised by its metrics' names;
//! four requests on its two slots read as two running and two waiting; the generated-token
//! counter moves by exactly the tokens made, once the requests end; `/props` states two slots of
//! 1024 tokens; `/tokenize` counts. Until the standard says how llama.cpp's streams are counted
//! (usage only in the last chunk, that counter moving only as requests end), the harness
//! refuses to measure it, naming what it measures.

use std::process::Command;
use std::time::Duration;

use bench::engine::{Dialect, llamacpp};

use super::engines::{RealEngine, setup};
use super::{BIN, http, stderr};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_llamacpp_server_reads_as_its_dialect_says_and_is_not_measured_yet() {
    setup("scripts/llamacpp/setup");
    let dir = tempfile::tempdir().unwrap();
    let server = RealEngine::start(
        "llama.cpp",
        "scripts/llamacpp/serve",
        &["--parallel", "2"],
        &[("LLAMACPP_CORES", "0")],
        dir.path(),
        Duration::from_secs(60),
    )
    .await;
    // What the dialect reads is the real server's: its metrics' names and its `/props`.
    let get = |path: &str| body(http().get(format!("{}{path}", server.base)));
    let metrics = String::from_utf8(get("/metrics").await).unwrap();
    assert_eq!(
        Dialect::detect(&metrics),
        Some(Dialect::LlamaCpp),
        "{metrics}"
    );
    let before = Dialect::LlamaCpp.snapshot(&metrics).unwrap();
    assert!(before.is_idle(), "{metrics}");
    // `/props`: two slots of 1024 tokens (2048 shared by 2); `/tokenize` counts.
    let props = get("/props").await;
    assert_eq!(
        llamacpp::slots(&props),
        Some(llamacpp::Slots {
            slots: 2,
            context_per_slot: 1024
        })
    );
    assert!(llamacpp::version(&props).is_some());
    let tokenized = body(
        http().post(format!("{}/tokenize", server.base)).json(
            &Dialect::LlamaCpp
                .tokenize_request("tiny", "the probe")
                .unwrap(),
        ),
    )
    .await;
    assert!(Dialect::LlamaCpp.token_count(&tokenized).unwrap() > 0);
    // Four requests on two slots: two run, two wait, as the dialect reads it; the generated
    // tokens are counted once the requests end.
    const TOKENS: u64 = 900;
    let requests: Vec<_> = (0..4)
        .map(|i| {
            let request = http().post(format!("{}/v1/completions", server.base)).json(
                &serde_json::json!({"model": "tiny", "prompt": format!("request {i}"),
                    "max_tokens": TOKENS, "ignore_eos": true}),
            );
            tokio::spawn(async move { request.send().await.unwrap().status() })
        })
        .collect();
    let metrics_now = || async {
        let text = String::from_utf8(get("/metrics").await).unwrap();
        Dialect::LlamaCpp.snapshot(&text).unwrap()
    };
    let mut busy = None;
    for _ in 0..400 {
        let snapshot = metrics_now().await;
        if snapshot.waiting == Some(2.0) {
            busy = Some(snapshot);
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let busy = busy.expect("two requests seen waiting for a slot");
    assert_eq!(busy.running, Some(2.0));
    for request in requests {
        assert!(request.await.unwrap().is_success());
    }
    let after = metrics_now().await;
    assert!(after.is_idle());
    assert_eq!(
        after.generation_tokens.unwrap() - before.generation_tokens.unwrap(),
        (4 * TOKENS) as f64
    );
    let out = dir.path().join("report.json");
    let output = Command::new(BIN)
        .args(["bench", "--base-url", &server.base, "--profile", "quick"])
        .arg("--out")
        .arg(&out)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let said = stderr(&output);
    assert!(!output.status.success(), "{said}");
    assert!(
        said.contains("llamacpp's dialect") && said.contains("it measures: vllm"),
        "{said}\n{}",
        server.log_tail()
    );
    assert!(
        !out.exists(),
        "no report of an engine the standard does not measure"
    );
}

/// The body of a request's answer.
async fn body(request: reqwest::RequestBuilder) -> Vec<u8> {
    request
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec()
}
