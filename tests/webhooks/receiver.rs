//! The webhook receiver of the tests (`receiver.py`, which verifies every delivery with the
//! `standardwebhooks` package), run as a child process. Shared by the API's and the
//! command line's tests (`#[path]`).

use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub struct Receiver {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Receiver {
    /// Starts a receiver that answers the first `fail_first` attempts of each event 500.
    pub fn start(fail_first: u32) -> Self {
        Self::start_with(&["--fail-first", &fail_first.to_string()])
    }

    /// Starts a receiver with these options (`receiver.py`'s).
    pub fn start_with(options: &[&str]) -> Self {
        let python = std::env::var("GPUMARKET_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .map(|dir| dir.join("tests/webhooks/receiver.py"))
            .find(|path| path.exists())
            .expect("tests/webhooks/receiver.py");
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(&python)
            .arg(script)
            .arg(dir.path())
            .arg(dir.path().join("log.jsonl"))
            .args(options)
            .stdout(Stdio::piped())
            .spawn()
            .expect("a Python interpreter (GPUMARKET_TEST_PYTHON)");
        let mut first = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let port = first.trim().parse().unwrap_or_else(|_| {
            panic!(
                "the receiver did not start: the standardwebhooks package is needed in {python} \
                 (scripts/check sets GPUMARKET_TEST_PYTHON to an environment with it)"
            )
        });
        Self { child, port, dir }
    }

    /// The URL of the receiver's endpoint `name`.
    pub fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}", self.port)
    }

    /// Gives endpoint `name` its secret (deliveries before answer 503). After a rotation the
    /// secrets it had still verify, as a receiver does while the old secret's overlap lasts (a
    /// delivery signed before the rotation may arrive after it). Written whole, then renamed:
    /// a delivery never reads half a file.
    pub fn set_secret(&self, name: &str, secret: &str) {
        let path = self.dir.path().join(format!("{name}.secret"));
        let before = std::fs::read_to_string(&path).unwrap_or_default();
        let written = self.dir.path().join(format!("{name}.secret.new"));
        std::fs::write(&written, format!("{secret}\n{before}")).unwrap();
        std::fs::rename(&written, &path).unwrap();
    }

    /// Every request received so far: `{path, id, verified, answered, payload}`.
    pub fn received(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.path().join("log.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// The requests to `name` carrying an event of `kind`, once at least one of them was
    /// answered 200 (panics after `within`).
    pub async fn delivered(&self, name: &str, kind: &str, within: Duration) -> Vec<Value> {
        let deadline = Instant::now() + within;
        loop {
            let of: Vec<Value> = self
                .received()
                .into_iter()
                .filter(|r| r["path"] == name && r["payload"]["type"] == kind)
                .collect();
            if of.iter().any(|r| r["answered"] == 200) {
                return of;
            }
            assert!(
                Instant::now() < deadline,
                "no {kind} delivered to {name} within {within:?}: {:?}",
                self.received()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
