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
    /// One prompt for all streams of a cell, as the reference tool does (not compliant).
    #[arg(long)]
    shared_prefix: bool,
    /// Seed of the prompt text (recorded in the report).
    #[arg(long)]
    seed: Option<u64>,
    /// Where to write the JSON report.
    #[arg(long)]
    out: Option<PathBuf>,
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
        if let Some(seed) = self.seed {
            p.prompt_seed = seed;
        }
        p.shared_prefix = self.shared_prefix;
        p.validate()
            .map_err(|e| anyhow::anyhow!("--{}", e.replacen('_', "-", 1)))?;
        Ok(Options {
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            api_key: self.api_key.clone(),
            params: p,
            outbound: bench::outbound::Policy::permissive(),
        })
    }
}

pub async fn bench(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let options = args.options()?;
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
    Ok(if report.partial {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
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
