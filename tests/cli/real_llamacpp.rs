//! The harness against a real llama.cpp server (llama.cpp's own server code through PyPI
//! `xllamacpp`, serving a tiny random GGUF model; `scripts/llamacpp/setup` makes both into a
//! cache outside the clone). The server starts in about a second.
//!
//! Until the standard says how llama.cpp's streams are counted (usage only in the last
//! chunk, a generated-token counter that moves only as requests end), the harness reads the
//! server's dialect and refuses to measure it, naming what it measures.

use std::process::Command;
use std::time::Duration;

use super::engines::{RealEngine, setup};
use super::{BIN, http, stderr};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_llamacpp_server_is_recognised_and_not_measured_until_its_standard_exists() {
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
    let metrics = http()
        .get(format!("{}/metrics", server.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(metrics.contains("llamacpp:requests_deferred"), "{metrics}");
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
