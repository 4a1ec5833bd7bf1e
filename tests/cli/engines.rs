//! Real engine servers for the tiers that measure them (vLLM, llama.cpp): each installed into a
//! cache outside the clone by its `scripts/<engine>/setup`, served by `scripts/<engine>/serve`
//! in a process group of its own, which is stopped when the server is dropped.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{free_port, http};

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs an engine's setup script (installing on first use) and returns the cache it prints.
pub fn setup(script: &str) -> PathBuf {
    let output = Command::new(repo().join(script))
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    assert!(output.status.success(), "{script} failed");
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

/// A real engine server, its whole process group stopped when dropped.
pub struct RealEngine {
    child: Child,
    pub base: String,
    log: PathBuf,
}

impl RealEngine {
    /// Starts `serve PORT args…` with `env` and waits until `/v1/models` answers.
    pub async fn start(
        name: &'static str,
        serve: &str,
        args: &[&str],
        env: &[(&str, &str)],
        dir: &Path,
        within: Duration,
    ) -> Self {
        let port = free_port();
        let log = dir.join(format!("{}.log", name.to_lowercase().replace('.', "")));
        let child = Command::new(repo().join(serve))
            .arg(port.to_string())
            .args(args)
            .envs(env.iter().copied())
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(std::fs::File::options().append(true).open(&log).unwrap())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut engine = Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            log,
        };
        let client = http();
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = engine.child.try_wait().unwrap() {
                panic!("{name} exited: {status}\n{}", engine.log_tail());
            }
            if let Ok(res) = client
                .get(format!("{}/v1/models", engine.base))
                .send()
                .await
                && res.status() == 200
            {
                return engine;
            }
            assert!(
                Instant::now() < deadline,
                "{name} did not start in {within:?}\n{}",
                engine.log_tail()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

impl Drop for RealEngine {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}
