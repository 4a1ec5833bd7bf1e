//! `gpumarket`: the one binary. Parses the command line and hands off.

mod availability_bench;
mod bench_cmd;
mod cli;
mod demo;
mod search_bench;
mod settings;
mod telemetry;
mod verify_cmd;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    bench::client::install_crypto_provider();
    let cli = cli::Cli::parse();
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
