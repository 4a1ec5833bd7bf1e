//! Goodput at a service-level objective: the standard's "Derived figures"
//! (`design/benchmark-standard.md`), computed from figures every `standard/2` report carries.
//!
//! An SLO is (context K, TTFT p99 ≤ X ms, stutter p99 ≤ Y ms). At concurrency C, with K' the
//! smallest measured decode context ≥ K:
//! - TTFT at the SLO (*estimated*) = the decode cell (K', C)'s `ttft_ms_p99` + K ÷ the prefill
//!   rate measured at the smallest prefill context ≥ K × 1000;
//! - stutter = the cell's `itl_ms_p99`;
//! - goodput = the largest C whose cell at K' is valid and meets both limits (the users one
//!   machine serves at that SLO).

use crate::ValidationError;

/// What users feel: prompts of up to `context` tokens, the first token within `ttft_p99_ms`
/// and no gap between tokens longer than `itl_p99_ms`, for 99 in 100.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slo {
    context: u64,
    ttft_p99_ms: f64,
    itl_p99_ms: f64,
}

/// The longest context an SLO may ask for (the catalog's longest models are far below).
pub const MAX_CONTEXT: u64 = 10_000_000;

impl Slo {
    pub fn new(context: u64, ttft_p99_ms: f64, itl_p99_ms: f64) -> Result<Self, ValidationError> {
        if context > MAX_CONTEXT {
            return Err(ValidationError::new(
                "context",
                format!("must be at most {MAX_CONTEXT} tokens"),
            ));
        }
        for (field, limit) in [("ttft_p99_ms", ttft_p99_ms), ("itl_p99_ms", itl_p99_ms)] {
            if !(limit.is_finite() && limit > 0.0) {
                return Err(ValidationError::new(
                    field,
                    "must be a positive number of ms",
                ));
            }
        }
        Ok(Self {
            context,
            ttft_p99_ms,
            itl_p99_ms,
        })
    }

    pub fn context(&self) -> u64 {
        self.context
    }

    pub fn ttft_p99_ms(&self) -> f64 {
        self.ttft_p99_ms
    }

    pub fn itl_p99_ms(&self) -> f64 {
        self.itl_p99_ms
    }
}

/// A decode cell's figures, as a report (or the search projection) carries them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecodeCell {
    pub context_tokens: u64,
    pub concurrency: u64,
    /// The cell's status is `valid`.
    pub valid: bool,
    pub total_tok_s: Option<f64>,
    pub ttft_ms_p99: Option<f64>,
    pub ttft_samples: Option<u64>,
    pub itl_ms_p99: Option<f64>,
}

/// A measured prefill rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrefillRate {
    pub context_tokens: u64,
    pub prompt_tok_s: f64,
}

/// The load at which a machine meets an SLO, and what it shows there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Goodput {
    /// Users (streams) one machine serves at the SLO.
    pub users: u64,
    /// The measured context the figures come from (K').
    pub context_tokens: u64,
    /// TTFT at the SLO: estimated (the cell's TTFT plus a fresh prompt's prefill).
    pub ttft_ms_estimated: f64,
    /// The samples behind the cell's TTFT p99.
    pub ttft_samples: Option<u64>,
    /// Stutter: the cell's inter-token gap p99.
    pub itl_ms_p99: f64,
    /// The cell's total output tok/s.
    pub total_tok_s: f64,
}

/// Why a machine cannot meet an SLO at any measured load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Unmet {
    /// No decode context of at least the SLO's was measured.
    ContextNotMeasured { longest: Option<u64> },
    /// No prefill context of at least the SLO's was measured: a fresh prompt's time is unknown.
    PrefillNotMeasured,
    /// No valid cell at that context carries the percentiles.
    NoValidCell { context_tokens: u64 },
    /// The first token comes too late even for one user: the best estimated TTFT.
    TtftTooSlow { best_ms: f64 },
    /// Tokens stutter too long even for one user: the best stutter among cells whose TTFT holds.
    StutterTooLong { best_ms: f64 },
}

impl Unmet {
    /// A stable code for APIs.
    pub fn code(&self) -> &'static str {
        match self {
            Unmet::ContextNotMeasured { .. } => "context_not_measured",
            Unmet::PrefillNotMeasured => "prefill_not_measured",
            Unmet::NoValidCell { .. } => "no_valid_cell",
            Unmet::TtftTooSlow { .. } => "ttft_too_slow",
            Unmet::StutterTooLong { .. } => "stutter_too_long",
        }
    }
}

/// The goodput of a machine whose report carries `decode` and `prefill`, at `slo`.
pub fn goodput(
    slo: &Slo,
    decode: &[DecodeCell],
    prefill: &[PrefillRate],
) -> Result<Goodput, Unmet> {
    let Some(context) = decode
        .iter()
        .map(|c| c.context_tokens)
        .filter(|&k| k >= slo.context)
        .min()
    else {
        return Err(Unmet::ContextNotMeasured {
            longest: decode.iter().map(|c| c.context_tokens).max(),
        });
    };
    // A fresh prompt of K tokens, at the rate measured for the smallest prefill context ≥ K.
    let prefill_ms = if slo.context == 0 {
        0.0
    } else {
        let rate = prefill
            .iter()
            .filter(|p| p.context_tokens >= slo.context && p.prompt_tok_s > 0.0)
            .min_by_key(|p| p.context_tokens)
            .ok_or(Unmet::PrefillNotMeasured)?;
        slo.context as f64 / rate.prompt_tok_s * 1000.0
    };
    let judged: Vec<Goodput> = decode
        .iter()
        .filter(|c| c.context_tokens == context && c.valid)
        .filter_map(|c| {
            Some(Goodput {
                users: c.concurrency,
                context_tokens: context,
                ttft_ms_estimated: c.ttft_ms_p99? + prefill_ms,
                ttft_samples: c.ttft_samples,
                itl_ms_p99: c.itl_ms_p99?,
                total_tok_s: c.total_tok_s?,
            })
        })
        .collect();
    if judged.is_empty() {
        return Err(Unmet::NoValidCell {
            context_tokens: context,
        });
    }
    let ttft_holds = |g: &&Goodput| g.ttft_ms_estimated <= slo.ttft_p99_ms;
    let stutter_holds = |g: &&Goodput| g.itl_ms_p99 <= slo.itl_p99_ms;
    if let Some(best) = judged
        .iter()
        .filter(ttft_holds)
        .filter(stutter_holds)
        .max_by_key(|g| g.users)
    {
        return Ok(*best);
    }
    let best = |values: &mut dyn Iterator<Item = f64>| values.fold(f64::INFINITY, f64::min);
    let holding: Vec<f64> = judged
        .iter()
        .filter(ttft_holds)
        .map(|g| g.itl_ms_p99)
        .collect();
    if holding.is_empty() {
        Err(Unmet::TtftTooSlow {
            best_ms: best(&mut judged.iter().map(|g| g.ttft_ms_estimated)),
        })
    } else {
        Err(Unmet::StutterTooLong {
            best_ms: best(&mut holding.into_iter()),
        })
    }
}

/// Cost per user-hour at a load: the machine's price per hour over the users it serves.
pub fn cost_per_user_hour(price_per_hour: i64, users: u64) -> Option<f64> {
    (users > 0).then(|| price_per_hour as f64 / users as f64)
}

/// The most users one SLO query may ask for.
pub const MAX_USERS: u64 = 10_000;

/// How many offers a plan is chosen from at most: the cheapest per user-hour.
pub const MAX_PLAN_OFFERS: usize = 512;

/// An offer a plan may take whole: the machine's price per hour (minor units) and the users
/// it serves at the SLO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanOffer {
    pub price_per_hour: i64,
    pub users: u64,
}

/// The cheapest set of `offers` whose users add up to at least `users`, as indexes in
/// ascending order; `None` when all of them together serve fewer.
///
/// Exact, not greedy: taking offers by cost per user-hour can overpay (for 50 users, 40 at
/// 4.00 and 10 at 1.50 cost 5.50, where greedy takes the 40 and then 50 at 6.00, paying 10.00).
/// A minimum-cost cover by dynamic programming over the users served so far (capped at
/// `users`): O(offers × users) steps and bits. Among equally cheap sets it takes the one with
/// fewer machines; the result depends only on the offers and their order.
pub fn cheapest_plan(offers: &[PlanOffer], users: u64) -> Option<Vec<usize>> {
    let target = usize::try_from(users).ok()?;
    // (price per hour, machines) of the cheapest set reaching each number of users.
    let mut best: Vec<(i64, u32)> = vec![(i64::MAX, u32::MAX); target + 1];
    best[0] = (0, 0);
    let words = (target + 1).div_ceil(64);
    // took[i·words + v/64] bit v: offer i made the best set for v; from_below[i]: the state
    // it came from when it reached `target` (every larger sum is capped there).
    let mut took = vec![0u64; offers.len() * words];
    let mut from_below = vec![0usize; offers.len()];
    for (i, offer) in offers.iter().enumerate() {
        let gain = usize::try_from(offer.users.min(users)).unwrap_or(target);
        if gain == 0 {
            continue;
        }
        // Downwards, so each state is extended from its value before this offer.
        for u in (0..target).rev() {
            let (price, machines) = best[u];
            if price == i64::MAX {
                continue;
            }
            let v = (u + gain).min(target);
            let with = (price.saturating_add(offer.price_per_hour), machines + 1);
            if with < best[v] {
                best[v] = with;
                took[i * words + v / 64] |= 1 << (v % 64);
                if v == target {
                    from_below[i] = u;
                }
            }
        }
    }
    if best[target].0 == i64::MAX {
        return None;
    }
    let mut chosen = Vec::new();
    let mut v = target;
    for i in (0..offers.len()).rev() {
        if v == 0 {
            break;
        }
        if took[i * words + v / 64] & (1 << (v % 64)) != 0 {
            chosen.push(i);
            v = if v == target {
                from_below[i]
            } else {
                v - usize::try_from(offers[i].users).unwrap_or(v)
            };
        }
    }
    chosen.reverse();
    Some(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decode cells at 8K for 1, 2, 4 and 8 users: TTFT p99 grows with the load, stutter too.
    fn machine() -> (Vec<DecodeCell>, Vec<PrefillRate>) {
        let cell = |context, concurrency, ttft, itl, total| DecodeCell {
            context_tokens: context,
            concurrency,
            valid: true,
            total_tok_s: Some(total),
            ttft_ms_p99: Some(ttft),
            ttft_samples: Some(8),
            itl_ms_p99: Some(itl),
        };
        let decode = vec![
            cell(0, 1, 40.0, 26.0, 40.0),
            cell(8192, 1, 60.0, 28.0, 36.0),
            cell(8192, 2, 90.0, 32.0, 64.0),
            cell(8192, 4, 150.0, 45.0, 110.0),
            cell(8192, 8, 400.0, 90.0, 160.0),
            cell(16384, 1, 80.0, 30.0, 33.0),
        ];
        // 8K tokens prefill at 8,192 tok/s: one second for a fresh 8K prompt.
        let prefill = vec![
            PrefillRate {
                context_tokens: 8192,
                prompt_tok_s: 8192.0,
            },
            PrefillRate {
                context_tokens: 16384,
                prompt_tok_s: 4096.0,
            },
        ];
        (decode, prefill)
    }

    fn slo(context: u64, ttft: f64, itl: f64) -> Slo {
        Slo::new(context, ttft, itl).unwrap()
    }

    #[test]
    fn goodput_is_the_largest_load_that_meets_both_limits() {
        let (decode, prefill) = machine();
        let at = goodput(&slo(8192, 2000.0, 100.0), &decode, &prefill).unwrap();
        assert_eq!((at.users, at.context_tokens), (8, 8192));
        assert_eq!(at.ttft_ms_estimated, 1400.0);
        assert_eq!(at.ttft_samples, Some(8));
        // A tighter stutter limit serves fewer users.
        let tighter = goodput(&slo(8192, 2000.0, 50.0), &decode, &prefill).unwrap();
        assert_eq!(tighter.users, 4);
        // A tighter first token too: 1,000 ms of prefill + 150 ms > 1,100 ms.
        let sooner = goodput(&slo(8192, 1100.0, 100.0), &decode, &prefill).unwrap();
        assert_eq!(sooner.users, 2);
    }

    #[test]
    fn the_smallest_measured_context_at_least_the_slo_s_is_judged() {
        let (decode, prefill) = machine();
        // 5,000 tokens: the 8K cells, with 5,000 tokens of prefill at 8K's rate.
        let at = goodput(&slo(5000, 2000.0, 100.0), &decode, &prefill).unwrap();
        assert_eq!(at.context_tokens, 8192);
        assert!((at.ttft_ms_estimated - (400.0 + 5000.0 / 8192.0 * 1000.0)).abs() < 1e-9);
        // 10,000 tokens: only 16K was measured beyond, at one user.
        let longer = goodput(&slo(10_000, 5000.0, 100.0), &decode, &prefill).unwrap();
        assert_eq!((longer.users, longer.context_tokens), (1, 16384));
    }

    #[test]
    fn an_slo_nothing_meets_says_why() {
        let (decode, prefill) = machine();
        assert_eq!(
            goodput(&slo(8192, 500.0, 100.0), &decode, &prefill),
            Err(Unmet::TtftTooSlow { best_ms: 1060.0 })
        );
        assert_eq!(
            goodput(&slo(8192, 2000.0, 20.0), &decode, &prefill),
            Err(Unmet::StutterTooLong { best_ms: 28.0 })
        );
        assert_eq!(
            goodput(&slo(32768, 2000.0, 100.0), &decode, &prefill),
            Err(Unmet::ContextNotMeasured {
                longest: Some(16384)
            })
        );
        let no_prefill: Vec<PrefillRate> = Vec::new();
        assert_eq!(
            goodput(&slo(8192, 2000.0, 100.0), &decode, &no_prefill),
            Err(Unmet::PrefillNotMeasured)
        );
        let invalid: Vec<DecodeCell> = decode
            .iter()
            .map(|c| DecodeCell { valid: false, ..*c })
            .collect();
        assert_eq!(
            goodput(&slo(8192, 2000.0, 100.0), &invalid, &prefill),
            Err(Unmet::NoValidCell {
                context_tokens: 8192
            })
        );
    }

    #[test]
    fn no_prompt_needs_no_prefill() {
        let (decode, _) = machine();
        let at = goodput(&slo(0, 100.0, 30.0), &decode, &[]).unwrap();
        assert_eq!((at.users, at.ttft_ms_estimated), (1, 40.0));
    }

    #[test]
    fn prices_follow_the_load() {
        assert_eq!(cost_per_user_hour(40, 8), Some(5.0));
        assert_eq!(cost_per_user_hour(40, 0), None);
    }

    #[test]
    fn limits_must_be_positive() {
        assert_eq!(Slo::new(8192, 0.0, 100.0).unwrap_err().field, "ttft_p99_ms");
        assert_eq!(
            Slo::new(8192, 100.0, f64::NAN).unwrap_err().field,
            "itl_p99_ms"
        );
        assert_eq!(
            Slo::new(MAX_CONTEXT + 1, 1.0, 1.0).unwrap_err().field,
            "context"
        );
    }

    /// Every subset of `offers`: the cheapest price of those serving `users`.
    fn brute_force(offers: &[PlanOffer], users: u64) -> Option<i64> {
        (0u32..1 << offers.len())
            .filter_map(|mask| {
                let set = (0..offers.len()).filter(|i| mask & (1 << i) != 0);
                let (price, served) = set.fold((0, 0), |(p, s), i| {
                    (p + offers[i].price_per_hour, s + offers[i].users)
                });
                (served >= users).then_some(price)
            })
            .min()
    }

    #[test]
    fn the_plan_is_the_cheapest_cover_where_greedy_overpays() {
        let offers = [
            PlanOffer {
                price_per_hour: 400,
                users: 40,
            },
            PlanOffer {
                price_per_hour: 600,
                users: 50,
            },
            PlanOffer {
                price_per_hour: 150,
                users: 10,
            },
        ];
        assert_eq!(cheapest_plan(&offers, 50), Some(vec![0, 2]));
        assert_eq!(cheapest_plan(&offers, 40), Some(vec![0]));
        assert_eq!(cheapest_plan(&offers, 51), Some(vec![1, 2]));
        assert_eq!(cheapest_plan(&offers, 100), Some(vec![0, 1, 2]));
        assert_eq!(cheapest_plan(&offers, 101), None, "all of them serve 100");
        // Equally cheap: the set with fewer machines.
        let tie = [
            PlanOffer {
                price_per_hour: 100,
                users: 5,
            },
            PlanOffer {
                price_per_hour: 100,
                users: 5,
            },
            PlanOffer {
                price_per_hour: 200,
                users: 10,
            },
        ];
        assert_eq!(cheapest_plan(&tie, 10), Some(vec![2]));
    }

    #[test]
    fn the_plan_matches_a_brute_force_over_every_subset() {
        // A fixed linear congruential sequence: the same cases on every run.
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |below: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % below
        };
        for _ in 0..500 {
            let offers: Vec<PlanOffer> = (0..1 + next(9))
                .map(|_| PlanOffer {
                    price_per_hour: 1 + next(1_000) as i64,
                    users: next(40),
                })
                .collect();
            let users = 1 + next(120);
            let plan = cheapest_plan(&offers, users);
            let cheapest = brute_force(&offers, users);
            let priced = plan.as_ref().map(|p| {
                assert!(p.windows(2).all(|w| w[0] < w[1]), "{p:?}");
                assert!(p.iter().map(|&i| offers[i].users).sum::<u64>() >= users);
                p.iter().map(|&i| offers[i].price_per_hour).sum::<i64>()
            });
            assert_eq!(priced, cheapest, "{offers:?} for {users}");
        }
    }
}
