//! Reading what the marketplace publishes: reports (and checking their signatures offline),
//! the leaderboard, and community runs.

use std::path::PathBuf;
use std::process::ExitCode;

use client::types;

use super::output::{fields, table};
use super::session::{DEFAULT_SERVER, Store};
use super::{Auth, Ctx, Failure, Global, uuid};
use crate::verify_cmd;

#[derive(Debug, clap::Args)]
pub struct ReportsArgs {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: ReportsCommand,
}

#[derive(Debug, clap::Subcommand)]
enum ReportsCommand {
    /// A report's summary: its listing, verdict, key and log position.
    Show { id: String },
    /// Save a report (`GET /v1/reports/{id}`, as it came) to a file, to keep or verify offline.
    Get {
        id: String,
        #[arg(short, long)]
        out: PathBuf,
    },
    /// Verify a saved report offline: its signature against the published keys, and with
    /// --checkpoint its inclusion in the transparency log. `verify`'s exit codes: 0 holds, 1
    /// bad signature, 2 not included, 3 inconsistent log, 4 usage or I/O error.
    Verify {
        file: PathBuf,
        /// The published keys (a file, or a URL) [default: the server's /v1/signing-keys].
        #[arg(long)]
        keys: Option<String>,
        /// Also check inclusion under this signed checkpoint (a file or URL; `latest` for the
        /// server's current one).
        #[arg(long)]
        checkpoint: Option<String>,
    },
}

#[derive(Debug, clap::Args)]
pub struct LeaderboardArgs {
    #[command(flatten)]
    global: Global,
    /// Only this decode cell: context tokens (`16k` = 16,384).
    #[arg(long, requires = "concurrency")]
    context: Option<String>,
    #[arg(long, requires = "context")]
    concurrency: Option<i64>,
}

#[derive(Debug, clap::Args)]
pub struct RunsArgs {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: RunsCommand,
}

#[derive(Debug, clap::Subcommand)]
enum RunsCommand {
    /// Submit a community run: a report `gpumarket bench --out` wrote, with what it ran on.
    Submit {
        /// The report JSON.
        report: PathBuf,
        /// The GPU's catalog id (`GET /v1/hardware`).
        #[arg(long)]
        gpu: Option<String>,
        /// The model's catalog id (`GET /v1/models`).
        #[arg(long)]
        model: Option<String>,
        /// How the engine was started, as a command line.
        #[arg(long)]
        launch_command: Option<String>,
        /// Anything else about the machine.
        #[arg(long)]
        hardware_notes: Option<String>,
    },
}

pub async fn reports(args: ReportsArgs) -> Result<ExitCode, Failure> {
    match args.command {
        ReportsCommand::Verify {
            file,
            keys,
            checkpoint,
        } => {
            // Offline but for the keys (and the checkpoint): no credential is needed.
            let server = super::server_of(&args.global, &Store::locate()?)?
                .unwrap_or_else(|| DEFAULT_SERVER.to_owned());
            let checkpoint = checkpoint.map(|c| {
                if c == "latest" {
                    format!("{server}/v1/log/checkpoint")
                } else {
                    c
                }
            });
            let keys = keys.unwrap_or_else(|| format!("{server}/v1/signing-keys"));
            if args.global.curl {
                // The check itself is offline; what it fetches is the keys and the checkpoint.
                let lines: String = [Some(&keys), checkpoint.as_ref()]
                    .into_iter()
                    .flatten()
                    .filter(|source| {
                        source.starts_with("http://") || source.starts_with("https://")
                    })
                    .map(|url| format!("curl -sS {}\n", client::shell_quote(url)))
                    .collect();
                super::output::text(&lines).map_err(|e| Failure::Io(format!("stdout: {e}")))?;
                return Ok(ExitCode::SUCCESS);
            }
            let verify = verify_cmd::VerifyArgs {
                file: Some(file),
                keys,
                checkpoint,
                proof: None,
                consistency: None,
                server: Some(server),
            };
            Ok(verify_cmd::verify(verify).await)
        }
        ReportsCommand::Show { id } => {
            let id = uuid("report", &id)?;
            let ctx = Ctx::new(&args.global, Auth::Optional).await?;
            if let Some(report) = ctx.outcome(ctx.client.get_report().id(id).send().await)? {
                ctx.say(&report_fields(&ctx, &report))?;
            }
            ctx.finish()?;
            Ok(ExitCode::SUCCESS)
        }
        ReportsCommand::Get { id, out } => {
            let id = uuid("report", &id)?;
            let ctx = Ctx::new(&args.global, Auth::Optional).await?;
            if ctx
                .outcome(ctx.client.get_report().id(id).send().await)?
                .is_some()
                && let Some(raw) = client::ClientInfo::inner(&ctx.client).last()
            {
                std::fs::write(&out, &raw.body).map_err(|e| Failure::io(&out, e))?;
                ctx.say(&format!(
                    "saved report {id} to {}; check it: gpumarket reports verify {}\n",
                    out.display(),
                    out.display()
                ))?;
            }
            ctx.finish()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn report_fields(ctx: &Ctx, report: &types::ReportView) -> String {
    let mut pairs = vec![
        ("id", report.id.to_string()),
        ("kind", report.kind.clone()),
        ("listing", report.listing_id.to_string()),
        ("organisation", report.org_id.to_string()),
        ("run", report.run_id.to_string()),
        (
            "compliant",
            ctx.style.state(if report.compliant { "yes" } else { "no" }),
        ),
        ("signed by", report.key_id.clone()),
        ("created", report.created_at.to_rfc3339()),
        ("visibility", report.visibility.clone()),
    ];
    if let Some(log) = &report.log {
        pairs.push(("log leaf", log.leaf_index.to_string()));
    }
    let summary = serde_json::Value::Object(report.summary.clone());
    let text = |pointer: &str| -> Option<String> {
        summary
            .pointer(pointer)
            .filter(|v| !v.is_null())
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
    };
    for (key, pointer) in [
        ("model", "/model"),
        ("gpu", "/gpu_model"),
        ("profile", "/profile"),
        ("best total tok/s", "/headline/best_total_tok_s"),
        ("one stream tok/s", "/headline/single_stream_tok_s"),
        ("prefill tok/s", "/headline/prefill_tok_s"),
    ] {
        if let Some(value) = text(pointer) {
            pairs.push((key, value));
        }
    }
    if let Some(reasons) = summary["reasons"].as_array().filter(|r| !r.is_empty()) {
        let reasons: Vec<String> = reasons
            .iter()
            .map(|r| r.as_str().unwrap_or_default().to_owned())
            .collect();
        pairs.push(("reasons", reasons.join("; ")));
    }
    fields(ctx.style, &pairs)
}

pub async fn leaderboard(args: LeaderboardArgs) -> Result<(), Failure> {
    let ctx = Ctx::new(&args.global, Auth::Optional).await?;
    let mut call = ctx.client.get_leaderboard();
    if let (Some(context), Some(concurrency)) = (&args.context, args.concurrency) {
        let context = client::query::tokens(context)
            .map_err(|reason| Failure::usage(format!("--context: {reason}")))?;
        call = call.context(context).concurrency(concurrency);
    }
    if let Some(page) = ctx.outcome(call.send().await)? {
        let rows: Vec<Vec<String>> = page
            .items
            .iter()
            .map(|row| {
                vec![
                    row.gpu_model.clone(),
                    row.model.clone(),
                    format!("{}/{}", row.context_tokens, row.concurrency),
                    format!("{:.1}", row.total_tok_s),
                    row.per_request_tok_s
                        .map_or("-".into(), |t| format!("{t:.1}")),
                    row.source.clone(),
                    row.listing_id.map_or("-".into(), |l| l.to_string()),
                ]
            })
            .collect();
        ctx.say(&table(
            ctx.style,
            &[
                "GPU",
                "MODEL",
                "CELL",
                "TOTAL TOK/S",
                "PER STREAM",
                "SOURCE",
                "LISTING",
            ],
            &rows,
        ))?;
    }
    ctx.finish()
}

pub async fn runs(args: RunsArgs) -> Result<(), Failure> {
    let ctx = Ctx::new(&args.global, Auth::Required).await?;
    match args.command {
        RunsCommand::Submit {
            report,
            gpu,
            model,
            launch_command,
            hardware_notes,
        } => {
            let text = std::fs::read_to_string(&report).map_err(|e| Failure::io(&report, e))?;
            let report_json: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&text).map_err(|e| {
                    Failure::usage(format!("{}: not a report's JSON: {e}", report.display()))
                })?;
            let catalog =
                (gpu.is_some() || model.is_some()).then_some(types::CatalogView { gpu, model });
            let body = types::SubmitRunRequest {
                catalog,
                hardware_notes,
                launch_command,
                report: report_json,
            };
            if let Some(run) = ctx.outcome(ctx.client.submit_run().body(body).send().await)? {
                ctx.say(&fields(
                    ctx.style,
                    &[("run", run.id.to_string()), ("source", "community".into())],
                ))?;
            }
        }
    }
    ctx.finish()
}
