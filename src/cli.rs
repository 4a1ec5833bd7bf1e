//! The command line: one subcommand per way of running gpumarket.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

use crate::{
    agent_cmd, availability_bench, bench_cmd, client_cmd, config_cmd, demo, gateway_bench,
    search_bench, settings, telemetry, transparency_monitor, verify_cmd,
};

#[derive(Debug, Parser)]
#[command(
    name = "gpumarket",
    version,
    about = "A marketplace for GPU machines with verified, signed benchmark results"
)]
pub struct Cli {
    /// A TOML file of settings, applied over the defaults and under GPUMARKET_* variables.
    #[arg(long, global = true, env = "GPUMARKET_CONFIG")]
    config: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Sign in to a server (email and password, or --api-key) and keep the credential in a
    /// profile of $XDG_CONFIG_HOME/gpumarket/config.toml.
    #[command(display_order = 1)]
    Login(client_cmd::LoginArgs),
    /// Forget a profile's credential (and end its session on the server).
    #[command(display_order = 1)]
    Logout(client_cmd::LogoutArgs),
    /// Search listings with a query such as 'gpu=rtx-3060-12gb price<=0.40 usd
    /// tok_s@16k/4>=100 verified region=eu-west'.
    #[command(display_order = 2)]
    Search(client_cmd::SearchArgs),
    /// Machines by what users feel: the users each serves within an objective such as
    /// 'model=qwen3-0.6b context=8k users=50 ttft<=2s itl<=100ms', and the cheapest plan;
    /// `offers book` books that plan.
    #[command(display_order = 2)]
    Offers(client_cmd::OffersArgs),
    /// Show a listing: its machine, price, badge and verified figures.
    #[command(display_order = 2)]
    Show(client_cmd::ShowArgs),
    /// Book GPUs of a listing for some hours.
    #[command(display_order = 2)]
    Book(client_cmd::BookArgs),
    /// Your bookings: list, show, cancel, wait for a state, usage.
    #[command(display_order = 2)]
    Bookings(client_cmd::BookingsArgs),
    /// How to reach a booked machine: its token, SSH and HTTPS, and the metered gateway.
    #[command(display_order = 2)]
    Access(client_cmd::AccessArgs),
    /// Log in to a booked machine over SSH as its access says (`-- COMMAND` runs one command).
    #[command(display_order = 2)]
    Ssh(client_cmd::SshArgs),
    /// Your SSH public keys, which a provider's agent installs for your bookings: add, list,
    /// delete.
    #[command(display_order = 2)]
    SshKeys(client_cmd::SshKeysArgs),
    /// Your monthly budget: set, show, remove. A booking or plan that would take this month's
    /// spending past it is refused.
    #[command(display_order = 2)]
    Budget(client_cmd::BudgetArgs),
    /// What a booking would cost and whether it would hold now: what it would displace, why it
    /// would be refused, the bid that would hold. Nothing is booked.
    #[command(display_order = 2)]
    Quote(client_cmd::QuoteArgs),
    /// Raise your interruptible booking's bid per GPU-hour (never lower it).
    #[command(display_order = 2)]
    Bid(client_cmd::BidArgs),
    /// The market's price history: each closed hour's or day's listed prices, GPU-hours booked
    /// and clearing bid.
    #[command(display_order = 2)]
    Market(client_cmd::MarketArgs),
    /// Your organisation's listings: create, edit, delist, verify (and follow the run).
    #[command(display_order = 3)]
    Listings(client_cmd::ListingsArgs),
    /// Your organisation's earnings statement.
    #[command(display_order = 3)]
    Earnings(client_cmd::EarningsArgs),
    /// Signed reports: show, save, verify offline.
    #[command(display_order = 4)]
    Reports(client_cmd::ReportsArgs),
    /// The best verified figures by hardware and model.
    #[command(display_order = 4)]
    Leaderboard(client_cmd::LeaderboardArgs),
    /// Community runs: submit a report `gpumarket bench` wrote.
    #[command(display_order = 4)]
    Runs(client_cmd::RunsArgs),
    /// Print a shell's completion script for gpumarket (e.g. `gpumarket completions bash >
    /// /etc/bash_completion.d/gpumarket`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Serve the HTTP API (embedded by default: a SQLite file in the working directory, and
    /// the verification worker in-process).
    Serve {
        /// Also start a simulated engine, list it as a demo provider's machine and verify it.
        #[arg(long)]
        demo: bool,
        /// With --demo, as root: its agent makes real booking accounts on this machine
        /// (without it, or not root, the agent runs --dry-run).
        #[arg(long, requires = "demo")]
        agent: bool,
    },
    /// Run a verification worker (the distributed shape: with PostgreSQL and Redis).
    Worker {
        /// Runs verified at once by this process.
        #[arg(long, default_value_t = 1)]
        concurrency: usize,
    },
    /// Verify a signed report offline — its signature, and with --checkpoint or --proof its
    /// inclusion in the transparency log — or, with --consistency OLD NEW, that a checkpoint
    /// extends an older one. Exit codes: 0 holds, 1 bad signature, 2 not included, 3
    /// inconsistent log, 4 usage or I/O error.
    Verify(verify_cmd::VerifyArgs),
    /// Watch a server's transparency log: check each new checkpoint extends the last one
    /// seen, replay the new entries, verify their signatures and recompute the root.
    LogMonitor(transparency_monitor::LogMonitorArgs),
    /// Back the database up: with --out FILE, an online, consistent copy while it serves
    /// (SQLite: VACUUM INTO; PostgreSQL: pg_dump --format=custom, one snapshot); with --check
    /// FILE, check a copy (a SQLite file or a pg_dump file, loaded into a scratch database on
    /// the configured PostgreSQL server and dropped after) — every report's signature, the
    /// transparency log's root against its last signed checkpoint and every earlier
    /// checkpoint's consistency with it, the ledger's balance. Exit codes: 0 holds, 1 a check
    /// failed, 2 usage or I/O error.
    Backup {
        /// Write the copy to this new file.
        #[arg(
            long,
            value_name = "FILE",
            conflicts_with = "check",
            required_unless_present = "check"
        )]
        out: Option<std::path::PathBuf>,
        /// Check this backup instead.
        #[arg(long, value_name = "FILE")]
        check: Option<std::path::PathBuf>,
    },
    /// Restore a backup as the database (GPUMARKET_DATABASE_URL: a SQLite file that does not
    /// exist yet, or an empty PostgreSQL database for a pg_dump file), once it passes `backup
    /// --check`'s checks and its canary opens with the secrets key (--secrets-key-file, else
    /// the configured one). With --checkpoint, the log must be the one that checkpoint signed:
    /// a smaller log is restored with signing held until --accept-rollback. Exit codes: 0
    /// restored, 1 a check failed (nothing written), 2 usage or I/O error.
    Restore {
        /// The backup.
        file: std::path::PathBuf,
        /// The key the backup's secrets were sealed with.
        #[arg(long, value_name = "FILE")]
        secrets_key_file: Option<std::path::PathBuf>,
        /// The newest checkpoint the log published (the text of GET /v1/log/checkpoint): the
        /// restored log never forks from it.
        #[arg(long, value_name = "FILE")]
        checkpoint: Option<std::path::PathBuf>,
        /// Go on from a log smaller than --checkpoint: the server logs a signed rollback
        /// statement at its next start and signs again.
        #[arg(long, requires = "checkpoint")]
        accept_rollback: bool,
    },
    /// Apply pending database migrations to GPUMARKET_DATABASE_URL and exit.
    Migrate {
        /// Apply nothing: wait up to this many seconds until every migration this binary
        /// knows is applied (by the release's migration step), then exit 0; exit 1 at the
        /// deadline. A database ahead of the binary (after a rollback) is ready at once.
        /// Kubernetes' API and worker pods wait so for the migration Job.
        #[arg(long, value_name = "SECS")]
        wait: Option<u64>,
    },
    /// The provider's agent on its machine: `agent facts` prints what the machine says it is.
    Agent(agent_cmd::AgentArgs),
    /// Run a simulated vLLM-compatible engine (no GPU needed).
    Sim {
        /// A built-in profile (`rtx3060-nemotron-nano-12b-awq`, `tiny`) or a TOML file.
        #[arg(long, default_value = "tiny")]
        profile: String,
        #[arg(long, default_value = "127.0.0.1:8000")]
        listen: String,
        /// Run every duration this many times faster (figures scale exactly).
        #[arg(long, default_value_t = 1.0)]
        time_scale: f64,
        /// Require this bearer token on `/v1/*`, like vLLM's `--api-key`.
        #[arg(long, env = "GPUMARKET_SIM_API_KEY", hide_env_values = true)]
        api_key: Option<String>,
        /// The engine to stand in for: `vllm`, `llamacpp`, `sglang` or `tgi` (its metrics,
        /// info endpoint and `/tokenize`).
        #[arg(long, default_value = "vllm", value_parser = ["vllm", "llamacpp", "sglang", "tgi"])]
        dialect: String,
    },
    /// Run the standard benchmark matrix against a vLLM-compatible server.
    Bench(Box<bench_cmd::BenchArgs>),
    /// Load a synthetic marketplace (100,000 listings by default) and measure search latency
    /// over HTTP under concurrent load.
    SearchBench(search_bench::SearchBenchArgs),
    /// Time a listing's availability over a year from many bookings (100,000 by default).
    AvailabilityBench(availability_bench::AvailabilityBenchArgs),
    /// Measure what the metered gateway adds: one stream on a simulated engine, directly and
    /// through `/v1/gateway/{booking}`, in alternating rounds; TTFT, inter-token gaps and the
    /// server's CPU per 1,000 tokens.
    GatewayBench(gateway_bench::GatewayBenchArgs),
    /// Print the configuration in force (defaults, file, GPUMARKET_* variables; secrets only
    /// as set), or with --markdown the configuration reference generated from the code.
    Config {
        /// Print the reference page (docs/src/configuration.md) instead.
        #[arg(long)]
        markdown: bool,
        /// Fail when the committed reference page differs from the generated one.
        #[arg(long, requires = "markdown")]
        check: bool,
        /// The committed reference page.
        #[arg(long, default_value = app::config::REFERENCE_PAGE)]
        file: PathBuf,
    },
    /// Print the OpenAPI document, or check it against the committed one.
    Openapi {
        /// Fail when the committed document differs from the one the code generates.
        #[arg(long)]
        check: bool,
        /// The committed document.
        #[arg(long, default_value = "openapi/openapi.json")]
        file: PathBuf,
    },
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Login(args) => Ok(client_cmd::run(client_cmd::login::login(args))),
        Command::Logout(args) => Ok(client_cmd::run(client_cmd::login::logout(args))),
        Command::Search(args) => Ok(client_cmd::run(client_cmd::renter::search(args))),
        Command::Offers(args) => Ok(client_cmd::run(client_cmd::offers::offers(args))),
        Command::Show(args) => Ok(client_cmd::run(client_cmd::renter::show(args))),
        Command::Book(args) => Ok(client_cmd::run(client_cmd::renter::book(args))),
        Command::Bookings(args) => Ok(client_cmd::run(client_cmd::renter::bookings(args))),
        Command::Access(args) => Ok(client_cmd::run(client_cmd::renter::access(args))),
        Command::Ssh(args) => Ok(client_cmd::run(client_cmd::renter::ssh(args))),
        Command::SshKeys(args) => Ok(client_cmd::run(client_cmd::ssh_keys::ssh_keys(args))),
        Command::Budget(args) => Ok(client_cmd::run(client_cmd::budget::budget(args))),
        Command::Quote(args) => Ok(client_cmd::run(client_cmd::quote::quote(args))),
        Command::Bid(args) => Ok(client_cmd::run(client_cmd::renter::bid(args))),
        Command::Market(args) => Ok(client_cmd::run(client_cmd::market::market(args))),
        Command::Listings(args) => Ok(client_cmd::run(client_cmd::provider::listings(args))),
        Command::Earnings(args) => Ok(client_cmd::run(client_cmd::provider::earnings(args))),
        Command::Reports(args) => Ok(client_cmd::run_with_code(client_cmd::reports::reports(
            args,
        ))),
        Command::Leaderboard(args) => Ok(client_cmd::run(client_cmd::reports::leaderboard(args))),
        Command::Runs(args) => Ok(client_cmd::run(client_cmd::reports::runs(args))),
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "gpumarket", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Openapi { check, file } => openapi(check, &file),
        Command::Config {
            markdown: true,
            check,
            file,
        } => config_cmd::markdown(check, &file),
        Command::Config { .. } => config_cmd::show(&settings::load(cli.config.as_deref())?),
        Command::Serve { demo, agent } => {
            let config = settings::load(cli.config.as_deref())?;
            telemetry::init(config.server.log_format);
            runtime()?.block_on(serve(config, demo.then_some(agent)))
        }
        Command::Worker { concurrency } => {
            let config = settings::load(cli.config.as_deref())?;
            telemetry::init(config.server.log_format);
            runtime()?.block_on(work(config, concurrency))
        }
        Command::Verify(args) => Ok(runtime()?.block_on(verify_cmd::verify(args))),
        Command::LogMonitor(args) => Ok(runtime()?.block_on(transparency_monitor::monitor(args))),
        Command::Agent(args) => runtime()?.block_on(agent_cmd::agent(args, cli.config.as_deref())),
        Command::Sim {
            profile,
            listen,
            time_scale,
            api_key,
            dialect,
        } => {
            telemetry::init(app::LogFormat::Text);
            runtime()?.block_on(simulate(&profile, &listen, time_scale, api_key, &dialect))
        }
        Command::Bench(args) => {
            telemetry::init(app::LogFormat::Text);
            runtime()?.block_on(bench_cmd::bench(*args))
        }
        Command::SearchBench(args) => runtime()?.block_on(search_bench::search_bench(args)),
        Command::AvailabilityBench(args) => availability_bench::availability_bench(args),
        Command::GatewayBench(args) => {
            telemetry::init(app::LogFormat::Text);
            runtime()?.block_on(gateway_bench::gateway_bench(args))
        }
        Command::Backup { out, check } => {
            let config = settings::load(cli.config.as_deref())?;
            telemetry::init(config.server.log_format);
            runtime()?.block_on(backup(config, out, check))
        }
        Command::Restore {
            file,
            secrets_key_file,
            checkpoint,
            accept_rollback,
        } => {
            let config = settings::load(cli.config.as_deref())?;
            telemetry::init(config.server.log_format);
            let key = secrets_key_file.or_else(|| config.keys.secrets_key_file.clone());
            let options = app::operations::backup::RestoreOptions {
                key: key.as_deref(),
                checkpoint: checkpoint.as_deref(),
                accept_rollback,
            };
            runtime()?.block_on(restore(&config, &file, &options))
        }
        Command::Migrate { wait } => {
            let config = settings::load(cli.config.as_deref())?;
            telemetry::init(config.server.log_format);
            match wait {
                Some(secs) => runtime()?.block_on(wait_for_migrations(config, secs)),
                None => runtime()?.block_on(migrate(config)),
            }
        }
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// Starts `count` workers and the reconciler; returns the stop switch and their tasks.
fn start_workers(
    app: &app::App,
    count: usize,
) -> (
    tokio::sync::watch::Sender<bool>,
    Vec<tokio::task::JoinHandle<()>>,
) {
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut tasks: Vec<_> = (0..count.max(1))
        .map(|i| {
            tokio::spawn(worker::run(
                app.clone(),
                worker::worker_name(i),
                stopped.clone(),
            ))
        })
        .collect();
    tasks.push(tokio::spawn(worker::checkpoints(
        app.clone(),
        stopped.clone(),
    )));
    tasks.push(tokio::spawn(worker::liveness(app.clone(), stopped.clone())));
    tasks.push(tokio::spawn(worker::webhooks(app.clone(), stopped.clone())));
    tasks.push(tokio::spawn(worker::reconcile(app.clone(), stopped)));
    (stop, tasks)
}

/// Stops workers gracefully: a run in progress is released back to the queue.
async fn stop_workers(
    stop: tokio::sync::watch::Sender<bool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
) {
    let _ = stop.send(true);
    // One deadline for all: a deployment's grace period (`terminationGracePeriodSeconds`)
    // must cover it.
    let all = futures_util::future::join_all(tasks);
    if tokio::time::timeout(STOP_WITHIN, all).await.is_err() {
        tracing::warn!("workers did not stop within {} s", STOP_WITHIN.as_secs());
    }
}

/// How long stopping workers may take: a run in progress is handed back well within it.
const STOP_WITHIN: std::time::Duration = std::time::Duration::from_secs(30);

async fn work(config: app::Config, concurrency: usize) -> anyhow::Result<ExitCode> {
    let app = app::App::build(config, false)
        .await
        .context("starting the worker")?;
    let probes = match &app.config().verification.worker_listen {
        Some(listen) => {
            let server = api::Application::probes(app.clone(), listen)
                .with_context(|| format!("listening on {listen} (worker_listen)"))?;
            tracing::info!(address = %server.local_addr(), "worker probes: /healthz, /readyz, /metrics");
            let handle = server.handle();
            tokio::spawn(server.run());
            Some(handle)
        }
        None => None,
    };
    let (stop, tasks) = start_workers(&app, concurrency);
    shutdown_signal().await;
    tracing::info!("stopping: releasing runs in progress");
    stop_workers(stop, tasks).await;
    if let Some(probes) = probes {
        probes.stop(true).await;
    }
    tracing::info!("stopped");
    Ok(ExitCode::SUCCESS)
}

/// SIGINT or SIGTERM.
async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}

/// `demo`: with the demo (and whether its agent is asked to make real accounts).
async fn serve(mut config: app::Config, demo: Option<bool>) -> anyhow::Result<ExitCode> {
    if demo.is_some() {
        // The demo's engine is a simulator on this machine.
        config.verification.engine_allow_private = true;
    }
    let migrate = config.database.migrate_on_start;
    let app = app::App::build(config, migrate)
        .await
        .context("starting the application")?;
    let backend = app.backend_name();
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    let server = api::Application::build(app.clone(), workers)
        .with_context(|| format!("listening on {}", app.config().server.listen))?;
    let in_process = app.config().runs_worker_in_process();
    tracing::info!(
        address = %server.local_addr(),
        database = backend,
        redis = app.config().redis_url().is_some(),
        worker_in_process = in_process,
        "gpumarket is serving; try GET /healthz, /readyz and /docs/"
    );
    let workers = in_process.then(|| start_workers(&app, 1));
    // Without an in-process worker, this replica signs the log's checkpoints itself (one per
    // tree size wins, whoever signs it).
    let (_checkpointer_stop, checkpointer_stopped) = tokio::sync::watch::channel(false);
    if !in_process {
        tokio::spawn(worker::checkpoints(app.clone(), checkpointer_stopped));
    }
    if let Some(agent) = demo {
        let address = server.local_addr();
        let app = app.clone();
        tokio::spawn(async move {
            if let Err(e) = demo::start(app, address, agent).await {
                tracing::error!(error = %format!("{e:#}"), "the demo could not start");
            }
        });
    }
    server.run().await.context("serving HTTP")?;
    if let Some((stop, tasks)) = workers {
        stop_workers(stop, tasks).await;
    }
    tracing::info!("stopped");
    Ok(ExitCode::SUCCESS)
}

async fn simulate(
    profile: &str,
    listen: &str,
    time_scale: f64,
    api_key: Option<String>,
    dialect: &str,
) -> anyhow::Result<ExitCode> {
    let mut profile = sim::Profile::load(profile)?;
    if api_key.is_some() {
        profile.api_key = api_key;
    }
    profile.dialect =
        sim::Dialect::of_name(dialect).with_context(|| format!("unknown dialect {dialect:?}"))?;
    let server = sim::serve(profile.clone(), listen, time_scale)
        .with_context(|| format!("starting the simulated engine on {listen}"))?;
    tracing::info!(
        address = %server.local_addr(),
        model = %profile.model,
        kv_cache_tokens = profile.kv_cache_tokens(),
        max_model_len = profile.max_model_len,
        time_scale,
        "simulated vLLM engine is serving"
    );
    server.run().await.context("serving the simulated engine")?;
    Ok(ExitCode::SUCCESS)
}

async fn migrate(config: app::Config) -> anyhow::Result<ExitCode> {
    let applied = app::operations::database::migrate(config.database_url())
        .await
        .context("applying migrations")?;
    tracing::info!(
        count = applied.len(),
        latest = applied.last().map(String::as_str).unwrap_or("none"),
        "migrations applied"
    );
    Ok(ExitCode::SUCCESS)
}

/// `backup --out FILE` or `backup --check FILE`: what it finds is its output.
#[allow(clippy::print_stderr)]
async fn backup(
    config: app::Config,
    out: Option<std::path::PathBuf>,
    check: Option<std::path::PathBuf>,
) -> anyhow::Result<ExitCode> {
    use app::operations::backup;
    if let Some(out) = out {
        if let Err(e) = backup::backup(config.database_url(), &out).await {
            eprintln!("backup: {e}");
            return Ok(ExitCode::from(2));
        }
        println!("backed up to {}", out.display());
        return Ok(ExitCode::SUCCESS);
    }
    let Some(file) = check else {
        return Ok(ExitCode::from(2));
    };
    let key = config.keys.secrets_key_file.clone();
    let checked = match backup::check_backup(&file, key.as_deref(), config.database_url()).await {
        Ok(checked) => checked,
        Err(e) => {
            eprintln!("backup --check: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    Ok(print_checked(&file, &checked))
}

/// What a check read and found; exit 0 when every check holds, else 1.
fn print_checked(file: &std::path::Path, checked: &app::operations::backup::Checked) -> ExitCode {
    println!(
        "{}: {} reports, a log of {} leaves with {} checkpoints, {} bookings' ledgers",
        file.display(),
        checked.reports,
        checked.log_size,
        checked.checkpoints,
        checked.bookings
    );
    for problem in &checked.problems {
        println!("problem: {problem}");
    }
    if checked.problems.is_empty() {
        println!("every check holds");
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// `restore FILE [--secrets-key-file F] [--checkpoint F [--accept-rollback]]`.
#[allow(clippy::print_stderr)]
async fn restore(
    config: &app::Config,
    file: &std::path::Path,
    options: &app::operations::backup::RestoreOptions<'_>,
) -> anyhow::Result<ExitCode> {
    match app::operations::backup::restore(file, config.database_url(), options).await {
        Ok(checked) => {
            let code = print_checked(file, &checked);
            if !checked.problems.is_empty() {
                println!("nothing restored");
                return Ok(code);
            }
            println!("restored into the configured database (GPUMARKET_DATABASE_URL)");
            match &checked.rollback {
                Some(rollback) if rollback.accepted => println!(
                    "the restored log holds {} leaves, behind the published checkpoint's {}: \
                     the next server to start logs a signed rollback statement",
                    rollback.restored, rollback.published
                ),
                Some(rollback) => println!(
                    "signing is held: the restored log holds {} leaves, behind the published \
                     checkpoint's {}; the server signs nothing until the rollback is accepted \
                     (restore again with --accept-rollback)",
                    rollback.restored, rollback.published
                ),
                None => {}
            }
            Ok(code)
        }
        Err(e) => {
            eprintln!("restore: {e}");
            Ok(ExitCode::from(2))
        }
    }
}

/// `migrate --wait`: polls until nothing this binary knows is unapplied, or the deadline.
async fn wait_for_migrations(config: app::Config, secs: u64) -> anyhow::Result<ExitCode> {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        let pending =
            match app::operations::database::unapplied_migrations(config.database_url()).await {
                Ok(pending) => pending,
                // The database may not answer yet (it starts beside us): wait for it too.
                Err(e) => vec![format!("(the database: {e})")],
            };
        if pending.is_empty() {
            tracing::info!("every migration of this release is applied");
            return Ok(ExitCode::SUCCESS);
        }
        if tokio::time::Instant::now() >= deadline {
            tracing::error!(pending = %pending.join(", "), "migrations still unapplied at the deadline");
            return Ok(ExitCode::FAILURE);
        }
        tracing::info!(first = %pending[0], count = pending.len(), "waiting for migrations");
        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    }
}

fn openapi(check: bool, file: &std::path::Path) -> anyhow::Result<ExitCode> {
    let generated = api::openapi_json().context("serialising the OpenAPI document")?;
    config_cmd::print_or_check(&generated, check, file, "openapi")
}
