//! `gpumarket`: the one binary. Parses the command line and hands off.

mod agent_cmd;
mod availability_bench;
mod bench_cmd;
mod cli;
mod client_cmd;
mod config_cmd;
mod demo;
mod gateway_bench;
mod search_bench;
mod settings;
mod telemetry;
mod transparency_monitor;
mod verify_cmd;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc rather than glibc's malloc: a search page allocates per hit, and glibc's
/// allocator was a quarter of a search's instructions (`docs/src/measurements.md`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    outbound::install_crypto_provider();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            // `verify` and `log-monitor` (and `reports verify`) promise exit code 4 for a usage
            // error, the client commands 64 (EX_USAGE); clap's own is 2.
            let args: Vec<String> = std::env::args().skip(1).collect();
            let command = subcommand(args.iter().cloned());
            let own_codes = matches!(command.as_deref(), Some("verify" | "log-monitor"))
                || (command.as_deref() == Some("reports") && args.iter().any(|a| a == "verify"));
            let client = matches!(
                command.as_deref(),
                Some(
                    "login"
                        | "logout"
                        | "search"
                        | "offers"
                        | "show"
                        | "book"
                        | "bookings"
                        | "access"
                        | "ssh"
                        | "ssh-keys"
                        | "budget"
                        | "listings"
                        | "earnings"
                        | "reports"
                        | "leaderboard"
                        | "runs"
                )
            );
            return match err.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::SUCCESS
                }
                _ if own_codes => ExitCode::from(4),
                _ if client => ExitCode::from(64),
                _ => ExitCode::from(2),
            };
        }
    };
    match cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            // `{:#}` prints the whole cause chain on one line.
            #[allow(clippy::print_stderr)]
            {
                eprintln!("error: {err:#}");
            }
            ExitCode::FAILURE
        }
    }
}

/// The subcommand named on a command line (skipping the global `--config FILE`).
fn subcommand(mut args: impl Iterator<Item = String>) -> Option<String> {
    while let Some(arg) = args.next() {
        if arg == "--config" {
            args.next();
        } else if !arg.starts_with('-') {
            return Some(arg);
        }
    }
    None
}
