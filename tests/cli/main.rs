//! The binary, end to end: `serve` with no configuration and against PostgreSQL, `migrate`,
//! configuration errors, and `openapi --check`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use store::tools::testing::TestDatabase;
use store::{Backend, Db};

mod agent;
mod architecture;
mod backup;
mod client;
mod community;
mod containers;
mod docs;
mod engines;
mod faults;
mod machine;
mod pages;
mod real_llamacpp;
mod real_vllm;
mod replicas;
mod schemathesis;
mod suite;
mod webhooks;

const BIN: &str = env!("CARGO_BIN_EXE_gpumarket");

/// The binary with none of this machine's GPUMARKET_* (or STRIPE_*) settings, run in `dir`.
fn gpumarket(dir: &Path) -> Command {
    let mut command = Command::new(BIN);
    command.current_dir(dir);
    for (key, _) in std::env::vars() {
        if key.starts_with("GPUMARKET_") || key.starts_with("STRIPE_") {
            command.env_remove(key);
        }
    }
    command.env("RUST_LOG", "warn");
    // PostgreSQL needs a key for secrets at rest: every test's server gets the same one, kept
    // in the temporary directory (not in `dir`, which may be the clone itself), written
    // whole under another name and renamed, so a test never reads half a key.
    let key = std::env::temp_dir().join("gpumarket-tests-secrets.key");
    if !key.exists() {
        let mut partial = tempfile::NamedTempFile::new_in(std::env::temp_dir()).unwrap();
        std::io::Write::write_all(&mut partial, format!("{}\n", "7e57".repeat(16)).as_bytes())
            .unwrap();
        partial.persist(&key).unwrap();
    }
    command.env("GPUMARKET_SECRETS_KEY_FILE", &key);
    command
}

/// An HTTP client (with the TLS provider installed, as the binary does at start).
fn http() -> reqwest::Client {
    outbound::install_crypto_provider();
    // Idle connections end before the server's 5 s keep-alive closes them.
    reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .expect("an HTTP client")
}

async fn http_get(url: impl reqwest::IntoUrl) -> reqwest::Result<reqwest::Response> {
    http().get(url).send().await
}

/// Sends `request` and reads its answer as JSON.
async fn send_json(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

/// A port free now, below the kernel's ephemeral range (32768–60999): a port the kernel hands
/// out (port 0) is also what it gives the suite's own outgoing connections, so a server told to
/// listen on one a moment later could find it taken by a client's socket.
fn free_port() -> u16 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let seed = std::process::id()
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
    for _ in 0..1000 {
        let step = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let port = 20_000 + (seed.wrapping_add(step.wrapping_mul(7919)) % 12_000) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port between 20000 and 32000")
}

/// A running `gpumarket serve`, stopped with SIGTERM when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(mut command: Command) -> Self {
        let port = free_port();
        let child = command
            .arg("serve")
            .env("GPUMARKET_LISTEN", format!("127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
        }
    }

    /// Waits until `/healthz` answers, or fails after 30 s.
    async fn wait_until_up(&mut self) {
        let client = http();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("gpumarket serve exited early: {status}");
            }
            if let Ok(res) = client.get(format!("{}/healthz", self.base)).send().await
                && res.status() == 200
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("gpumarket serve did not answer /healthz within 30 s");
    }

    /// Waits until `/readyz` says ready (search loaded into memory), or fails after 30 s.
    async fn wait_until_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let (status, ready) = self.get("/readyz").await;
            if status == 200 {
                return;
            }
            assert!(Instant::now() < deadline, "never ready: {ready}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let res = http_get(format!("{}{path}", self.base)).await.unwrap();
        (res.status().as_u16(), res.json().await.unwrap())
    }

    /// SIGTERM, then the exit status (a graceful stop exits 0).
    fn stop(mut self) -> std::process::ExitStatus {
        terminate(&mut self.child)
    }
}

/// SIGTERM to `child`, then its exit status; fails when it has not stopped within 20 s.
fn terminate(child: &mut Child) -> std::process::ExitStatus {
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(Instant::now() < deadline, "{pid} did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run(command: &mut Command) -> Output {
    command.output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[tokio::test]
async fn serve_runs_embedded_with_no_configuration_and_keeps_its_key() {
    let dir = tempfile::tempdir().unwrap();
    // The variables the project documents for its scripts and other commands, exported in
    // the same shell (as scripts/check's comments describe), are not settings: serve starts.
    let mut command = gpumarket(dir.path());
    for name in app::config::NOT_SETTINGS {
        command.env(
            format!("GPUMARKET_{}", name.to_uppercase()),
            "/tmp/not-a-setting",
        );
    }
    command.env_remove("GPUMARKET_CONFIG");
    let mut server = Server::start(command);
    server.wait_until_up().await;
    assert_eq!(
        server.get("/healthz").await,
        (200, serde_json::json!({"status": "ok"}))
    );
    // Ready once search is in memory (alive before: /healthz answered).
    server.wait_until_ready().await;
    assert!(
        dir.path().join("gpumarket.db").exists(),
        "the SQLite file is in the working directory"
    );

    let client = http();
    let registered: Value = client
        .post(format!("{}/v1/auth/register", server.base))
        .json(&serde_json::json!({"email": "ada@example.com", "password": "correct horse battery", "name": "Ada"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = registered["access_token"].as_str().unwrap().to_owned();
    assert!(server.stop().success(), "a graceful stop exits 0");

    // The generated token key was kept: a token from the first run works in the second.
    let mut server = Server::start(gpumarket(dir.path()));
    server.wait_until_up().await;
    let me = client
        .get(format!("{}/v1/me", server.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);
}

#[tokio::test]
async fn serve_runs_on_postgres_given_the_url() {
    let database = TestDatabase::empty(Backend::Postgres).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut command = gpumarket(dir.path());
    command.env("GPUMARKET_DATABASE_URL", database.url());
    let mut server = Server::start(command);
    server.wait_until_up().await;
    server.wait_until_ready().await;
    assert!(
        !dir.path().join("gpumarket.db").exists(),
        "no SQLite file when PostgreSQL is configured"
    );
    // `serve` migrated the empty database itself.
    let db = Db::connect(database.url()).await.unwrap();
    assert!(!db.applied_migrations().await.unwrap().is_empty());
    db.close().await.unwrap();
    drop(server);
    // Without a key for secrets at rest, it does not start on PostgreSQL.
    let output = run(gpumarket(dir.path())
        .arg("serve")
        .env("GPUMARKET_DATABASE_URL", database.url())
        .env_remove("GPUMARKET_SECRETS_KEY_FILE"));
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("secrets_key_file"), "{stderr}");
}

#[tokio::test]
async fn migrate_applies_every_migration_once() {
    let database = TestDatabase::empty(Backend::Postgres).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let wait = |secs: &str| {
        let mut command = gpumarket(dir.path());
        command
            .args(["migrate", "--wait", secs])
            .env("GPUMARKET_DATABASE_URL", database.url());
        command
    };
    // `migrate --wait` applies nothing: on an empty database it gives up at its deadline,
    // naming what is missing; one started before the migration step ends with it.
    let output = run(&mut wait("0"));
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("m20261129_000001_accounts"),
        "{}",
        stderr(&output)
    );
    let mut waiting = wait("60").stderr(Stdio::null()).spawn().unwrap();
    for _ in 0..2 {
        let output = run(gpumarket(dir.path())
            .arg("migrate")
            .env("GPUMARKET_DATABASE_URL", database.url()));
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let waited = tokio::task::spawn_blocking(move || waiting.wait().unwrap())
        .await
        .unwrap();
    assert!(waited.success(), "{waited:?}");
    let db = Db::connect(database.url()).await.unwrap();
    let applied = db.applied_migrations().await.unwrap();
    let expected: Vec<String> = {
        use migration::MigratorTrait;
        migration::Migrator::migrations()
            .iter()
            .map(|m| m.name().to_owned())
            .collect()
    };
    assert_eq!(applied, expected);
    db.close().await.unwrap();

    // A rollback: the database holds a migration of a newer release this binary lacks.
    // Migrating at start stops it, naming why; `migrate_on_start = false` (Kubernetes, where
    // the migration Job runs first) serves on that schema.
    {
        use migration::sea_orm::{ConnectionTrait, Database};
        let conn = Database::connect(database.url()).await.unwrap();
        conn.execute_unprepared(
            "INSERT INTO seaql_migrations (version, applied_at) \
             VALUES ('m29991231_000001_from_a_newer_release', 0)",
        )
        .await
        .unwrap();
        conn.close().await.unwrap();
    }
    let output = run(gpumarket(dir.path())
        .arg("serve")
        .env("GPUMARKET_LISTEN", format!("127.0.0.1:{}", free_port()))
        .env("GPUMARKET_DATABASE_URL", database.url()));
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("m29991231_000001_from_a_newer_release"),
        "{}",
        stderr(&output)
    );
    let output = run(&mut wait("0"));
    assert!(
        output.status.success(),
        "ahead is ready: {}",
        stderr(&output)
    );
    let mut command = gpumarket(dir.path());
    command
        .env("GPUMARKET_DATABASE_URL", database.url())
        .env("GPUMARKET_DATABASE_MIGRATE_ON_START", "false");
    let mut server = Server::start(command);
    server.wait_until_up().await;
    server.wait_until_ready().await;
    assert_eq!(server.stop().code(), Some(0));
}

#[test]
fn unknown_settings_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let output = run(gpumarket(dir.path())
        .arg("serve")
        .env("GPUMARKET_LISTN", "127.0.0.1:1"));
    assert!(!output.status.success());
    assert!(stderr(&output).contains("listn"), "{}", stderr(&output));

    let file = dir.path().join("gpumarket.toml");
    std::fs::write(
        &file,
        "[server]\nlisten = \"127.0.0.1:0\"\n[database]\nrul = \"sqlite://x.db\"\n",
    )
    .unwrap();
    let output = run(gpumarket(dir.path()).args(["--config", file.to_str().unwrap(), "serve"]));
    assert!(!output.status.success());
    assert!(stderr(&output).contains("rul"), "{}", stderr(&output));
    // A file written before the sections is told where each key went.
    std::fs::write(
        &file,
        "listen = \"127.0.0.1:0\"\ngateway_max_tokens = 100\n",
    )
    .unwrap();
    let output = run(gpumarket(dir.path()).args(["--config", file.to_str().unwrap(), "serve"]));
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("`listen` is now `listen` under [server]")
            && message.contains("`gateway_max_tokens` is now `max_tokens` under [gateway]"),
        "{message}"
    );
    // A value outside its range names the setting as the file and the environment spell it.
    let output = run(gpumarket(dir.path())
        .arg("serve")
        .env("GPUMARKET_GATEWAY_BUCKET_SECS", "0"));
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("[gateway] bucket_secs (GPUMARKET_GATEWAY_BUCKET_SECS)"),
        "{}",
        stderr(&output)
    );

    let output = run(gpumarket(dir.path())
        .arg("serve")
        .env("GPUMARKET_JWT_SECRET", "short"));
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(message.contains("jwt_secret"), "{message}");
    assert!(
        !message.contains("short\""),
        "the secret itself is not printed: {message}"
    );
    // Stripe's own variable names are read, checked, and never printed.
    let output = run(gpumarket(dir.path())
        .arg("serve")
        .env("STRIPE_SECRET_KEY", "pk_live_published_key"));
    let message = stderr(&output);
    assert!(!output.status.success());
    assert!(message.contains("stripe_secret_key"), "{message}");
    assert!(!message.contains("published_key"), "{message}");
    let output = run(gpumarket(dir.path())
        .arg("serve")
        .env("STRIPE_SECRET_KEY", "sk_test_123"));
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("stripe_webhook_secret"),
        "{}",
        stderr(&output)
    );
    // Nothing was created by a refused start.
    assert!(!dir.path().join("gpumarket.db").exists());
}

/// The file's sections and the flat environment names land in the same settings, the
/// environment winning; `config` shows what is in force.
#[test]
fn settings_come_from_sections_and_flat_environment_names() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gpumarket.toml");
    std::fs::write(
        &file,
        "[server]\nlisten = \"127.0.0.1:9999\"\n\n[gateway]\nmax_tokens = 1234\nbucket_secs = 60\n\n[payments]\nplatform_fee_bps = 250\n",
    )
    .unwrap();
    let output = run(gpumarket(dir.path())
        .args(["--config", file.to_str().unwrap(), "config"])
        .env("GPUMARKET_GATEWAY_BUCKET_SECS", "120")
        .env("GPUMARKET_DATABASE_URL", "sqlite://elsewhere.db")
        .env("GPUMARKET_PRO_RATE_LIMIT_SCALE", "7"));
    assert!(output.status.success(), "{}", stderr(&output));
    let shown: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(shown["server"]["listen"], "127.0.0.1:9999");
    assert_eq!(shown["gateway"]["max_tokens"], 1234);
    assert_eq!(shown["gateway"]["bucket_secs"], 120, "the environment wins");
    assert_eq!(shown["payments"]["platform_fee_bps"], 250);
    assert_eq!(shown["pro"]["rate_limit_scale"], 7);
    assert_eq!(
        shown["database"]["url"], "(secret)",
        "a database URL may carry a password: shown only as set"
    );
}

/// The committed document is what the server generates (a CI check through this test), and
/// the check fails on any difference.
#[test]
fn openapi_check_fails_when_the_committed_document_drifts() {
    let committed =
        run(gpumarket(Path::new(env!("CARGO_MANIFEST_DIR"))).args(["openapi", "--check"]));
    assert!(committed.status.success(), "{}", stderr(&committed));

    let dir = tempfile::tempdir().unwrap();
    let output = run(gpumarket(dir.path()).arg("openapi"));
    assert!(output.status.success());
    let document = output.stdout;
    let parsed: Value = serde_json::from_slice(&document).unwrap();
    assert!(parsed["openapi"].as_str().unwrap().starts_with("3.1"));

    let file = dir.path().join("openapi.json");
    std::fs::write(&file, &document).unwrap();
    let check = || {
        run(gpumarket(dir.path()).args(["openapi", "--check", "--file", file.to_str().unwrap()]))
    };
    assert!(check().status.success(), "{}", stderr(&check()));

    let mut drifted = document.clone();
    drifted.extend_from_slice(b" ");
    std::fs::write(&file, drifted).unwrap();
    let output = check();
    assert!(!output.status.success());
    assert!(stderr(&output).contains("differs"), "{}", stderr(&output));
}

/// A `gpumarket sim` child process on a free port, stopped when dropped.
struct Sim {
    child: Child,
    base: String,
}

impl Sim {
    async fn start(profile: &str, time_scale: f64) -> Self {
        let port = free_port();
        let dir = std::env::temp_dir();
        let child = gpumarket(&dir)
            .args([
                "sim",
                "--profile",
                profile,
                "--listen",
                &format!("127.0.0.1:{port}"),
                "--time-scale",
                &time_scale.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while http_get(format!("{base}/health")).await.is_err() {
            assert!(Instant::now() < deadline, "gpumarket sim did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Self { child, base }
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `gpumarket bench` against `base` and returns its report.
fn bench_report(base: &str, extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.json");
    let output = run(gpumarket(dir.path())
        .args(["bench", "--base-url", base, "--out", out.to_str().unwrap()])
        .args(extra));
    assert!(output.status.success(), "bench failed: {}", stderr(&output));
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(table.contains("Sustained decode"), "{table}");
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

fn close(measured: f64, expected: f64, tolerance: f64) -> bool {
    (measured / expected - 1.0).abs() <= tolerance
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bench_quick_measures_the_simulator_as_configured() {
    let sim = Sim::start("tiny", 1.0).await;
    let report = tokio::task::spawn_blocking({
        let base = sim.base.clone();
        // The quick profile on 1.5 s windows: the tiny engine's figures are exact, half the
        // window measures them as well.
        move || bench_report(&base, &["--profile", "quick", "--measure-secs", "1.5"])
    })
    .await
    .unwrap();
    assert_eq!(report["standard"], "standard/2");
    assert_eq!(report["parameters"]["measure_secs"], 1.5);
    assert_eq!(
        report["compliance"]["compliant"], true,
        "{}",
        report["compliance"]
    );
    // The tiny profile: a decode step takes 8 ms + 1 ms per sequence, whatever the context,
    // so each of B streams makes 1000 / (8 + B) tok/s; prefilling 1024 tokens takes one
    // step of 8 ms + 0.02 ms per token.
    let cells = report["decode"].as_array().unwrap();
    assert_eq!(cells.len(), 6);
    for cell in cells {
        let b = cell["concurrency"].as_f64().unwrap();
        let step_ms = 8.0 + b;
        let label = format!("{} x {b}", cell["context_tokens"]);
        assert_eq!(cell["status"], "valid", "{label}: {cell}");
        let per_request = cell["per_request_tok_s"].as_f64().unwrap();
        let total = cell["total_tok_s"].as_f64().unwrap();
        let tbt = cell["tbt_ms_median"].as_f64().unwrap();
        assert!(
            close(per_request, 1000.0 / step_ms, 0.05),
            "{label}: per request {per_request}"
        );
        assert!(
            close(total, b * 1000.0 / step_ms, 0.05),
            "{label}: total {total}"
        );
        // TBT as the reference page defines it, and the client-side gaps beside it.
        assert!(
            (tbt - 1000.0 / per_request).abs() < 1e-9,
            "{label}: tbt {tbt}"
        );
        assert!(close(tbt, step_ms, 0.05), "{label}: tbt {tbt}");
        assert!(
            close(cell["itl_ms_p50"].as_f64().unwrap(), step_ms, 0.1),
            "{label}"
        );
        assert!(
            close(cell["avg_active_requests"].as_f64().unwrap(), b, 0.05),
            "{label}"
        );
        // Over the same two /metrics samples' interval, within 2 % and one 250 ms interval.
        let server = cell["server_generation_tokens"].as_f64().unwrap();
        let client = cell["client_generation_tokens"].as_f64().unwrap();
        assert!(
            (server - client).abs() <= 0.02 * client + total * 0.25,
            "{label}: server {server} vs client {client}"
        );
        assert!(
            cell["ttft_samples"].as_u64().unwrap() >= b as u64,
            "{label}"
        );
    }
    // Prefill from the decode warm-up of 1K: one request of 28.5 ms, so within 20 % (a
    // scheduling hiccup of a loaded test machine is a few milliseconds of it: 3.2 ms, 11 %,
    // was seen in CI with the suite running beside it; a wrong rule is off by far more).
    let prefill = &report["prefill"][0];
    assert_eq!(prefill["repeats"].as_array().unwrap().len(), 1);
    let expected = 1024.0 / ((8.0 + 0.02 * 1024.0) / 1000.0);
    let measured = prefill["prompt_tok_s"].as_f64().unwrap();
    assert!(
        close(measured, expected, 0.20),
        "prefill {measured} vs {expected}"
    );
}

/// The reference page, reproduced: the full standard matrix against the simulated RTX 3060
/// at 10x speed (3 s windows stand for the page's 30 s). Slow: CI runs it
/// (`scripts/check` includes ignored tests); `cargo nextest run --run-ignored all` locally.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "slow (~75 s): reproduces the reference page"]
async fn bench_standard_reproduces_the_reference_page() {
    let sim = Sim::start("rtx3060-nemotron-nano-12b-awq", 10.0).await;
    let report = tokio::task::spawn_blocking({
        let base = sim.base.clone();
        move || bench_report(&base, &["--profile", "standard", "--measure-secs", "3"])
    })
    .await
    .unwrap();
    let page: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/crates/bench/testdata/rtx3060-nemotron-nano-12b-awq.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let scale = 10.0;
    for published in page["decode"].as_array().unwrap() {
        let (p, c) = (&published["context_tokens"], &published["concurrency"]);
        let ours = report["decode"]
            .as_array()
            .unwrap()
            .iter()
            .find(|cell| &cell["context_tokens"] == p && &cell["concurrency"] == c)
            .unwrap_or_else(|| panic!("no cell {p} x {c}"));
        let label = format!("{p} x {c}");
        // The same over-capacity cells, exactly.
        assert_eq!(
            published["status"] == "over_capacity",
            ours["status"] == "over_capacity",
            "{label}: {} vs {}",
            published["status"],
            ours["status"]
        );
        if published["status"] != "valid" {
            continue;
        }
        let figure = |cell: &Value, key: &str| cell[key].as_f64().unwrap();
        for (key, ours_scaled) in [
            ("total_tok_s", figure(ours, "total_tok_s") / scale),
            (
                "per_request_tok_s",
                figure(ours, "per_request_tok_s") / scale,
            ),
            ("tbt_ms_median", figure(ours, "tbt_ms_median") * scale),
        ] {
            let page_value = figure(published, key);
            assert!(
                close(ours_scaled, page_value, 0.10),
                "{label} {key}: {ours_scaled:.2} (scaled) vs the page's {page_value}"
            );
        }
    }
    for published in page["prefill"].as_array().unwrap() {
        let p = &published["context_tokens"];
        let ours = report["prefill"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| &e["context_tokens"] == p)
            .unwrap();
        let rate = ours["prompt_tok_s"].as_f64().unwrap() / scale;
        let ttft = ours["ttft_ms"].as_f64().unwrap() * scale;
        assert!(
            close(rate, published["prompt_tok_s"].as_f64().unwrap(), 0.10),
            "prefill {p}: {rate}"
        );
        assert!(
            close(ttft, published["ttft_ms"].as_f64().unwrap(), 0.10),
            "prefill {p} TTFT: {ttft}"
        );
    }
}

/// The cost rules (standard, "Cost") against the old procedure on a smaller matrix of the
/// reference engine at 10x speed, back to back on one simulator: the same statuses, every
/// valid throughput and prefill figure within 2 %, and the cheaper run cheaper.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bench_cost_rules_agree_with_fixed_windows_and_repeated_prefill() {
    let sim = Sim::start("rtx3060-nemotron-nano-12b-awq", 10.0).await;
    let matrix = [
        "--profile",
        "standard",
        "--measure-secs",
        "3",
        "--contexts",
        "0,16K",
        "--concurrency",
        "1,8",
        "--prefill-contexts",
        "8K,16K",
    ];
    let (fixed, cheap) = tokio::task::spawn_blocking({
        let base = sim.base.clone();
        move || {
            let old = [
                &matrix[..],
                &["--prefill-mode", "repeats", "--window-rule", "fixed"],
            ];
            let fixed = bench_report(&base, &old.concat());
            // Prompts of another seed: the first run's are still in the prefix cache, and
            // a prefill measured on them would rightly be refused as not cold.
            let new = [&matrix[..], &["--seed", "7"]];
            (fixed, bench_report(&base, &new.concat()))
        }
    })
    .await
    .unwrap();
    assert_eq!(fixed["parameters"]["window_rule"], "fixed");
    assert_eq!(fixed["parameters"]["prefill_mode"], "repeats");
    assert_eq!(cheap["parameters"]["window_rule"], "adaptive");
    assert_eq!(cheap["parameters"]["prefill_mode"], "warmup");
    let pairs = |phase: &str| -> Vec<(Value, Value)> {
        let a = fixed[phase].as_array().unwrap();
        let b = cheap[phase].as_array().unwrap();
        assert_eq!(a.len(), b.len(), "{phase}");
        a.iter().cloned().zip(b.iter().cloned()).collect()
    };
    let mut shortened = 0;
    for (a, b) in pairs("decode") {
        let label = format!("{} x {}", a["context_tokens"], a["concurrency"]);
        assert_eq!(a["context_tokens"], b["context_tokens"]);
        assert_eq!(
            a["status"], b["status"],
            "{label}: {} / {}",
            a["reasons"], b["reasons"]
        );
        if a["status"] != "valid" {
            continue;
        }
        for key in ["total_tok_s", "per_request_tok_s", "tbt_ms_median"] {
            let (x, y) = (a[key].as_f64().unwrap(), b[key].as_f64().unwrap());
            assert!(close(y, x, 0.02), "{label} {key}: fixed {x}, adaptive {y}");
        }
        // The precision the adaptive window reached is recorded, and it ended early.
        let half = b["window_half_width_pct"].as_f64().unwrap();
        let measured = b["measured_s"].as_f64().unwrap();
        if measured < 2.9 {
            assert!(half <= 1.0, "{label}: ended at ±{half} %");
            assert!(measured >= 1.0 - 0.05, "{label}: {measured} s");
            shortened += 1;
        }
        assert!((a["measured_s"].as_f64().unwrap() - 3.0).abs() < 0.1);
    }
    assert!(
        shortened >= 2,
        "the adaptive windows all ran their full length"
    );
    for (a, b) in pairs("prefill") {
        assert_eq!(a["status"], b["status"]);
        assert_eq!(a["repeats"].as_array().unwrap().len(), 3);
        assert_eq!(b["repeats"].as_array().unwrap().len(), 1);
        let (x, y) = (
            a["prompt_tok_s"].as_f64().unwrap(),
            b["prompt_tok_s"].as_f64().unwrap(),
        );
        assert!(
            close(y, x, 0.02),
            "prefill {}: {x} vs {y}",
            a["context_tokens"]
        );
    }
    // Prefill of 16K came from the decode warm-up: no prompt of the prefill phase was sized
    // for it; 8K is no decode context and got one request of its own.
    let sized = |phase: &str, context: u64| {
        cheap["evidence"]["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["phase"] == phase && p["context_tokens"] == context)
            .count()
    };
    assert_eq!((sized("prefill", 16384), sized("prefill", 8192)), (0, 1));
    let (a, b) = (&fixed["cost"], &cheap["cost"]);
    for cost in [a, b] {
        // 16K × 8 does not fit the KV cache: 8 × (16384 + 8192) > 118,784 tokens.
        assert_eq!(
            (cost["cells_run"].as_u64(), cost["cells_skipped"].as_u64()),
            (Some(3), Some(1))
        );
        let (wall, gpu) = (
            cost["wall_s"].as_f64().unwrap(),
            cost["gpu_s_estimate"].as_f64().unwrap(),
        );
        assert!(gpu > 0.0 && gpu <= wall, "{cost}");
    }
    assert!(
        b["wall_s"].as_f64().unwrap() < 0.75 * a["wall_s"].as_f64().unwrap(),
        "fixed {a}, cost rules {b}"
    );
}

#[test]
fn bench_dry_run_prints_the_plan_without_touching_the_server() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens on port 9: a dry run never connects.
    let plan = |extra: &[&str]| {
        run(gpumarket(dir.path())
            .args(["bench", "--base-url", "http://127.0.0.1:9", "--dry-run"])
            .args(extra))
    };
    let output = plan(&["--kv-cache-tokens", "118784", "--max-model-len", "90112"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("prefill_mode warmup, window_rule adaptive"),
        "{text}"
    );
    assert!(text.contains("measured by the decode warm-up"), "{text}");
    // The reference page's engine: 5 contexts × 8 levels, 11 of them fit.
    assert!(
        text.contains("decode cells: 11 to run, 29 over capacity"),
        "{text}"
    );
    // 11 windows of 30 s: 110 to 330 s under the adaptive rule.
    assert!(text.contains("decode windows: 110 to 330 s"), "{text}");
    let old = plan(&[
        "--prefill-mode",
        "repeats",
        "--window-rule",
        "fixed",
        "--prefill-tok-s",
        "2000",
    ]);
    let text = String::from_utf8_lossy(&old.stdout);
    assert!(
        text.contains("3 cold request(s)") && text.contains("estimate at 2000"),
        "{text}"
    );
    let bad = plan(&["--window-rule", "sometimes"]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("--window-rule"), "{}", stderr(&bad));
}

fn signed_files(dir: &Path) -> (attest::KeyPair, std::path::PathBuf, std::path::PathBuf) {
    let key = attest::KeyPair::generate().unwrap();
    let statement = attest::statement(
        "gpumarket:listing:test",
        &"ab".repeat(32),
        "https://gpumarket.dev/attestations/standard-benchmark/v1",
        serde_json::json!({"standard": "standard/1", "compliance": {"compliant": true, "reasons": []}}),
    );
    let envelope = attest::sign_statement(&key, &statement);
    let envelope_file = dir.join("envelope.json");
    std::fs::write(&envelope_file, serde_json::to_vec(&envelope).unwrap()).unwrap();
    let keys_file = dir.join("keys.json");
    let keys = vec![key.published("2026-11-29T00:00:00Z", None)];
    std::fs::write(&keys_file, serde_json::to_vec(&keys).unwrap()).unwrap();
    (key, envelope_file, keys_file)
}

#[test]
fn verify_accepts_a_signed_report_and_refuses_any_change_or_unknown_key() {
    let dir = tempfile::tempdir().unwrap();
    let (_, envelope_file, keys_file) = signed_files(dir.path());
    let verify = |file: &Path, keys: &Path| {
        run(gpumarket(dir.path()).args([
            "verify",
            file.to_str().unwrap(),
            "--keys",
            keys.to_str().unwrap(),
        ]))
    };
    let output = verify(&envelope_file, &keys_file);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("verified: signed by ed25519:"));

    // The JSON of GET /v1/reports/{id} works as well as the bare envelope.
    let envelope: Value =
        serde_json::from_str(&std::fs::read_to_string(&envelope_file).unwrap()).unwrap();
    let report_file = dir.path().join("report.json");
    std::fs::write(
        &report_file,
        serde_json::to_vec(&serde_json::json!({"id": "x", "envelope": envelope})).unwrap(),
    )
    .unwrap();
    assert!(verify(&report_file, &keys_file).status.success());

    // One changed byte of the payload: refused.
    let mut payload = base64_decode(envelope["payload"].as_str().unwrap());
    let middle = payload.len() / 2;
    payload[middle] ^= 0x20;
    let mut forged = envelope.clone();
    forged["payload"] = Value::String(base64_encode(&payload));
    let forged_file = dir.path().join("forged.json");
    std::fs::write(&forged_file, serde_json::to_vec(&forged).unwrap()).unwrap();
    let output = verify(&forged_file, &keys_file);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("NOT verified"),
        "{}",
        stderr(&output)
    );

    // Keys that do not include the signer: refused.
    let other = tempfile::tempdir().unwrap();
    let (_, _, other_keys) = signed_files(other.path());
    let output = verify(&envelope_file, &other_keys);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("not published"),
        "{}",
        stderr(&output)
    );
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

fn base64_encode(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The envelope's bytes are standard DSSE/Ed25519: PyNaCl (libsodium), an implementation
/// that shares no code with ours, verifies them, and refuses them after any change.
#[test]
fn envelopes_verify_with_an_independent_ed25519_implementation() {
    let python = std::env::var("GPUMARKET_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_nacl = Command::new(&python)
        .args(["-c", "import nacl"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        has_nacl,
        "PyNaCl is needed in {python} (scripts/check sets GPUMARKET_TEST_PYTHON to an environment with it)"
    );
    let dir = tempfile::tempdir().unwrap();
    let (key, envelope_file, _) = signed_files(dir.path());
    let script = r#"
import base64, json, sys
from nacl.signing import VerifyKey
from nacl.exceptions import BadSignatureError
env = json.load(open(sys.argv[1]))
payload = base64.b64decode(env["payload"])
kind = env["payloadType"].encode()
pae = b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)
try:
    VerifyKey(base64.b64decode(sys.argv[2])).verify(pae, base64.b64decode(env["signatures"][0]["sig"]))
except BadSignatureError:
    print("bad signature"); sys.exit(1)
print("ok")
"#;
    let public = base64_encode(&key.public_key());
    let check = |file: &Path| {
        Command::new(&python)
            .args(["-c", script, file.to_str().unwrap(), &public])
            .output()
            .unwrap()
    };
    let output = check(&envelope_file);
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        stderr(&output)
    );

    let envelope: Value =
        serde_json::from_str(&std::fs::read_to_string(&envelope_file).unwrap()).unwrap();
    let payload = base64_decode(envelope["payload"].as_str().unwrap());
    for index in [0, payload.len() / 3, payload.len() - 1] {
        let mut changed = payload.clone();
        changed[index] ^= 0x01;
        let mut forged = envelope.clone();
        forged["payload"] = Value::String(base64_encode(&changed));
        let file = dir.path().join(format!("forged-{index}.json"));
        std::fs::write(&file, serde_json::to_vec(&forged).unwrap()).unwrap();
        let output = check(&file);
        assert!(
            !output.status.success(),
            "byte {index} changed and PyNaCl still accepted it"
        );
    }
}

/// A new account's own API key (`bench --submit-key`).
async fn new_api_key(base: &str, email: &str, name: &str) -> String {
    let client = http();
    let registered: Value = client
        .post(format!("{base}/v1/auth/register"))
        .json(
            &serde_json::json!({"email": email, "password": "correct horse battery", "name": name}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let key: Value = client
        .post(format!("{base}/v1/api-keys"))
        .bearer_auth(registered["access_token"].as_str().unwrap())
        .json(&serde_json::json!({"name": "bench"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    key["key"].as_str().unwrap().to_owned()
}

/// `bench --profile quick` (1.5 s windows) against `engine`, submitted to `server` as a community run for
/// the catalog pair `[gpu, model]`, with `notes` (`--launch-command`, `--hardware-notes`).
fn submit_run(
    dir: &Path,
    engine: &str,
    server: &str,
    key: String,
    [gpu, model]: [&'static str; 2],
    notes: &'static [&'static str],
) -> tokio::task::JoinHandle<Output> {
    let (dir, engine, server) = (dir.to_owned(), engine.to_owned(), server.to_owned());
    tokio::task::spawn_blocking(move || {
        run(gpumarket(&dir)
            .args([
                "bench",
                "--base-url",
                &engine,
                "--profile",
                "quick",
                "--measure-secs",
                "1.5",
                "--submit",
                &server,
                "--submit-key",
                &key,
                "--catalog-gpu",
                gpu,
                "--catalog-model",
                model,
            ])
            .args(notes))
    })
}

/// `bench --submit` posts the report as a community run with a gpumarket API key; the server
/// lists it under the catalog ids given, and refuses a wrong key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bench_submits_a_community_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(gpumarket(dir.path()));
    server.wait_until_up().await;
    let engine = Sim::start("tiny", 1.0).await;
    let key = new_api_key(&server.base, "s@example.com", "Sandberg").await;
    let submit = |key: String| {
        submit_run(
            dir.path(),
            &engine.base,
            &server.base,
            key,
            ["l4-24gb", "qwen3-8b"],
            &["--launch-command", "vllm serve tiny"],
        )
    };
    let output = submit(key).await.unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("submitted: {}/v1/runs/", server.base)),
        "{stdout}"
    );
    let (status, runs) = server.get("/v1/runs?gpu=l4-24gb&model=qwen3-8b").await;
    assert_eq!(status, 200);
    let run = &runs["items"][0];
    assert_eq!(run["label"], "community");
    let handle = run["submitter"]["handle"].as_str().unwrap();
    assert!(
        handle.starts_with("member-") && !handle.contains("Sandberg"),
        "a pseudonym: {handle}"
    );
    assert_eq!(run["launch_command"], "vllm serve tiny");
    assert!(run["report"]["engine"]["base_url"].is_null());
    let output = submit("gpm_not_a_key".into()).await.unwrap();
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("refused the key (HTTP 401"),
        "{}",
        stderr(&output)
    );
}

/// `serve --demo` as a child process, its checkpoints every second, killed when dropped.
struct Demo {
    child: Child,
    base: String,
    listing_url: String,
    /// The simulated engine's address (`host:port`), which no public answer may name.
    engine: String,
}

/// Settings for a demo whose verification only has to pass, not to be the product's own: the
/// quick profile's windows halved (its measurement ends ~10 s sooner).
const SHORT_WINDOWS: &[(&str, &str)] = &[("GPUMARKET_QUICK_MEASURE_SECS", "1.5")];

/// [`SHORT_WINDOWS`], with its machines probed every second and their uptime signed every
/// 4 s (instead of every UTC day), so that statements exist within the test.
const SHORT_PERIODS: &[(&str, &str)] = &[
    ("GPUMARKET_QUICK_MEASURE_SECS", "1.5"),
    ("GPUMARKET_LIVENESS_EVERY_SECS", "1"),
    ("GPUMARKET_UPTIME_STATEMENT_SECS", "4"),
];

impl Demo {
    /// `serve --demo` with these settings in its environment.
    async fn start_with(dir: &Path, settings: &[(&str, &str)]) -> Self {
        let port = free_port();
        let mut child = gpumarket(dir)
            .args(["serve", "--demo"])
            .env("GPUMARKET_LISTEN", format!("127.0.0.1:{port}"))
            .env("GPUMARKET_LOG_CHECKPOINT_SECS", "1")
            .envs(settings.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let printed = tokio::task::spawn_blocking(move || {
            use std::io::Read;
            let mut text = String::new();
            let mut buffer = [0u8; 4096];
            while !text.contains("API docs") {
                match stdout.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => text.push_str(&String::from_utf8_lossy(&buffer[..n])),
                }
            }
            text
        });
        let printed = tokio::time::timeout(Duration::from_secs(60), printed)
            .await
            .unwrap()
            .unwrap();
        let listing_url = printed
            .lines()
            .find_map(|l| l.trim().strip_prefix("listing:"))
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|| panic!("no listing in the demo's output: {printed}"));
        let base = listing_url.split("/v1/").next().unwrap().to_owned();
        let engine = printed
            .lines()
            .find_map(|l| l.trim().strip_prefix("simulated engine:"))
            .and_then(|s| s.split_whitespace().next())
            .map(|url| url.trim_start_matches("http://").to_owned())
            .unwrap_or_else(|| panic!("no engine in the demo's output: {printed}"));
        Self {
            child,
            base,
            listing_url,
            engine,
        }
    }

    /// The demo listing once verified (within 90 s).
    async fn verified_listing(&self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let listing: Value = http_get(&self.listing_url)
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if listing["verified"] == true {
                return listing;
            }
            if Instant::now() >= deadline || self.verification_failed().await {
                panic!(
                    "the demo listing was not verified: {listing}\n{}",
                    self.state().await
                );
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}

impl Demo {
    /// The demo listing, its latest report's matrix and its reports' summaries, as text for
    /// a failure's message.
    /// Whether the demo's verification ended without verifying its listing (a report, none of
    /// them compliant: a cell judged client_bound on a loaded machine, say): waiting longer is
    /// pointless, and the test fails at once so that its retry comes sooner.
    async fn verification_failed(&self) -> bool {
        let Ok(response) = http_get(format!("{}/reports", self.listing_url)).await else {
            return false;
        };
        let reports: Value = response.json().await.unwrap_or_default();
        let verifications: Vec<&Value> = reports["items"]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter(|r| r["kind"] == "verification")
                    .collect()
            })
            .unwrap_or_default();
        !verifications.is_empty() && verifications.iter().all(|r| r["compliant"] == false)
    }

    async fn state(&self) -> String {
        let get = |url: String| async move {
            match http_get(&url).await {
                Ok(response) => response.text().await.unwrap_or_default(),
                Err(e) => format!("GET {url}: {e}"),
            }
        };
        let listing = get(self.listing_url.clone()).await;
        let report = serde_json::from_str::<Value>(&listing)
            .ok()
            .and_then(|l| l["verification"]["report_id"].as_str().map(str::to_owned));
        let cells = match report {
            Some(id) => get(format!("{}/v1/reports/{id}/matrix.csv", self.base)).await,
            None => "no report".to_owned(),
        };
        // Its reports' summaries say why one did not verify it (compliance reasons).
        let reports = get(format!("{}/reports", self.listing_url)).await;
        format!("listing: {listing}\nmatrix: {cells}\nreports: {reports}")
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The README's first command: `serve --demo` lists a simulated machine and verifies it.
/// Checked on the demo the README's tested examples ran against (`tests/cli/docs.rs`), once
/// they passed: one demo, one verification, for both.
async fn the_demo_verified_its_listing(demo: Demo, dir: &Path) {
    let listing = demo.verified_listing().await;
    // Its figures were checked against the RTX 3060's physical limit for its model, and the
    // calculator shows them beside its prediction.
    assert_eq!(
        listing["verification"]["hardware_checked"], true,
        "{listing}"
    );
    let estimate: Value = http_get(format!(
        "{}/v1/calculator/decode?gpu=rtx-3060-12gb&model=nvidia-nemotron-nano-12b-v2-awq&context=0&concurrency=1",
        demo.base
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    // The README's examples verified a second listing on the same engine: the demo's is
    // one of the measured ones.
    let measured = estimate["measured"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["listing_id"] == listing["id"])
        .unwrap_or_else(|| panic!("the demo's listing is not measured: {estimate}"));
    assert_eq!(measured["source"], "verified");
    let predicted = estimate["predicted"]["per_stream_tok_s"].as_f64().unwrap();
    let per_request = measured["per_request_tok_s"].as_f64().unwrap();
    assert!(
        close(per_request, predicted, 0.25),
        "{per_request} vs {predicted}"
    );
    // Its report is in the transparency log: checked by our verifier, by the book's twenty
    // lines of Python, and by the monitor, which also catches a leaf changed behind its back.
    let report_id = listing["verification"]["report_id"].as_str().unwrap();
    let org_id = listing["org_id"].as_str().unwrap();
    // Backed up first: the log checks then change a leaf behind the log's back.
    backup::backup_checks(dir, &demo.base).await;
    log_checks(dir, &demo.base, report_id, org_id).await;
    uptime_checks(dir, &demo.base, listing["id"].as_str().unwrap()).await;
    drop(demo);
    // The simulated RTX 3060 decodes one stream at the page's ~40 tok/s.
    let single = listing["verification"]["single_stream_tok_s"]
        .as_f64()
        .unwrap();
    assert!(close(single, 40.3, 0.10), "{single}");
}

/// The listing's signed uptime statements (every 4 s here) as their users check them: the
/// latest, as `GET …/uptime` lists it, verifies with `gpumarket verify` and is in the log.
async fn uptime_checks(dir: &Path, base: &str, listing: &str) {
    let deadline = Instant::now() + Duration::from_secs(40);
    let statement = loop {
        let uptime: Value = http_get(format!("{base}/v1/listings/{listing}/uptime"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(uptime["current"]["state"], "up", "{uptime}");
        if let Some(latest) = uptime["statements"].get(0) {
            break latest.clone();
        }
        assert!(Instant::now() < deadline, "no uptime statement: {uptime}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    assert!(
        statement["uptime"].as_f64().is_some_and(|u| u > 0.0),
        "{statement}"
    );
    std::fs::write(dir.join("uptime.json"), statement.to_string()).unwrap();
    let (keys, checkpoint) = (
        format!("{base}/v1/signing-keys"),
        format!("{base}/v1/log/checkpoint"),
    );
    let dir = dir.to_owned();
    let output = tokio::task::spawn_blocking(move || {
        crate::run(gpumarket(&dir).args([
            "verify",
            "uptime.json",
            "--keys",
            &keys,
            "--checkpoint",
            &checkpoint,
        ]))
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", stderr(&output));
    assert!(stdout.contains("kind: uptime statement"), "{stdout}");
    assert!(stdout.contains("included: leaf"), "{stdout}");
}

/// The transparency log as its users check it, against the running demo (checkpoints every
/// second): `verify --checkpoint`, `verify --consistency`, the book's Python and the monitor.
async fn log_checks(dir: &Path, base: &str, report_id: &str, org_id: &str) {
    let get_text = |url: String| async move { http_get(url).await.unwrap().text().await.unwrap() };
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let proof = http_get(format!("{base}/v1/reports/{report_id}/proof"))
            .await
            .unwrap();
        if proof.status() == 200 {
            break;
        }
        assert_eq!(proof.status(), 202);
        assert!(
            Instant::now() < deadline,
            "the report never reached a checkpoint"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let report = get_text(format!("{base}/v1/reports/{report_id}")).await;
    std::fs::write(dir.join("report.json"), &report).unwrap();
    let keys = format!("{base}/v1/signing-keys");
    let cli = move |args: Vec<String>| {
        let dir = dir.to_owned();
        async move {
            tokio::task::spawn_blocking(move || crate::run(gpumarket(&dir).args(args)))
                .await
                .unwrap()
        }
    };
    let args = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let checkpoint_url = format!("{base}/v1/log/checkpoint");
    let output = cli(args(&[
        "verify",
        "report.json",
        "--keys",
        &keys,
        "--checkpoint",
        &checkpoint_url,
    ]))
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("included: leaf"));

    // The book's check, exactly as printed there.
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/trust/transparency-log.md"
    ))
    .unwrap();
    let block = page
        .split("<!-- check_log.py")
        .nth(1)
        .and_then(|rest| rest.split("```python\n").nth(1))
        .and_then(|code| code.split("```").next())
        .expect("the book's check_log.py block");
    std::fs::write(dir.join("check_log.py"), block).unwrap();
    let python = std::env::var("GPUMARKET_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let checked = Command::new(&python)
        .arg(dir.join("check_log.py"))
        .args([base, report_id])
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", stderr(&checked));
    assert!(
        String::from_utf8_lossy(&checked.stdout).contains(&format!("report {report_id} is leaf"))
    );

    // The monitor's first look; then the organisation report adds a leaf.
    let state = dir.join("monitor.json").to_str().unwrap().to_owned();
    let monitor = |state: String| cli(args(&["log-monitor", "--url", base, "--state", &state]));
    let output = monitor(state.clone()).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let old = get_text(checkpoint_url.clone()).await;
    std::fs::write(dir.join("old.txt"), &old).unwrap();
    let org: Value = http_get(format!("{base}/v1/orgs/{org_id}/report"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let size_of = |note: &str| note.lines().nth(1).unwrap().parse::<u64>().unwrap();
    let new = loop {
        let new = get_text(checkpoint_url.clone()).await;
        if size_of(&new) > size_of(&old) {
            break new;
        }
        assert!(
            Instant::now() < deadline + Duration::from_secs(30),
            "no new checkpoint"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    // The organisation report's leaf is among the new ones (another leaf of the demo's may
    // have landed beside it).
    let leaf = org["log"]["leaf_index"].as_u64().unwrap();
    assert!(
        (size_of(&old)..size_of(&new)).contains(&leaf),
        "leaf {leaf}, checkpoints {} and {}",
        size_of(&old),
        size_of(&new)
    );
    std::fs::write(dir.join("new.txt"), &new).unwrap();
    let consistency = |old: &str, new: &str| {
        cli(args(&[
            "verify",
            "--consistency",
            old,
            new,
            "--keys",
            &keys,
            "--server",
            base,
        ]))
    };
    let output = consistency("old.txt", "new.txt").await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        consistency("new.txt", "old.txt").await.status.code(),
        Some(3)
    );
    let mut forged = new.clone().into_bytes();
    let at = forged.len() - 5;
    forged[at] = if forged[at] == b'A' { b'B' } else { b'A' };
    std::fs::write(dir.join("forged.txt"), &forged).unwrap();
    assert_eq!(
        consistency("old.txt", "forged.txt").await.status.code(),
        Some(1)
    );

    // An inclusion proof from a file, as fetched and with one hash changed.
    let proof_url = format!(
        "{base}/v1/reports/{report_id}/proof?tree_size={}",
        size_of(&new)
    );
    let mut proof: Value = http_get(proof_url).await.unwrap().json().await.unwrap();
    std::fs::write(dir.join("proof.json"), proof.to_string()).unwrap();
    let with_proof = || {
        cli(args(&[
            "verify",
            "report.json",
            "--keys",
            &keys,
            "--checkpoint",
            "new.txt",
            "--proof",
            "proof.json",
        ]))
    };
    let output = with_proof().await;
    assert!(output.status.success(), "{}", stderr(&output));
    let first = proof["inclusion_proof"][0].as_str().unwrap().to_owned();
    let flipped = format!(
        "{}{}",
        if first.starts_with('A') { 'B' } else { 'A' },
        &first[1..]
    );
    proof["inclusion_proof"][0] = Value::String(flipped);
    std::fs::write(dir.join("proof.json"), proof.to_string()).unwrap();
    assert_eq!(with_proof().await.status.code(), Some(2));

    // The monitor goes on from where it was: it verifies the organisation report's leaf (and
    // any the demo logged since: the README's examples verified a second listing); usage
    // errors are 4.
    let output = monitor(state.clone()).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let printed = String::from_utf8_lossy(&output.stdout);
    let new_entries: u64 = printed
        .split(" new entries verified")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of new entries: {printed}"));
    assert!(new_entries >= 1, "{printed}");
    assert_eq!(cli(args(&["verify"])).await.status.code(), Some(4));
    assert_eq!(cli(args(&["log-monitor"])).await.status.code(), Some(4));
    assert_eq!(
        cli(args(&["--config", "none.toml", "verify", "--bogus"]))
            .await
            .status
            .code(),
        Some(4)
    );
    assert_eq!(
        cli(args(&["verify", "report.json", "--bogus"]))
            .await
            .status
            .code(),
        Some(4)
    );
    assert_eq!(
        cli(args(&["verify", "missing.json", "--keys", &keys]))
            .await
            .status
            .code(),
        Some(4)
    );

    // A leaf changed in the database: a monitor replaying the log refuses its root.
    let db = store::Db::connect(&format!("sqlite://{}", dir.join("gpumarket.db").display()))
        .await
        .unwrap();
    // Leaf 0 becomes leaf 1's bytes: a canonical envelope signed by a published key, so only
    // the recomputed root can tell.
    let second = db.log_entries(1, 2).await.unwrap().remove(0).leaf;
    db.tamper_with_log_leaf(0, second).await.unwrap();
    let fresh = dir.join("fresh.json").to_str().unwrap().to_owned();
    let output = monitor(fresh).await;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("different root"),
        "{}",
        stderr(&output)
    );
}

/// `gateway-bench` measures one stream directly and through the gateway (the harness's
/// preflight, tokenizer and metrics all pass through it) and prints what the gateway adds.
#[test]
fn gateway_bench_measures_through_the_gateway() {
    let dir = tempfile::tempdir().unwrap();
    let output =
        run(gpumarket(dir.path()).args(["gateway-bench", "--rounds", "1", "--measure-secs", "2"]));
    assert!(output.status.success(), "{}", stderr(&output));
    let printed = String::from_utf8_lossy(&output.stdout);
    for line in [
        "TTFT median",
        "inter-token gap p50",
        "inter-token gap p99",
        "gateway CPU",
    ] {
        assert!(printed.contains(line), "{printed}");
    }
    let metered: f64 = printed
        .split("tokens metered")
        .next()
        .and_then(|s| s.rsplit('(').next())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("no metered tokens in {printed}"));
    assert!(metered > 50.0, "{printed}");
}
