//! What a run will do and roughly what it will cost, worked out before touching the server
//! (`gpumarket bench --dry-run`): the prefill requests, the decode cells (those over capacity
//! when the server's sizes are given), the windows' length under the window rule, and the
//! prompt tokens the server must prefill.

use std::fmt::Write;

use crate::cell;
use crate::params::{self, Parameters, PrefillMode, WindowRule};

/// The server's sizes, when known: they decide which cells are over capacity.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerSizes {
    pub kv_cache_tokens: Option<u64>,
    pub max_model_len: Option<u64>,
    /// Requests it runs at once, each in a slot of its own (llama.cpp's).
    pub slots: Option<u64>,
}

impl ServerSizes {
    /// What a server states of its sizes: the KV cache from its metrics (vLLM's
    /// `cache_config_info`), else from its info endpoint (llama.cpp's slots); a request's
    /// limit the lower of what `/v1/models` (for `model`) and the info endpoint state. With the
    /// KV cache's source.
    pub fn of(
        metrics: Option<&crate::engine::Snapshot>,
        info: &crate::client::Info,
        model: &crate::client::Model,
    ) -> (Self, Option<&'static str>) {
        let kv = metrics
            .and_then(|m| m.cache.as_ref())
            .and_then(|c| c.kv_tokens())
            .or(info.capacity.kv_tokens);
        let max_model_len = match (model.max_model_len, info.capacity.max_model_len) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let sizes = Self {
            kv_cache_tokens: kv.map(|(tokens, _)| tokens),
            max_model_len,
            slots: info.capacity.slots,
        };
        (sizes, kv.map(|(_, source)| source))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub prefill: Vec<PlannedPrefill>,
    pub cells: Vec<PlannedCell>,
    /// Seconds of decode windows: the least the window rule allows and the most.
    pub window_s: (f64, f64),
    /// Prompt tokens the server prefills cold: prefill measurements and decode warm-ups.
    pub prefill_tokens: u64,
    /// Seconds of idleness any server needs: preflight's hold, the hold before each cold
    /// prefill that follows decode cells, and settling between cells.
    pub fixed_s: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlannedPrefill {
    pub context_tokens: u64,
    pub requests: u64,
    /// Measured by the context's decode warm-up rather than by requests of its own.
    pub from_warmup: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlannedCell {
    pub context_tokens: u64,
    pub concurrency: u64,
    /// Why the cell will not run, when the sizes say so.
    pub over_capacity: Option<String>,
}

/// Seconds every run cell spends settling between cells, at least (polls of an idle server).
const SETTLE_S: f64 = 0.1;

/// The plan of a run with `params` against a server of `sizes`.
pub fn plan(params: &Parameters, sizes: ServerSizes) -> Plan {
    let cells: Vec<PlannedCell> = params
        .contexts
        .iter()
        .flat_map(|&context| {
            params
                .concurrency
                .iter()
                .map(move |&concurrency| PlannedCell {
                    context_tokens: context,
                    concurrency,
                    over_capacity: cell::over_capacity(
                        concurrency,
                        context,
                        params.max_output,
                        sizes.kv_cache_tokens,
                        sizes.max_model_len,
                        sizes.slots,
                    ),
                })
        })
        .collect();
    let prefill: Vec<PlannedPrefill> = params
        .prefill_contexts
        .iter()
        .map(|&context| {
            let from_warmup =
                params.prefill_mode == PrefillMode::Warmup && params.contexts.contains(&context);
            let requests = match params.prefill_mode {
                PrefillMode::Repeats => u64::from(params.prefill_repeats),
                PrefillMode::Warmup => 1,
            };
            let fits = cell::over_capacity(
                1,
                context,
                1,
                sizes.kv_cache_tokens,
                sizes.max_model_len,
                sizes.slots,
            )
            .is_none();
            PlannedPrefill {
                context_tokens: context,
                requests: if fits { requests } else { 0 },
                from_warmup,
            }
        })
        .collect();
    let run = cells.iter().filter(|c| c.over_capacity.is_none()).count() as f64;
    let shortest = match params.window_rule {
        WindowRule::Adaptive => params.measure_secs * params::adaptive::MIN_SHARE,
        WindowRule::Fixed => params.measure_secs,
    };
    // Each decode context warms as many distinct prompts as its widest cell that runs
    // (one in shared-prefix mode), less the one its warm-up prefill already warmed.
    let warmups: u64 = params
        .contexts
        .iter()
        .map(|&context| {
            let widest = cells
                .iter()
                .filter(|c| c.context_tokens == context && c.over_capacity.is_none())
                .map(|c| {
                    if params.shared_prefix {
                        1
                    } else {
                        c.concurrency
                    }
                })
                .max()
                .unwrap_or(0);
            let prewarmed = prefill
                .iter()
                .any(|p| p.context_tokens == context && p.from_warmup && p.requests > 0);
            context * widest.saturating_sub(u64::from(prewarmed))
        })
        .sum();
    let measured: u64 = prefill.iter().map(|p| p.context_tokens * p.requests).sum();
    // Prefills measured by a warm-up after the first decode context follow decode cells.
    let holds = prefill
        .iter()
        .filter(|p| p.from_warmup && p.requests > 0)
        .filter(|p| params.contexts.first() != Some(&p.context_tokens))
        .count() as f64;
    Plan {
        window_s: (run * shortest, run * params.measure_secs),
        prefill_tokens: measured + warmups,
        fixed_s: params.idle_secs * (1.0 + holds) + 2.0 * SETTLE_S * run,
        prefill,
        cells,
    }
}

impl Plan {
    /// The run's duration, least and most, in seconds, given the server's cold prefill rate
    /// (prompt tokens per second). Waits for readiness and saturation (2 s per queued cell)
    /// come on top and cannot be known before the run.
    pub fn estimate_s(&self, prefill_tok_s: f64) -> (f64, f64) {
        let prefill = self.prefill_tokens as f64 / prefill_tok_s.max(1e-9);
        (
            self.fixed_s + prefill + self.window_s.0,
            self.fixed_s + prefill + self.window_s.1,
        )
    }

    /// The plan as the command line prints it.
    pub fn text(&self, params: &Parameters, prefill_tok_s: Option<f64>) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "plan ({} profile; prefill_mode {}, window_rule {}):",
            params.profile,
            params.prefill_mode.name(),
            params.window_rule.name()
        );
        for p in &self.prefill {
            let how = match (p.requests, p.from_warmup) {
                (0, _) => "over capacity".to_owned(),
                (_, true) => "measured by the decode warm-up".to_owned(),
                (n, false) => format!("{n} cold request(s)"),
            };
            let _ = writeln!(out, "  prefill {:>6}: {how}", p.context_tokens);
        }
        let run: Vec<&PlannedCell> = self
            .cells
            .iter()
            .filter(|c| c.over_capacity.is_none())
            .collect();
        let _ = writeln!(
            out,
            "  decode cells: {} to run, {} over capacity",
            run.len(),
            self.cells.len() - run.len()
        );
        for c in &self.cells {
            let _ = writeln!(
                out,
                "    {:>6} x {:>3}: {}",
                c.context_tokens,
                c.concurrency,
                c.over_capacity.as_deref().unwrap_or("runs")
            );
        }
        let _ = writeln!(
            out,
            "  decode windows: {:.0} to {:.0} s; prompt tokens to prefill cold: {}",
            self.window_s.0, self.window_s.1, self.prefill_tokens
        );
        match prefill_tok_s {
            Some(rate) => {
                let (least, most) = self.estimate_s(rate);
                let _ = writeln!(
                    out,
                    "  estimate at {rate:.0} prompt tok/s: {least:.0} to {most:.0} s, \
                     plus readiness and 2 s per queued cell"
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "  estimate: {:.0} to {:.0} s plus the prefill time of those tokens \
                     (--prefill-tok-s gives it), readiness, and 2 s per queued cell",
                    self.fixed_s + self.window_s.0,
                    self.fixed_s + self.window_s.1
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes() -> ServerSizes {
        ServerSizes {
            kv_cache_tokens: Some(4 * (1024 + 256)),
            max_model_len: Some(4096),
            slots: None,
        }
    }

    #[test]
    fn cost_rules_plan_one_prefill_request_and_shorter_windows() {
        let quick = params::quick();
        let cheap = plan(&quick, sizes());
        // 0 and 1024 × 1, 2, 4: every cell fits 4 × 1280 tokens.
        assert_eq!(
            cheap
                .cells
                .iter()
                .filter(|c| c.over_capacity.is_none())
                .count(),
            6
        );
        assert_eq!(
            cheap.prefill,
            vec![PlannedPrefill {
                context_tokens: 1024,
                requests: 1,
                from_warmup: true
            }]
        );
        assert_eq!(cheap.window_s, (6.0, 18.0));
        // Warm-ups of prompts 1..3 of 1024, plus the one measured by the warm-up.
        assert_eq!(cheap.prefill_tokens, 4 * 1024);
        // Preflight's hold, the hold before the 1K prefill (after the 0 cells), settling.
        assert!((cheap.fixed_s - (2.0 * 0.5 + 6.0 * 0.2)).abs() < 1e-9);

        let old = Parameters {
            prefill_mode: PrefillMode::Repeats,
            window_rule: WindowRule::Fixed,
            ..quick.clone()
        };
        let dear = plan(&old, sizes());
        assert_eq!(dear.window_s, (18.0, 18.0));
        assert_eq!(dear.prefill[0].requests, 3);
        assert_eq!(dear.prefill_tokens, 3 * 1024 + 4 * 1024);
        let (least, most) = dear.estimate_s(1024.0);
        assert!(least == most && most > cheap.estimate_s(1024.0).1);
        assert!(dear.text(&old, None).contains("3 cold request(s)"));
    }

    #[test]
    fn over_capacity_cells_are_named_and_not_counted() {
        let small = ServerSizes {
            kv_cache_tokens: Some(2 * (1024 + 256)),
            max_model_len: None,
            slots: None,
        };
        let p = plan(&params::quick(), small);
        let skipped: Vec<_> = p
            .cells
            .iter()
            .filter(|c| c.over_capacity.is_some())
            .map(|c| (c.context_tokens, c.concurrency))
            .collect();
        // 4 × (0 + 256) fits; 4 × (1024 + 256) does not.
        assert_eq!(skipped, vec![(1024, 4)]);
        assert_eq!(p.window_s, (5.0, 15.0));
        assert!(
            p.text(&params::quick(), Some(1000.0))
                .contains("estimate at 1000")
        );
    }
}
