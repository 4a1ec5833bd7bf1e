//! Logs: human-readable or JSON lines, filtered by `RUST_LOG` (default `info`).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

pub fn init(format: app::LogFormat) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,sea_orm=warn,actix_server=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colours for a terminal only: a log file or collector gets no escape codes.
        .with_ansi(std::io::stderr().is_terminal());
    match format {
        app::LogFormat::Json => builder.json().flatten_event(true).init(),
        app::LogFormat::Text => builder.init(),
    }
}
