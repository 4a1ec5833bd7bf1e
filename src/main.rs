//! `gpumarket`: the one binary. Parses the command line and hands off.

mod availability_bench;
mod bench_cmd;
mod cli;
mod config_cmd;
mod demo;
mod gateway_bench;
mod log_monitor;
mod search_bench;
mod settings;
mod telemetry;
mod verify_cmd;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    outbound::install_crypto_provider();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            // `verify` and `log-monitor` promise exit code 4 for a usage error; clap's own is 2.
            let own_codes = matches!(
                subcommand(std::env::args().skip(1)).as_deref(),
                Some("verify" | "log-monitor")
            );
            return match err.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ExitCode::SUCCESS
                }
                _ if own_codes => ExitCode::from(4),
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
