//! The standard benchmark matrix (`shared/design/benchmark-standard.md`), against any
//! OpenAI-compatible server whose dialect it speaks ([`engine`]): the streaming client, the
//! `/metrics` and `/tokenize` readers, prompt sizing, the cell runner, the figures and the
//! report. No web server, no database.

pub mod audit;
pub mod bounds;
pub mod cell;
pub mod client;
pub mod engine;
pub mod params;
pub mod plan;
pub mod prompt;
pub mod report;
mod run;
pub mod stats;
pub mod wakeup;

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
    /// It answers, but not like an OpenAI-compatible server of a dialect the harness speaks.
    #[error("the server does not look like an engine the harness measures: {0}")]
    Unsupported(String),
    #[error("{0}")]
    UnknownModel(String),
    /// It speaks another engine's dialect than the listing states.
    #[error("{0}")]
    Mismatch(String),
    /// It answered a request with an error.
    #[error("the engine refused: {0}")]
    Engine(String),
    /// The outbound rules do not allow connecting to it.
    #[error("{0}")]
    Refused(String),
    /// The run was stopped (cancelled, shut down, or past its deadline) mid-request.
    #[error("the run was stopped")]
    Stopped,
}

impl BenchError {
    /// A stable code for why a run failed, for public views (the detail stays private).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Setup(_) => "setup_failed",
            Self::Unreachable(_) => "engine_unreachable",
            // Runs recorded before the engine seam keep their `engine_not_vllm`.
            Self::Unsupported(_) => "engine_unsupported",
            Self::UnknownModel(_) => "engine_model_missing",
            Self::Mismatch(_) => "engine_mismatch",
            Self::Engine(_) => "engine_error",
            Self::Refused(_) => "address_not_allowed",
            Self::Stopped => "stopped",
        }
    }
}
