//! How the simulated engine speaks: the `/metrics` names, label sets and value formatting of
//! the engine it stands in for, one module per dialect — the simulator's side of the
//! harness's engine seam (`bench::engine`): vLLM's, and llama.cpp's (its metrics, `/props`
//! and `/tokenize`; its streams are still vLLM's shape).

use crate::engine::Stats;
use crate::profile::{Dialect, Profile};

pub(crate) mod llamacpp;
mod vllm;

impl Dialect {
    /// `/metrics` in the Prometheus text format, as this dialect's engine prints it.
    pub fn render_metrics(self, profile: &Profile, stats: &Stats) -> String {
        match self {
            Self::Vllm => vllm::render(profile, stats),
            Self::Llamacpp => llamacpp::render(stats),
        }
    }
}
