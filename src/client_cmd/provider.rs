//! What a provider does: list machines, edit and delist them, have them verified (following
//! the run live), announce maintenance, read their uptime, and read the organisation's
//! earnings.

use std::path::{Path, PathBuf};

use client::types;
use futures_util::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};

use super::output::{fields, money, table};
use super::{Auth, Ctx, Failure, Global, uuid};

#[derive(Debug, clap::Args)]
pub struct ListingsArgs {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    command: ListingsCommand,
}

#[derive(Debug, clap::Subcommand)]
enum ListingsCommand {
    /// List a machine: the listing as `POST /v1/listings` takes it, in a TOML or JSON file
    /// (the book's "Command line" page has an example).
    Create {
        #[arg(long)]
        file: PathBuf,
        /// Print only the new listing's id.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Change a listing: the fields to change, as `PATCH /v1/listings/{id}` takes them, in a
    /// TOML or JSON file.
    Edit {
        id: String,
        #[arg(long)]
        file: PathBuf,
    },
    /// Delist a listing: no longer found or bookable (bookings already made stand).
    Delist { id: String },
    /// Ask for a verification of the listing; with --follow, watch it live to its report.
    Verify {
        id: String,
        /// Run the full standard matrix instead of the quick profile. (`--profile` names the
        /// credentials' profile, as on every client command.)
        #[arg(long)]
        standard: bool,
        /// Follow the run's events until it ends; exit 1 when it failed.
        #[arg(long)]
        follow: bool,
    },
    /// Run a preflight of the listing: each check (engine, model, metrics, one-token
    /// completion, KV capacity, and the agent's) with its evidence and what to do. Exits 1
    /// when a check failed.
    Preflight {
        id: String,
        /// Check the KV cache against the standard profile's cells instead of the quick one's.
        #[arg(long)]
        standard: bool,
    },
    /// A listing's uptime: its state now, uptime over 24 h, 7 and 30 days, reliability, and
    /// coming maintenance.
    Uptime { id: String },
    /// Announce a maintenance window: the machine is taken over `[--from, --until)`.
    Maintenance {
        id: String,
        /// Its start, RFC 3339.
        #[arg(long)]
        from: chrono::DateTime<chrono::Utc>,
        /// Its end, RFC 3339 (at most 14 days after the start).
        #[arg(long)]
        until: chrono::DateTime<chrono::Utc>,
        /// Why, for the organisation's members.
        #[arg(long, default_value = "")]
        reason: String,
        /// Interrupt the bookings it overlaps: each keeps its interval, has no access over
        /// the window and is given back the share of its price the window takes (the window
        /// then can no longer be deleted).
        #[arg(long, visible_alias = "interrupt-overlapping")]
        cancel_overlapping: bool,
    },
    /// A listing's maintenance windows that have not ended.
    Windows { id: String },
    /// Delete a maintenance window that has not begun and interrupted no booking.
    Unschedule { id: String, window: String },
}

#[derive(Debug, clap::Args)]
pub struct EarningsArgs {
    #[command(flatten)]
    global: Global,
    /// The organisation's id.
    org: String,
}

/// A file of TOML (by its `.toml` extension) or JSON, as the request type `T`.
fn read_body<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::io(path, e))?;
    let value: serde_json::Value = if path.extension().is_some_and(|e| e == "toml") {
        toml::from_str(&text)
            .map_err(|e| Failure::usage(format!("{}: not TOML: {e}", path.display())))?
    } else {
        serde_json::from_str(&text)
            .map_err(|e| Failure::usage(format!("{}: not JSON: {e}", path.display())))?
    };
    serde_json::from_value(value).map_err(|e| {
        Failure::usage(format!(
            "{}: not a listing as the API takes it: {e}",
            path.display()
        ))
    })
}

pub async fn listings(args: ListingsArgs) -> Result<(), Failure> {
    let ctx = Ctx::new(&args.global, Auth::Required).await?;
    match args.command {
        ListingsCommand::Create { file, quiet } => {
            let body: types::CreateListingRequest = read_body(&file)?;
            if let Some(listing) =
                ctx.outcome(ctx.client.create_listing().body(body).send().await)?
            {
                if quiet {
                    ctx.say(&format!("{}\n", listing.id))?;
                } else {
                    ctx.say(&format!(
                        "listed {} ({}); have it verified: gpumarket listings verify {} --follow\n",
                        listing.id, listing.title, listing.id
                    ))?;
                }
            }
        }
        ListingsCommand::Edit { id, file } => {
            let id = uuid("listing", &id)?;
            let body: types::UpdateListingRequest = read_body(&file)?;
            if let Some(listing) =
                ctx.outcome(ctx.client.update_listing().id(id).body(body).send().await)?
            {
                ctx.say(&format!(
                    "updated {} ({}); badge: {}\n",
                    listing.id,
                    listing.title,
                    ctx.style.state(&listing.verification_state)
                ))?;
            }
        }
        ListingsCommand::Delist { id } => {
            let id = uuid("listing", &id)?;
            if ctx
                .outcome(ctx.client.delete_listing().id(id).send().await)?
                .is_some()
            {
                ctx.say(&format!("delisted {id}\n"))?;
            }
        }
        ListingsCommand::Verify {
            id,
            standard,
            follow,
        } => {
            let id = uuid("listing", &id)?;
            let body = types::VerifyRequest {
                profile: if standard { "standard" } else { "quick" }.to_owned(),
                visibility: None,
            };
            let run = ctx.outcome(
                ctx.client
                    .request_verification()
                    .id(id)
                    .body(body)
                    .send()
                    .await,
            )?;
            if let Some(run) = run {
                if follow {
                    follow_run(&ctx, run.id).await?;
                } else {
                    ctx.say(&format!(
                        "verification {} is {}; follow it: gpumarket listings verify --follow, or GET /v1/verifications/{}/events\n",
                        run.id, run.status, run.id
                    ))?;
                }
            }
        }
        ListingsCommand::Preflight { id, standard } => {
            let id = uuid("listing", &id)?;
            let profile = if standard { "standard" } else { "quick" };
            let answer = ctx
                .client
                .request_preflight()
                .id(id)
                .profile(profile)
                .send()
                .await;
            if let Some(preflight) = ctx.outcome(answer)? {
                let mut text = String::new();
                for c in &preflight.checks {
                    text.push_str(&format!("{:<5} {:<17} {}\n", c.state, c.check, c.evidence));
                    for step in &c.suggested_steps {
                        text.push_str(&format!("{:24}→ {step}\n", ""));
                    }
                }
                ctx.say(&text)?;
                if !preflight.passed {
                    let failed: Vec<&str> = preflight
                        .checks
                        .iter()
                        .filter(|c| c.state == "fail")
                        .map(|c| c.check.as_str())
                        .collect();
                    return Err(Failure::Ended {
                        code: "preflight_failed".to_owned(),
                        detail: format!("failed: {}", failed.join(", ")),
                    });
                }
            }
        }
        ListingsCommand::Uptime { id } => {
            let id = uuid("listing", &id)?;
            if let Some(u) = ctx.outcome(ctx.client.get_listing_uptime().id(id).send().await)? {
                let share =
                    |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{:.2} %", v * 100.0));
                let since = u
                    .current
                    .since
                    .map(|t| format!(" since {}", t.to_rfc3339()))
                    .or_else(|| {
                        u.current
                            .until
                            .map(|t| format!(" until {}", t.to_rfc3339()))
                    })
                    .unwrap_or_default();
                ctx.say(&fields(
                    ctx.style,
                    &[
                        ("state", format!("{}{since}", u.current.state)),
                        ("uptime 24 h", share(u.uptime_24h)),
                        ("uptime 7 d", share(u.uptime_7d)),
                        ("uptime 30 d", share(u.uptime_30d)),
                        ("reliability", share(u.reliability)),
                        ("maintenance", u.maintenance.len().to_string()),
                        ("statements", u.statements.len().to_string()),
                    ],
                ))?;
            }
        }
        ListingsCommand::Maintenance {
            id,
            from,
            until,
            reason,
            cancel_overlapping,
        } => {
            let id = uuid("listing", &id)?;
            let body = types::NewWindowRequest {
                from,
                until,
                reason: Some(reason),
                cancel_overlapping: Some(cancel_overlapping),
            };
            if let Some(a) = ctx.outcome(
                ctx.client
                    .create_maintenance_window()
                    .id(id)
                    .body(body)
                    .send()
                    .await,
            )? {
                ctx.say(&format!(
                    "maintenance {} from {} until {} ({}); {} booking(s) interrupted over it, \
                     each given back its share ({} still owed: awaiting payment or a retry)\n",
                    a.window.id,
                    a.window.from.to_rfc3339(),
                    a.window.until.to_rfc3339(),
                    if a.window.in_time {
                        "announced in time"
                    } else {
                        "announced late: it counts as downtime"
                    },
                    a.interrupted_booking_ids.len(),
                    a.refund_pending_ids.len()
                ))?;
            }
        }
        ListingsCommand::Windows { id } => {
            let id = uuid("listing", &id)?;
            if let Some(windows) =
                ctx.outcome(ctx.client.list_maintenance_windows().id(id).send().await)?
            {
                let rows: Vec<Vec<String>> = windows
                    .iter()
                    .map(|w| {
                        vec![
                            w.id.to_string(),
                            w.from.to_rfc3339(),
                            w.until.to_rfc3339(),
                            if w.in_time { "yes" } else { "no" }.to_owned(),
                            (w.interrupted_bookings + w.cancelled_bookings).to_string(),
                            w.reason.clone().unwrap_or_default(),
                        ]
                    })
                    .collect();
                ctx.say(&table(
                    ctx.style,
                    &["id", "from", "until", "in time", "interrupted", "reason"],
                    &rows,
                ))?;
            }
        }
        ListingsCommand::Unschedule { id, window } => {
            let (id, window) = (uuid("listing", &id)?, uuid("window", &window)?);
            if ctx
                .outcome(
                    ctx.client
                        .delete_maintenance_window()
                        .id(id)
                        .window_id(window)
                        .send()
                        .await,
                )?
                .is_some()
            {
                ctx.say(&format!("deleted maintenance window {window}\n"))?;
            }
        }
    }
    ctx.finish()
}

/// Follows a run's events (`GET /v1/verifications/{id}/events`, parsed as the book's "Live
/// events" page describes them) with a progress bar on stderr, until `run_finished`; then the
/// report's id, or the failure's code (exit 1).
async fn follow_run(ctx: &Ctx, run: uuid::Uuid) -> Result<(), Failure> {
    let Some(stream) = ctx.outcome(ctx.client.follow_verification_events().id(run).send().await)?
    else {
        return Ok(());
    };
    let bar = if ctx.human() {
        ProgressBar::new(0)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} cells")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(format!("verification {run}: queued"));
    // Our own server's events are small; 1 MiB bounds what a stream may make us hold.
    let mut events = openai::sse::SseDecoder::with_limit(1 << 20);
    let mut bytes = stream.into_inner();
    while let Some(chunk) = bytes.next().await {
        let chunk = chunk.map_err(|e| Failure::Unreachable(format!("the event stream: {e}")))?;
        if ctx.global.json {
            // The stream as it came.
            let _ = super::output::raw(&chunk);
        }
        for (kind, event) in events.feed_events(&chunk) {
            let data: serde_json::Value = match event {
                openai::sse::SseEvent::Data(data) => {
                    serde_json::from_str(&data).unwrap_or_default()
                }
                openai::sse::SseEvent::TooLong { .. } => {
                    return Err(Failure::Unreachable(format!(
                        "the event stream of verification {run} sent an event past 1 MiB"
                    )));
                }
                openai::sse::SseEvent::Done => continue,
            };
            match kind.as_deref().unwrap_or_default() {
                "run_started" => bar.set_message(format!("verification {run}: measuring")),
                "run_planned" => bar.set_length(data["decode_to_run"].as_u64().unwrap_or(0)),
                "cell_started" => bar.set_message(format!(
                    "verification {run}: {} tokens x {}",
                    data["context_tokens"], data["concurrency"]
                )),
                "cell_finished" => bar.inc(1),
                "run_finished" => {
                    bar.finish_and_clear();
                    return match data["status"].as_str() {
                        Some("succeeded") => ctx.say(&format!(
                            "verification {run} succeeded: report {}\nverify it offline: gpumarket reports get {} -o report.json && gpumarket reports verify report.json\n",
                            data["report_id"].as_str().unwrap_or("?"),
                            data["report_id"].as_str().unwrap_or("?"),
                        )),
                        _ => Err(Failure::Ended {
                            code: data["reason"].as_str().unwrap_or("run_failed").to_owned(),
                            detail: format!(
                                "verification {run} failed (GET /v1/verifications/{run} tells why, to the listing's members)"
                            ),
                        }),
                    };
                }
                _ => {}
            }
        }
    }
    bar.finish_and_clear();
    Err(Failure::Unreachable(format!(
        "the event stream of verification {run} ended before the run did: follow it again"
    )))
}

/// `earnings ORG`: the organisation's statement as a provider (what its bookings earned, less
/// refunds and platform fees).
pub async fn earnings(args: EarningsArgs) -> Result<(), Failure> {
    let org = uuid("organisation", &args.org)?;
    let ctx = Ctx::new(&args.global, Auth::Required).await?;
    if let Some(statement) = ctx.outcome(ctx.client.get_org_earnings().id(org).send().await)? {
        let totals: Vec<(&str, String)> = statement
            .totals
            .iter()
            .map(|t| ("total", money(t.amount, &t.currency)))
            .collect();
        let mut out = fields(ctx.style, &totals);
        let rows: Vec<Vec<String>> = statement
            .entries
            .iter()
            .map(|e| {
                vec![
                    e.created_at.format("%Y-%m-%d %H:%M").to_string(),
                    e.kind.clone(),
                    e.booking_id.to_string(),
                    money(e.amount, &e.currency),
                ]
            })
            .collect();
        out.push('\n');
        out.push_str(&table(
            ctx.style,
            &["WHEN", "KIND", "BOOKING", "AMOUNT"],
            &rows,
        ));
        ctx.say(&out)?;
    }
    ctx.finish()
}
