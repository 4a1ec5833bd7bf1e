//! The command line: one subcommand per way of running gpumarket.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

use crate::{bench_cmd, settings, telemetry};

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
    /// Serve the HTTP API (embedded by default: a SQLite file in the working directory).
    Serve,
    /// Apply pending database migrations to GPUMARKET_DATABASE_URL and exit.
    Migrate,
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
    },
    /// Run the standard benchmark matrix against a vLLM-compatible server.
    Bench(bench_cmd::BenchArgs),
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
        Command::Openapi { check, file } => openapi(check, &file),
        Command::Serve => {
            let config = settings::load(cli.config.as_deref())?;
            telemetry::init(config.log_format);
            runtime()?.block_on(serve(config))
        }
        Command::Sim {
            profile,
            listen,
            time_scale,
        } => {
            telemetry::init(app::LogFormat::Text);
            runtime()?.block_on(simulate(&profile, &listen, time_scale))
        }
        Command::Bench(args) => {
            telemetry::init(app::LogFormat::Text);
            runtime()?.block_on(bench_cmd::bench(args))
        }
        Command::Migrate => {
            let config = settings::load(cli.config.as_deref())?;
            telemetry::init(config.log_format);
            runtime()?.block_on(migrate(config))
        }
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

async fn serve(config: app::Config) -> anyhow::Result<ExitCode> {
    let app = app::App::build(config, true)
        .await
        .context("starting the application")?;
    let backend = match app.db().backend() {
        app::Backend::Postgres => "postgres",
        app::Backend::Sqlite => "sqlite",
    };
    let workers = std::thread::available_parallelism().map_or(2, usize::from);
    let server = api::Application::build(app.clone(), workers)
        .with_context(|| format!("listening on {}", app.config().listen))?;
    tracing::info!(
        address = %server.local_addr(),
        database = backend,
        redis = app.config().redis_url().is_some(),
        "gpumarket is serving; try GET /healthz, /readyz and /docs/"
    );
    server.run().await.context("serving HTTP")?;
    tracing::info!("stopped");
    Ok(ExitCode::SUCCESS)
}

async fn simulate(profile: &str, listen: &str, time_scale: f64) -> anyhow::Result<ExitCode> {
    let profile = sim::Profile::load(profile)?;
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
    let db = store::Db::connect(config.database_url())
        .await
        .context("connecting to the database")?;
    db.migrate().await.context("applying migrations")?;
    let applied = db.applied_migrations().await?;
    tracing::info!(
        count = applied.len(),
        latest = applied.last().map(String::as_str).unwrap_or("none"),
        "migrations applied"
    );
    db.close().await?;
    Ok(ExitCode::SUCCESS)
}

fn openapi(check: bool, file: &std::path::Path) -> anyhow::Result<ExitCode> {
    let generated = api::openapi_json().context("serialising the OpenAPI document")?;
    if !check {
        print!("{generated}");
        return Ok(ExitCode::SUCCESS);
    }
    let committed =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    if committed == generated {
        println!("{} is up to date", file.display());
        Ok(ExitCode::SUCCESS)
    } else {
        anyhow::bail!(
            "{} differs from the document the code generates; run `cargo run -- openapi > {}` and commit it",
            file.display(),
            file.display()
        )
    }
}
