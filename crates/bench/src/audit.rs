//! Checks a report someone else measured (a community run) against the standard: units,
//! each status against its rule, and totals consistent with the per-request figures and the
//! requests that were active. Each finding names the field it is about
//! (`decode[3].total_tok_s`), so a submitter can see what does not add up.

use crate::report::{DecodeCell, PrefillEntry, Report, Status};

/// Most decode cells and prefill entries a report may hold.
const MAX_ENTRIES: usize = 512;
/// `total_tok_s` against `per_request_tok_s × avg_active_requests` (our harness: within 2 %).
const TOTAL_VS_STREAMS: f64 = 0.10;
/// A figure against the counts it is computed from (our harness: exact).
const RATE_VS_COUNTS: f64 = 0.02;

/// A finding: the field's path in the report and what is wrong with it.
pub type Finding = (String, String);

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * b.abs().max(f64::MIN_POSITIVE)
}

fn positive(value: Option<f64>) -> Option<f64> {
    value.filter(|v| v.is_finite() && *v > 0.0)
}

/// Everything in `report` that breaks the standard's rules; empty when it holds together.
pub fn audit(report: &Report) -> Vec<Finding> {
    let mut findings = Vec::new();
    if !["standard/1", "standard/2"].contains(&report.standard.as_str()) {
        findings.push((
            "standard".to_owned(),
            "must be `standard/1` or `standard/2`".to_owned(),
        ));
    }
    if report.decode.len() > MAX_ENTRIES || report.prefill.len() > MAX_ENTRIES {
        findings.push((
            "decode".to_owned(),
            format!("at most {MAX_ENTRIES} cells and prefill entries"),
        ));
        return findings;
    }
    if report.parameters.max_output == 0 || report.parameters.max_output > 16 * 1024 * 1024 {
        findings.push((
            "parameters.max_output".to_owned(),
            "must be between 1 and 16M tokens".to_owned(),
        ));
        return findings;
    }
    if report.decode.is_empty() {
        findings.push((
            "decode".to_owned(),
            "must hold at least one cell".to_owned(),
        ));
    }
    let limits = Limits {
        max_output: report.parameters.max_output,
        kv_cache_tokens: report.engine.kv_cache_tokens,
        max_model_len: report.engine.max_model_len,
        slots: report.engine.slots,
    };
    let mut cells = std::collections::HashSet::new();
    for (i, cell) in report.decode.iter().enumerate() {
        if !cells.insert((cell.context_tokens, cell.concurrency)) {
            findings.push((
                format!("decode[{i}]"),
                format!(
                    "a second cell at context {} and concurrency {}",
                    cell.context_tokens, cell.concurrency
                ),
            ));
        }
        decode_cell(&format!("decode[{i}]"), cell, limits, &mut findings);
    }
    let mut contexts = std::collections::HashSet::new();
    for (i, entry) in report.prefill.iter().enumerate() {
        if !contexts.insert(entry.context_tokens) {
            findings.push((
                format!("prefill[{i}]"),
                format!("a second entry at context {}", entry.context_tokens),
            ));
        }
        prefill_entry(&format!("prefill[{i}]"), entry, &mut findings);
    }
    findings
}

/// What the standard's capacity rule needs (`cell::over_capacity`).
#[derive(Debug, Clone, Copy)]
struct Limits {
    max_output: u64,
    kv_cache_tokens: Option<u64>,
    max_model_len: Option<u64>,
    slots: Option<u64>,
}

/// A cell's energy figures against each other: a status the standard names, energy per token
/// only when `ok`, and equal to the mean power over the window ÷ its tokens.
fn energy(cell: &DecodeCell, find: &mut impl FnMut(&str, String)) {
    let status = cell.energy_status.as_deref();
    if status.is_some_and(|s| !["ok", "implausible_power", "unavailable"].contains(&s)) {
        find(
            "energy_status",
            "must be ok, implausible_power or unavailable".to_owned(),
        );
        return;
    }
    let Some(per_token) = cell.energy_j_per_token else {
        return;
    };
    if status != Some("ok") {
        find(
            "energy_j_per_token",
            "given only when energy_status is ok".to_owned(),
        );
        return;
    }
    let drawn = positive(cell.mean_power_w)
        .zip(positive(cell.measured_s))
        .map(|(w, s)| w * s);
    let tokens = cell.output_tokens.filter(|t| *t > 0).map(|t| t as f64);
    match drawn.zip(tokens) {
        Some((joules, tokens)) if close(per_token, joules / tokens, RATE_VS_COUNTS) => {}
        Some((joules, tokens)) => find(
            "energy_j_per_token",
            format!(
                "{per_token} J per token, but mean_power_w × measured_s ÷ output_tokens is {:.4}",
                joules / tokens
            ),
        ),
        None => find(
            "energy_j_per_token",
            "needs a positive mean_power_w, measured_s and output_tokens".to_owned(),
        ),
    }
}

fn decode_cell(at: &str, cell: &DecodeCell, limits: Limits, findings: &mut Vec<Finding>) {
    let mut find = |field: &str, why: String| findings.push((format!("{at}.{field}"), why));
    if cell.concurrency == 0 || cell.concurrency > 4096 {
        find("concurrency", "must be between 1 and 4096".to_owned());
        return;
    }
    if cell.context_tokens > 16 * 1024 * 1024 {
        find("context_tokens", "must be at most 16M tokens".to_owned());
        return;
    }
    energy(cell, &mut find);
    let over = crate::cell::over_capacity(
        cell.concurrency,
        cell.context_tokens,
        limits.max_output,
        limits.kv_cache_tokens,
        limits.max_model_len,
        limits.slots,
    );
    match cell.status {
        Status::OverCapacity => {
            if cell.total_tok_s.is_some() {
                find(
                    "total_tok_s",
                    "an over-capacity cell is not run: no figures".to_owned(),
                );
            }
            if over.is_none() && limits.kv_cache_tokens.is_some() {
                find(
                    "status",
                    "over capacity, but the cell fits the KV cache and max_model_len".to_owned(),
                );
            }
        }
        Status::Valid => {
            if let Some(why) = over {
                find("status", format!("valid, but over capacity: {why}"));
            }
            if cell.max_waiting.is_some_and(|w| w > 0.0) {
                find(
                    "status",
                    "valid, but requests waited in the server's queue (requests_queued)".to_owned(),
                );
            }
            let (Some(total), Some(per_request)) =
                (positive(cell.total_tok_s), positive(cell.per_request_tok_s))
            else {
                find(
                    "total_tok_s",
                    "a valid cell has positive total_tok_s and per_request_tok_s".to_owned(),
                );
                return;
            };
            if let Some(active) = positive(cell.avg_active_requests) {
                if active > cell.concurrency as f64 + 0.5 {
                    find(
                        "avg_active_requests",
                        format!(
                            "{active:.2} requests active with only {} sent",
                            cell.concurrency
                        ),
                    );
                } else if !close(total, per_request * active, TOTAL_VS_STREAMS) {
                    find(
                        "total_tok_s",
                        format!(
                            "{total:.1} tok/s is not {per_request:.1} tok/s per request × {active:.2} active requests"
                        ),
                    );
                }
            }
            if let (Some(tokens), Some(seconds)) = (cell.output_tokens, positive(cell.measured_s))
                && !close(total, tokens as f64 / seconds, RATE_VS_COUNTS)
            {
                find(
                    "total_tok_s",
                    format!("{total:.1} tok/s is not {tokens} tokens in {seconds:.3} s"),
                );
            }
            if let Some(tbt) = cell.tbt_ms_median
                && !close(tbt, 1000.0 / per_request, RATE_VS_COUNTS)
            {
                find(
                    "tbt_ms_median",
                    format!("{tbt:.2} ms is not 1000 ÷ {per_request:.1} tok/s per request"),
                );
            }
        }
        Status::RequestsQueued | Status::Invalid | Status::ClientBound => {}
    }
    for (field, value) in [
        ("total_tok_s", cell.total_tok_s),
        ("per_request_tok_s", cell.per_request_tok_s),
        ("ttft_ms_median", cell.ttft_ms_median),
        ("measured_s", cell.measured_s),
    ] {
        if value.is_some_and(|v| !v.is_finite() || v < 0.0) {
            find(field, "must be a non-negative number".to_owned());
        }
    }
}

fn prefill_entry(at: &str, entry: &PrefillEntry, findings: &mut Vec<Finding>) {
    let mut find = |field: &str, why: String| findings.push((format!("{at}.{field}"), why));
    if entry.status != Status::Valid {
        return;
    }
    let Some(rate) = positive(entry.prompt_tok_s) else {
        find(
            "prompt_tok_s",
            "a valid prefill has a positive prompt_tok_s".to_owned(),
        );
        return;
    };
    let mut times: Vec<f64> = entry.repeats.iter().map(|r| r.prefill_s).collect();
    times.sort_by(f64::total_cmp);
    if let (Some(tokens), Some(&median)) = (entry.prompt_tokens, times.get(times.len() / 2))
        && median > 0.0
        && times.len() % 2 == 1
        && !close(rate, tokens as f64 / median, RATE_VS_COUNTS)
    {
        find(
            "prompt_tok_s",
            format!("{rate:.1} tok/s is not {tokens} prompt tokens in {median:.3} s"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(concurrency: u64, total: f64, per_request: f64, active: f64) -> DecodeCell {
        let mut cell = DecodeCell::not_run(0, concurrency, Status::Valid, String::new());
        cell.reasons.clear();
        cell.total_tok_s = Some(total);
        cell.per_request_tok_s = Some(per_request);
        cell.avg_active_requests = Some(active);
        cell.output_tokens = Some((total * 3.0).round() as u64);
        cell.measured_s = Some(3.0);
        cell.tbt_ms_median = Some(1000.0 / per_request);
        cell
    }

    #[test]
    fn energy_per_token_must_be_the_window_s_energy_over_its_tokens() {
        let limits = Limits {
            max_output: 256,
            kv_cache_tokens: Some(118_784),
            max_model_len: None,
            slots: None,
        };
        let mut good = cell(4, 563.8, 142.8, 3.92);
        good.mean_power_w = Some(300.0);
        good.energy_status = Some("ok".to_owned());
        // 300 W for 3 s over 1,691 tokens.
        good.energy_j_per_token = Some(300.0 * 3.0 / 1691.0);
        let mut findings = Vec::new();
        decode_cell("decode[0]", &good, limits, &mut findings);
        assert!(findings.is_empty(), "{findings:?}");
        for (edit, field) in [
            (
                (|c: &mut DecodeCell| c.energy_j_per_token = Some(0.1)) as fn(&mut DecodeCell),
                "decode[0].energy_j_per_token",
            ),
            (
                |c| c.energy_status = Some("implausible_power".to_owned()),
                "decode[0].energy_j_per_token",
            ),
            (
                |c| c.energy_status = Some("great".to_owned()),
                "decode[0].energy_status",
            ),
        ] {
            let mut bad = good.clone();
            edit(&mut bad);
            let mut findings = Vec::new();
            decode_cell("decode[0]", &bad, limits, &mut findings);
            assert!(
                findings.iter().any(|(f, _)| f == field),
                "{field}: {findings:?}"
            );
        }
    }

    #[test]
    fn consistent_cells_pass_and_inflated_ones_are_named() {
        let limits = |kv| Limits {
            max_output: 256,
            kv_cache_tokens: Some(kv),
            max_model_len: None,
            slots: None,
        };
        let mut findings = Vec::new();
        decode_cell(
            "decode[0]",
            &cell(4, 563.8, 142.8, 3.92),
            limits(118_784),
            &mut findings,
        );
        assert!(findings.is_empty(), "{findings:?}");
        // Twice the total the streams account for.
        let mut inflated = cell(4, 563.8, 142.8, 3.92);
        inflated.total_tok_s = Some(1127.6);
        decode_cell("decode[1]", &inflated, limits(118_784), &mut findings);
        assert!(
            findings.iter().any(|(f, _)| f == "decode[1].total_tok_s"),
            "{findings:?}"
        );
        // Valid although it cannot fit; over capacity although it fits.
        let mut findings = Vec::new();
        decode_cell(
            "decode[2]",
            &cell(8, 100.0, 12.5, 8.0),
            limits(1000),
            &mut findings,
        );
        assert_eq!(findings[0].0, "decode[2].status");
        let fits = DecodeCell::not_run(0, 1, Status::OverCapacity, String::new());
        let mut findings = Vec::new();
        decode_cell("decode[3]", &fits, limits(118_784), &mut findings);
        assert_eq!(findings[0].0, "decode[3].status");
    }
}
