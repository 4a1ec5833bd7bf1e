//! The standard benchmark matrix (`shared/design/benchmark-standard.md`), against any
//! vLLM-compatible server: the streaming client, the `/metrics` and `/tokenize` readers,
//! prompt sizing, the cell runner, the figures and the report. No web server, no database.

pub mod cell;
pub mod client;
pub mod params;
pub mod prom;
pub mod prompt;
pub mod report;
mod run;
pub mod sse;
pub mod stats;

pub use params::Parameters;
pub use report::{DecodeCell, PrefillEntry, Report, Status};
pub use run::{Options, Progress, run};

/// Why a run could not be made. Problems inside a cell do not end the run; they make the
/// cell `invalid` with the reason.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{0}")]
    Setup(String),
    /// The server does not answer at all.
    #[error("the engine is unreachable: {0}")]
    Unreachable(String),
    /// It answers, but not like an OpenAI-compatible (vLLM) server.
    #[error("the server does not look like vLLM: {0}")]
    NotVllm(String),
    #[error("{0}")]
    UnknownModel(String),
    /// It answered a request with an error.
    #[error("the engine refused: {0}")]
    Engine(String),
}
