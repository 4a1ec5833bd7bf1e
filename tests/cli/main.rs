//! The binary, end to end: `serve` with no configuration and against PostgreSQL, `migrate`,
//! configuration errors, and `openapi --check`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use store::testing::TestDatabase;
use store::{Backend, Db};

const BIN: &str = env!("CARGO_BIN_EXE_gpumarket");

/// The binary with none of this machine's GPUMARKET_* settings, run in `dir`.
fn gpumarket(dir: &Path) -> Command {
    let mut command = Command::new(BIN);
    command.current_dir(dir);
    for (key, _) in std::env::vars() {
        if key.starts_with("GPUMARKET_") {
            command.env_remove(key);
        }
    }
    command.env("RUST_LOG", "warn");
    command
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
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
        let client = reqwest::Client::new();
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

    async fn get(&self, path: &str) -> (u16, Value) {
        let res = reqwest::get(format!("{}{path}", self.base)).await.unwrap();
        (res.status().as_u16(), res.json().await.unwrap())
    }

    /// SIGTERM, then the exit status (a graceful stop exits 0).
    fn stop(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
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
    let mut server = Server::start(gpumarket(dir.path()));
    server.wait_until_up().await;
    assert_eq!(
        server.get("/healthz").await,
        (200, serde_json::json!({"status": "ok"}))
    );
    let (status, ready) = server.get("/readyz").await;
    assert_eq!(status, 200, "{ready}");
    assert!(
        dir.path().join("gpumarket.db").exists(),
        "the SQLite file is in the working directory"
    );

    let client = reqwest::Client::new();
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
    let (status, ready) = server.get("/readyz").await;
    assert_eq!(status, 200, "{ready}");
    assert!(
        !dir.path().join("gpumarket.db").exists(),
        "no SQLite file when PostgreSQL is configured"
    );
    // `serve` migrated the empty database itself.
    let db = Db::connect(database.url()).await.unwrap();
    assert!(!db.applied_migrations().await.unwrap().is_empty());
    db.close().await.unwrap();
}

#[tokio::test]
async fn migrate_applies_every_migration_once() {
    let database = TestDatabase::empty(Backend::Postgres).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        let output = run(gpumarket(dir.path())
            .arg("migrate")
            .env("GPUMARKET_DATABASE_URL", database.url()));
        assert!(output.status.success(), "{}", stderr(&output));
    }
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
        "listen = \"127.0.0.1:0\"\ndatabse_url = \"sqlite://x.db\"\n",
    )
    .unwrap();
    let output = run(gpumarket(dir.path()).args(["--config", file.to_str().unwrap(), "serve"]));
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("databse_url"),
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
    // Nothing was created by a refused start.
    assert!(!dir.path().join("gpumarket.db").exists());
}

#[test]
fn openapi_check_fails_when_the_committed_document_drifts() {
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
