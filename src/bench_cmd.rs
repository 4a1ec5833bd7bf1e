//! `gpumarket bench`: runs the standard matrix against a server, with progress bars on a
//! terminal (plain lines otherwise), and writes the report. Ctrl-C stops cleanly and still
//! writes what was measured, marked partial.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use bench::report::{self, Status};
use bench::{Options, Progress, params};
use clap::Args;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The engine's base URL, e.g. http://127.0.0.1:8000
    #[arg(long)]
    base_url: String,
    /// The served model; defaults to the server's first.
    #[arg(long)]
    model: Option<String>,
    /// The engine's API key (vLLM's `--api-key`), sent as a bearer token.
    #[arg(long, env = "GPUMARKET_ENGINE_API_KEY", hide_env_values = true)]
    api_key: Option<String>,
    /// `standard` (the reference page's parameters) or `quick`.
    #[arg(long, default_value = "standard")]
    profile: String,
    /// Decode contexts in tokens, e.g. `0,16K,32768`; empty skips decode.
    #[arg(long)]
    contexts: Option<String>,
    /// Concurrency levels, e.g. `1,2,4,8`.
    #[arg(long)]
    concurrency: Option<String>,
    /// Prefill contexts; empty (`--prefill-contexts ""`) skips prefill.
    #[arg(long)]
    prefill_contexts: Option<String>,
    /// Seconds of each decode cell's measurement window.
    #[arg(long)]
    measure_secs: Option<f64>,
    /// `max_tokens` of each decode stream.
    #[arg(long)]
    max_output: Option<u64>,
    /// Seconds the server must show nothing running or waiting to count as idle, in
    /// preflight and before a cold prefill that follows decode cells (standard: 2). A
    /// simulator at `--time-scale 10` stands for a real server with 0.2.
    #[arg(long)]
    idle_secs: Option<f64>,
    /// One prompt for all streams of a cell, as the reference tool does (not compliant).
    #[arg(long)]
    shared_prefix: bool,
    /// Seed of the prompt text (recorded in the report).
    #[arg(long)]
    seed: Option<u64>,
    /// Where prefill is measured: `warmup` (the first request of each context's decode
    /// warm-up; the standard profile's default) or `repeats` (dedicated cold requests).
    #[arg(long)]
    prefill_mode: Option<String>,
    /// How long decode windows run: `adaptive` (end early once the rate is known within
    /// ±1 %; the default) or `fixed` (always the full window).
    #[arg(long)]
    window_rule: Option<String>,
    /// Print the plan and an estimate of its duration, then stop without contacting the
    /// server.
    #[arg(long)]
    dry_run: bool,
    /// With --dry-run: the server's KV cache in tokens, to mark the cells over capacity.
    #[arg(long, requires = "dry_run")]
    kv_cache_tokens: Option<u64>,
    /// With --dry-run: the server's max_model_len (llama.cpp: a slot's context).
    #[arg(long, requires = "dry_run")]
    max_model_len: Option<u64>,
    /// With --dry-run: the requests the server runs at once in slots of their own (llama.cpp's
    /// `--parallel`): cells above it wait for a slot instead of needing more cache.
    #[arg(long, requires = "dry_run")]
    slots: Option<u64>,
    /// With --dry-run: the server's cold prefill rate in prompt tokens per second, to
    /// estimate the prefill time.
    #[arg(long, requires = "dry_run")]
    prefill_tok_s: Option<f64>,
    /// Where to write the JSON report.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Submit the report as a community run to this gpumarket server (its base URL).
    #[arg(long, requires = "submit_key")]
    submit: Option<String>,
    /// A gpumarket API key (`gpm_…`) to submit with; `--api-key` stays the engine's.
    #[arg(long, env = "GPUMARKET_SUBMIT_KEY", hide_env_values = true)]
    submit_key: Option<String>,
    /// With --submit: the GPU's catalog id (GET /v1/hardware).
    #[arg(long, requires = "submit")]
    catalog_gpu: Option<String>,
    /// With --submit: the model's catalog id (GET /v1/models).
    #[arg(long, requires = "submit")]
    catalog_model: Option<String>,
    /// With --submit: how the engine was started.
    #[arg(long, requires = "submit")]
    launch_command: Option<String>,
    /// With --submit: notes on the hardware (power limit, PCIe, driver).
    #[arg(long, requires = "submit")]
    hardware_notes: Option<String>,
}

impl BenchArgs {
    fn options(&self) -> anyhow::Result<Options> {
        let mut p = params::profile(&self.profile).with_context(|| {
            format!("--profile: {:?} is not `standard` or `quick`", self.profile)
        })?;
        let list = |flag: &str, raw: &Option<String>, into: &mut Vec<u64>| -> anyhow::Result<()> {
            if let Some(raw) = raw {
                *into = params::parse_list(raw).map_err(|e| anyhow::anyhow!("{flag}: {e}"))?;
            }
            Ok(())
        };
        list("--contexts", &self.contexts, &mut p.contexts)?;
        list("--concurrency", &self.concurrency, &mut p.concurrency)?;
        list(
            "--prefill-contexts",
            &self.prefill_contexts,
            &mut p.prefill_contexts,
        )?;
        if let Some(secs) = self.measure_secs {
            p.measure_secs = secs;
        }
        if let Some(max) = self.max_output {
            p.max_output = max;
        }
        if let Some(secs) = self.idle_secs {
            p.idle_secs = secs;
        }
        if let Some(seed) = self.seed {
            p.prompt_seed = seed;
        }
        p.shared_prefix = self.shared_prefix;
        if let Some(raw) = &self.prefill_mode {
            p.prefill_mode = params::PrefillMode::parse(raw)
                .with_context(|| format!("--prefill-mode: {raw:?} is not `warmup` or `repeats`"))?;
        }
        if let Some(raw) = &self.window_rule {
            p.window_rule = params::WindowRule::parse(raw)
                .with_context(|| format!("--window-rule: {raw:?} is not `adaptive` or `fixed`"))?;
        }
        p.validate()
            .map_err(|e| anyhow::anyhow!("--{}", e.replacen('_', "-", 1)))?;
        Ok(Options {
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            api_key: self.api_key.clone().map(Into::into),
            params: p,
            outbound: outbound::Policy::permissive(),
            require_dialect: false,
            expect_engine: None,
        })
    }
}

pub async fn bench(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let options = args.options()?;
    if args.dry_run {
        if let Some(rate) = args.prefill_tok_s
            && !(rate.is_finite() && rate > 0.0)
        {
            anyhow::bail!("--prefill-tok-s: must be a positive number of tokens per second");
        }
        let sizes = bench::plan::ServerSizes {
            kv_cache_tokens: args.kv_cache_tokens,
            max_model_len: args.max_model_len,
            slots: args.slots,
        };
        let plan = bench::plan::plan(&options.params, sizes);
        print!("{}", plan.text(&options.params, args.prefill_tok_s));
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(server) = &args.submit {
        // A key the server refuses is told before the matrix runs, not after.
        check_submit_key(server, args.submit_key.as_deref().unwrap_or_default()).await?;
    }
    let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = cancel_tx.send(true);
        }
    });
    let (progress_tx, progress_rx) = tokio::sync::mpsc::unbounded_channel();
    let display = tokio::spawn(show_progress(progress_rx));
    let result = bench::run(options, Some(progress_tx), cancel_rx).await;
    let _ = display.await;
    let report = result.context("the benchmark could not run")?;
    if let Some(out) = &args.out {
        let json = serde_json::to_string_pretty(&report)?;
        std::fs::write(out, json + "\n").with_context(|| format!("writing {}", out.display()))?;
    }
    println!("{}", report::table(&report));
    if let Some(out) = &args.out {
        println!("report: {}", out.display());
    }
    if let Some(server) = &args.submit {
        if report.partial {
            anyhow::bail!("a partial report is not submitted");
        }
        let url = submit(server, &args, &report).await?;
        println!("submitted: {url}");
    }
    Ok(if report.partial {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

/// The client that talks to the gpumarket server a report is submitted to.
fn submit_client() -> anyhow::Result<reqwest::Client> {
    Ok(reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(60))
        .build()?)
}

/// Whether `server` accepts `key` (`GET /v1/me`).
async fn check_submit_key(server: &str, key: &str) -> anyhow::Result<()> {
    let base = server.trim_end_matches('/');
    let response = submit_client()?
        .get(format!("{base}/v1/me"))
        .bearer_auth(key)
        .send()
        .await
        .with_context(|| format!("--submit: {base} does not answer"))?;
    if !response.status().is_success() {
        anyhow::bail!(
            "--submit-key: {base} refused the key (HTTP {}); nothing was measured",
            response.status()
        );
    }
    Ok(())
}

/// Posts the report to `server`'s `POST /v1/runs`; the run's URL.
async fn submit(server: &str, args: &BenchArgs, report: &bench::Report) -> anyhow::Result<String> {
    let base = server.trim_end_matches('/');
    let mut report = serde_json::to_value(report)?;
    // The engine's address is the submitter's business, never the server's.
    report["engine"]["base_url"] = serde_json::Value::Null;
    let body = serde_json::json!({
        "report": report,
        "catalog": {"gpu": args.catalog_gpu, "model": args.catalog_model},
        "launch_command": args.launch_command,
        "hardware_notes": args.hardware_notes,
    });
    let response = submit_client()?
        .post(format!("{base}/v1/runs"))
        .bearer_auth(args.submit_key.as_deref().unwrap_or_default())
        .json(&body)
        .send()
        .await
        .with_context(|| format!("submitting to {base}"))?;
    let status = response.status();
    let answer: serde_json::Value =
        serde_json::from_str(&crate::verify_cmd::read_bounded(response, 1 << 20).await?)
            .unwrap_or_default();
    if !status.is_success() {
        anyhow::bail!(
            "{base} refused the report (HTTP {status}): {}",
            answer["detail"].as_str().unwrap_or("no detail")
        );
    }
    Ok(format!(
        "{base}/v1/runs/{}",
        answer["id"].as_str().unwrap_or_default()
    ))
}

/// Progress bars on a terminal; one plain line per event otherwise.
async fn show_progress(mut rx: tokio::sync::mpsc::UnboundedReceiver<Progress>) {
    let terminal = std::io::stderr().is_terminal();
    let bars = MultiProgress::new();
    let mut overall: Option<ProgressBar> = None;
    let current = bars.add(ProgressBar::new_spinner());
    if !terminal {
        current.finish_and_clear();
    }
    while let Some(event) = rx.recv().await {
        let line = match &event {
            Progress::Plan {
                prefill,
                decode,
                decode_to_run,
            } => {
                if terminal {
                    let bar = bars.insert(0, ProgressBar::new((prefill + decode) as u64));
                    bar.set_style(
                        ProgressStyle::with_template(
                            "{bar:40} {pos}/{len} cells  {elapsed_precise}",
                        )
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                    overall = Some(bar);
                }
                format!(
                    "plan: {prefill} prefill contexts, {decode} decode cells ({decode_to_run} to run, the rest over capacity)"
                )
            }
            Progress::Phase(phase) => phase.clone(),
            Progress::PrefillFinished(entry) => {
                if let Some(bar) = &overall {
                    bar.inc(1);
                }
                match (entry.status, entry.prompt_tok_s, entry.ttft_ms) {
                    (Status::Valid, Some(rate), Some(ttft)) => format!(
                        "prefill {}: {rate:.1} prompt tok/s, TTFT {ttft:.0} ms",
                        entry.context_tokens
                    ),
                    _ => format!(
                        "prefill {}: {} {}",
                        entry.context_tokens,
                        entry.status.words(),
                        entry.reasons.join("; ")
                    ),
                }
            }
            Progress::CellStarted {
                context_tokens,
                concurrency,
            } => format!("decode {context_tokens} x {concurrency}: running"),
            Progress::Live { tokens_per_s } => {
                if terminal {
                    current.set_message(format!("{tokens_per_s:.1} tok/s"));
                    current.tick();
                }
                continue;
            }
            Progress::CellFinished(cell) => {
                if let Some(bar) = &overall {
                    bar.inc(1);
                }
                match cell.total_tok_s {
                    Some(total) => format!(
                        "decode {} x {}: {} — {total:.1} tok/s total, {:.1} per request, TBT {:.1} ms, TTFT {:.0} ms",
                        cell.context_tokens,
                        cell.concurrency,
                        cell.status.words(),
                        cell.per_request_tok_s.unwrap_or_default(),
                        cell.tbt_ms_median.unwrap_or_default(),
                        cell.ttft_ms_median.unwrap_or_default(),
                    ),
                    None => format!(
                        "decode {} x {}: {}",
                        cell.context_tokens,
                        cell.concurrency,
                        cell.status.words()
                    ),
                }
            }
        };
        if terminal {
            let _ = bars.println(line);
        } else {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("{line}");
            }
        }
    }
    if let Some(bar) = overall {
        bar.finish_and_clear();
    }
    current.finish_and_clear();
}
