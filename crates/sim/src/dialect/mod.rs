//! How the simulated engine speaks: the `/metrics` names, label sets and value formatting of
//! the engine it stands in for, one module per dialect — the simulator's side of the
//! harness's engine seam (`bench::engine`): vLLM's, llama.cpp's, SGLang's and TGI's (their
//! metrics, info endpoints and `/tokenize`; their streams are still vLLM's shape).

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
