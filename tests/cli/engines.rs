//! Real engine servers for the tiers that measure them (vLLM, llama.cpp): each installed into a
//! cache outside the clone by its `scripts/<engine>/setup`, served by `scripts/<engine>/serve`
//! in a process group of its own, which is stopped when the server is dropped.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{BIN, free_port, http, stderr};

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

/// `gpumarket bench --profile quick` on the given cores (`nice` 19 when `starved`) with
/// `args`, returning the report.
pub fn bench(dir: &Path, base: &str, cores: &str, starved: bool, args: &[&str]) -> Value {
    let out = dir.join(format!("report-{}.json", free_port()));
    let mut command = Command::new("taskset");
    command.args(["-c", cores]);
    if starved {
        command.args(["nice", "-n", "19"]);
    }
    let output = command
        .arg(BIN)
        .args(["bench", "--base-url", base, "--profile", "quick"])
        .args(args)
        .arg("--out")
        .arg(&out)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(output.status.success(), "bench failed: {}", stderr(&output));
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// What vLLM's client sends: `prompts` random prompts of `input` tokens after a `prefix` of
/// random tokens all share, `output` out with `EOS` ignored, `concurrency` at once.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    pub concurrency: u64,
    pub prefix: u64,
    pub input: u64,
    pub output: u64,
    pub prompts: u64,
}

/// vLLM's own client (`vllm bench serve`, backend `openai`) from the vLLM cache, on core 1,
/// counting tokens with the tokenizer in `tokenizer`. Its result JSON.
pub fn vllm_bench_serve(
    vllm: &Path,
    tokenizer: &Path,
    dir: &Path,
    base: &str,
    load: Load,
) -> Value {
    let name = format!("vllm-bench-{}-{}.json", load.concurrency, free_port());
    let output = Command::new("taskset")
        .args(["-c", "1"])
        .arg(vllm.join("vllm/bin/vllm"))
        .args(["bench", "serve", "--backend", "openai", "--base-url", base])
        .args(["--model", "tiny", "--tokenizer"])
        .arg(tokenizer)
        .args(["--dataset-name", "random", "--ignore-eos"])
        .args(["--random-prefix-len", &load.prefix.to_string()])
        .args(["--random-input-len", &load.input.to_string()])
        .args(["--random-output-len", &load.output.to_string()])
        .args(["--num-prompts", &load.prompts.to_string()])
        .args(["--max-concurrency", &load.concurrency.to_string()])
        .args(["--percentile-metrics", "ttft,tpot,itl", "--save-result"])
        .arg("--result-dir")
        .arg(dir)
        .args(["--result-filename", &name])
        .env("HF_HUB_OFFLINE", "1")
        .env("TRANSFORMERS_OFFLINE", "1")
        .env("VLLM_NO_USAGE_STATS", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "vllm bench serve failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        stderr(&output)
    );
    serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap()
}

/// One round's pair, ours first: measured in alternating order, ours first in odd rounds.
pub fn in_turn(round: u32, ours: impl FnOnce() -> Value, theirs: impl FnOnce() -> Value) -> Value {
    if round % 2 == 1 {
        let first = ours();
        serde_json::json!([first, theirs()])
    } else {
        let first = theirs();
        serde_json::json!([ours(), first])
    }
}

/// Our harness's cell and vLLM's client on the same server, the same lengths, must agree
/// within `tolerance` on output throughput and on time between tokens (vLLM's median TPOT).
/// A real engine's pace on this shared machine swings from one run to the next, so the two
/// are measured back to back in alternating order (`round` says which first: [`in_turn`]),
/// and the medians of the rounds so far must agree; `rounds` at most. A real disagreement
/// stays. Returns the medians, ours then theirs: throughput and TBT.
pub async fn alternate_with_vllm<F, Fut>(
    concurrency: u64,
    tolerance: f64,
    rounds: u32,
    mut round_pair: F,
) -> [(f64, f64); 2]
where
    F: FnMut(u32) -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        let pair = round_pair(round).await;
        ours.push((
            figure(&pair[0], "total_tok_s"),
            figure(&pair[0], "tbt_ms_median"),
        ));
        theirs.push((
            figure(&pair[1], "output_throughput"),
            figure(&pair[1], "median_tpot_ms"),
        ));
        let of = |v: &[(f64, f64)], second: bool| {
            median(
                &v.iter()
                    .map(|p| if second { p.1 } else { p.0 })
                    .collect::<Vec<_>>(),
            )
        };
        let medians = [
            (of(&ours, false), of(&theirs, false)),
            (of(&ours, true), of(&theirs, true)),
        ];
        println!(
            "concurrency {concurrency}, round {round}: ours {:?}, vLLM's {:?}; medians (tok/s, TBT vs TPOT) {medians:?}",
            ours.last(),
            theirs.last()
        );
        if medians
            .iter()
            .all(|(ours, theirs)| (ours / theirs - 1.0).abs() < tolerance)
        {
            return [(medians[0].0, medians[1].0), (medians[0].1, medians[1].1)];
        }
        assert!(
            round < rounds,
            "concurrency {concurrency}: the medians of {rounds} rounds disagree by more than {:.0} %: ours {ours:?}, vLLM's {theirs:?}",
            tolerance * 100.0
        );
    }
    unreachable!("the last round asserts")
}

pub fn cell(report: &Value, context: u64, concurrency: u64) -> &Value {
    report["decode"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["context_tokens"] == context && c["concurrency"] == concurrency)
        .unwrap_or_else(|| panic!("no cell {context} x {concurrency}"))
}

pub fn figure(cell: &Value, key: &str) -> f64 {
    cell[key]
        .as_f64()
        .unwrap_or_else(|| panic!("no {key} in {cell}"))
}

pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}
