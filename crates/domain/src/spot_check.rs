//! The spot check's rules: which cells of a verification are measured again (its corners),
//! and the verdict on what the check measured. Pure: the worker gathers the figures.

/// A decode cell as `(context tokens, concurrency, total tok/s)`.
pub type CellFigure = (u64, u64, f64);

/// One decode cell of a spot check, as compared with its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedCell {
    pub context: u64,
    pub concurrency: u64,
    /// `None` when valid; else its status in words and why.
    pub invalid: Option<String>,
    pub total_tok_s: f64,
}

/// The cells a spot check measures again, from a verification's valid decode cells: at
/// concurrency 1 and at the highest valid concurrency, at the smallest and the largest valid
/// context (at most four), ordered by context and concurrency.
pub fn corner_cells(valid: &[CellFigure]) -> Vec<CellFigure> {
    let (Some(low_context), Some(high_context), Some(high_concurrency)) = (
        valid.iter().map(|c| c.0).min(),
        valid.iter().map(|c| c.0).max(),
        valid.iter().map(|c| c.1).max(),
    ) else {
        return Vec::new();
    };
    let mut picked: Vec<CellFigure> = valid
        .iter()
        .copied()
        .filter(|(context, concurrency, _)| {
            [low_context, high_context].contains(context)
                && [1, high_concurrency].contains(concurrency)
        })
        .collect();
    picked.sort_by_key(|c| (c.0, c.1));
    picked.dedup_by_key(|c| (c.0, c.1));
    picked
}

/// Why a spot check does not confirm its baseline (the verified `baseline` cells and engine
/// fingerprint), or `None` when it does: the engine's fingerprint changed, a baseline cell was
/// not measured or is no longer valid, or one measured below `min_fraction` of its verified
/// figure. The first reason found, in the baseline's order.
pub fn verdict(
    baseline: &[CellFigure],
    verified_fingerprint: Option<&str>,
    fingerprint: Option<&str>,
    cells: &[CheckedCell],
    min_fraction: f64,
) -> Option<String> {
    if let (Some(verified), Some(now)) = (verified_fingerprint, fingerprint)
        && verified != now
    {
        return Some(format!(
            "the engine's fingerprint changed since verification ({} → {}): another model, \
             version or KV-cache size answers at the listing's address",
            &verified[..12.min(verified.len())],
            &now[..12.min(now.len())],
        ));
    }
    for &(context, concurrency, verified) in baseline {
        let Some(cell) = cells
            .iter()
            .find(|c| c.context == context && c.concurrency == concurrency)
        else {
            return Some(format!(
                "decode {context} x {concurrency} was not measured by the spot check"
            ));
        };
        if let Some(status) = &cell.invalid {
            return Some(format!(
                "decode {context} x {concurrency} is {status} in the spot check, valid when verified"
            ));
        }
        let measured = cell.total_tok_s;
        if measured < min_fraction * verified {
            return Some(format!(
                "decode {context} x {concurrency}: {measured:.1} tok/s, {:.0} % of the verified \
                 {verified:.1} tok/s (the floor is {:.0} %)",
                100.0 * measured / verified,
                100.0 * min_fraction
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(context: u64, concurrency: u64, tok_s: f64) -> CheckedCell {
        CheckedCell {
            context,
            concurrency,
            invalid: None,
            total_tok_s: tok_s,
        }
    }

    #[test]
    fn the_corners_are_at_one_stream_and_the_most_at_the_shortest_and_longest_context() {
        let valid = [
            (0, 1, 10.0),
            (0, 4, 30.0),
            (0, 16, 80.0),
            (1024, 1, 9.0),
            (1024, 16, 70.0),
            (8192, 1, 7.0),
        ];
        assert_eq!(
            corner_cells(&valid),
            vec![(0, 1, 10.0), (0, 16, 80.0), (8192, 1, 7.0)]
        );
        assert!(corner_cells(&[]).is_empty());
        assert_eq!(corner_cells(&[(0, 1, 5.0)]), vec![(0, 1, 5.0)]);
    }

    #[test]
    fn a_check_fails_on_a_new_fingerprint_a_missing_or_invalid_cell_or_a_slow_one() {
        let baseline = [(0, 1, 100.0), (0, 8, 400.0)];
        let good = [checked(0, 1, 95.0), checked(0, 8, 390.0)];
        assert_eq!(
            verdict(&baseline, Some("aaa"), Some("aaa"), &good, 0.9),
            None
        );
        // No fingerprint on either side: the figures decide.
        assert_eq!(verdict(&baseline, None, Some("bbb"), &good, 0.9), None);
        let why = verdict(&baseline, Some("aaaaaaaaaaaaaaaa"), Some("bbb"), &good, 0.9).unwrap();
        assert!(
            why.contains("changed since verification (aaaaaaaaaaaa → bbb)"),
            "{why}"
        );
        let why = verdict(&baseline, None, None, &good[..1], 0.9).unwrap();
        assert!(why.contains("0 x 8 was not measured"), "{why}");
        let mut queued = good.clone();
        queued[1].invalid = Some("requests queued".into());
        let why = verdict(&baseline, None, None, &queued, 0.9).unwrap();
        assert!(
            why.contains("is requests queued in the spot check"),
            "{why}"
        );
        // 89 % of 100 is under a 90 % floor; exactly 90 % is not.
        let slow = [checked(0, 1, 89.0), checked(0, 8, 400.0)];
        let why = verdict(&baseline, None, None, &slow, 0.9).unwrap();
        assert!(
            why.contains("89.0 tok/s, 89 % of the verified 100.0"),
            "{why}"
        );
        let floor = [checked(0, 1, 90.0), checked(0, 8, 360.0)];
        assert_eq!(verdict(&baseline, None, None, &floor, 0.9), None);
    }
}
