//! How the simulated engine speaks: the `/metrics` names, label sets and value formatting of
//! the engine it stands in for, one module per dialect — the simulator's side of the
//! harness's engine seam (`bench::engine`). Only vLLM's today.

use crate::engine::Stats;
use crate::profile::Profile;

mod vllm;

/// The engine the simulator stands in for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Dialect {
    #[default]
    Vllm,
}

impl Dialect {
    /// `/metrics` in the Prometheus text format, as this dialect's engine prints it.
    pub fn render_metrics(self, profile: &Profile, stats: &Stats) -> String {
        match self {
            Self::Vllm => vllm::render(profile, stats),
        }
    }
}
