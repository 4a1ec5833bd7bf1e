//! `gpumarket config`: the configuration in force (secrets shown only as set), or with
//! `--markdown` the configuration reference generated from `app::Config`'s doc comments —
//! the book's `docs/src/configuration.md`, which `--check` compares.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

/// Prints the effective configuration as JSON.
pub fn show(config: &app::Config) -> anyhow::Result<ExitCode> {
    let shown = serde_json::to_string_pretty(config).context("serialising the configuration")?;
    println!("{shown}");
    Ok(ExitCode::SUCCESS)
}

/// Prints the reference page, or with `check` fails when `file` differs from it.
pub fn markdown(check: bool, file: &Path) -> anyhow::Result<ExitCode> {
    print_or_check(
        &app::Config::reference_markdown(),
        check,
        file,
        "config --markdown",
    )
}

/// Prints `generated`, or with `check` fails when the committed `file` differs from it,
/// naming the `command` (of `cargo run --`) that writes it.
pub fn print_or_check(
    generated: &str,
    check: bool,
    file: &Path,
    command: &str,
) -> anyhow::Result<ExitCode> {
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
            "{} differs from what the code generates; run `cargo run -- {command} > {}` and commit it",
            file.display(),
            file.display()
        )
    }
}
