//! How the simulated engine speaks: the `/metrics` names, label sets and value formatting of
//! the engine it stands in for, one module per dialect — the simulator's side of the
//! harness's engine seam (`bench::engine`): vLLM's, llama.cpp's, SGLang's and TGI's — their
//! metrics, info endpoints, `/tokenize` and streams, each written from the engine's source.

use crate::engine::Stats;
use crate::profile::{Dialect, Profile};

pub(crate) mod llamacpp;
pub(crate) mod sglang;
pub(crate) mod tgi;
mod vllm;

impl Dialect {
    /// `/metrics` in the Prometheus text format, as this dialect's engine prints it.
    pub fn render_metrics(self, profile: &Profile, stats: &Stats) -> String {
        match self {
            Self::Vllm => vllm::render(profile, stats),
            Self::LlamaCpp => llamacpp::render(stats),
            Self::Sglang => sglang::render(profile, stats),
            Self::Tgi => tgi::render(stats),
        }
    }
}

/// What one streamed chunk says, whichever dialect writes it (SGLang's and TGI's writers;
/// vLLM's and llama.cpp's have their own, older ones).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Piece<'a> {
    /// A chat's first chunk: the role.
    Role,
    /// Tokens' text; `finish` when the answer ends with them; the running usage when asked.
    Text {
        text: &'a str,
        finish: bool,
        usage: Option<Counts>,
    },
    /// The answer's end in a chunk of its own.
    Finish { usage: Option<Counts> },
    /// The usage-only chunk that ends a stream asked to include usage.
    Usage(Counts),
}

/// A stream's token counts so far.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Counts {
    pub prompt: usize,
    pub completion: usize,
}

/// What every chunk of one stream repeats.
pub(crate) struct Head<'a> {
    pub chat: bool,
    pub id: &'a str,
    pub created: u64,
    pub model: &'a str,
    pub version: &'a str,
}
