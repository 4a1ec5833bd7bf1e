//! The spot check's rules: which cells of a verification are measured again (its corners),
//! and the verdict on what the check measured. Pure: the worker gathers the figures.

use crate::CellStatus;

/// A decode cell as `(context tokens, concurrency, total tok/s)`.
pub type CellFigure = (u64, u64, f64);

/// One decode cell of a spot check, as compared with its baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedCell {
    pub context: u64,
    pub concurrency: u64,
    pub status: CellStatus,
    /// Why the cell is not valid, when it is not (may be empty).
    pub reasons: String,
    pub total_tok_s: f64,
}

/// What a spot check found.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The engine is as verified: the badge is renewed.
    Confirmed,
    /// The engine is not as verified, for this reason: the listing is demoted.
    Refuted(String),
    /// The check found nothing either way, for this reason: the platform's own client was
    /// starved (a compared cell `client_bound`), which says nothing of the engine. Neither
    /// renewed nor demoted; the listing is checked again soon, and a badge that is never
    /// confirmed still expires.
    Inconclusive(String),
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

/// What a spot check's `cells` say of its baseline (the verified `baseline` cells and engine
/// fingerprint): refuted when the engine's fingerprint changed, a baseline cell was not
/// measured or is no longer valid, or one measured below `min_fraction` of its verified
/// figure (the first reason found, in the baseline's order); else inconclusive when a
/// compared cell was client bound (the checker, not the engine, limited it); else confirmed.
pub fn verdict(
    baseline: &[CellFigure],
    verified_fingerprint: Option<&str>,
    fingerprint: Option<&str>,
    cells: &[CheckedCell],
    min_fraction: f64,
) -> Verdict {
    if let (Some(verified), Some(now)) = (verified_fingerprint, fingerprint)
        && verified != now
    {
        return Verdict::Refuted(format!(
            "the engine's fingerprint changed since verification ({} → {}): another model, \
             version or KV-cache size answers at the listing's address",
            &verified[..12.min(verified.len())],
            &now[..12.min(now.len())],
        ));
    }
    let mut starved = Vec::new();
    for &(context, concurrency, verified) in baseline {
        let Some(cell) = cells
            .iter()
            .find(|c| c.context == context && c.concurrency == concurrency)
        else {
            return Verdict::Refuted(format!(
                "decode {context} x {concurrency} was not measured by the spot check"
            ));
        };
        match cell.status {
            CellStatus::Valid => {}
            CellStatus::ClientBound => {
                starved.push(format!("{context} x {concurrency}"));
                continue;
            }
            status => {
                let why = match cell.reasons.as_str() {
                    "" => String::new(),
                    reasons => format!(" ({reasons})"),
                };
                return Verdict::Refuted(format!(
                    "decode {context} x {concurrency} is {}{why} in the spot check, valid when verified",
                    status.words()
                ));
            }
        }
        let measured = cell.total_tok_s;
        if measured < min_fraction * verified {
            return Verdict::Refuted(format!(
                "decode {context} x {concurrency}: {measured:.1} tok/s, {:.0} % of the verified \
                 {verified:.1} tok/s (the floor is {:.0} %)",
                100.0 * measured / verified,
                100.0 * min_fraction
            ));
        }
    }
    if starved.is_empty() {
        Verdict::Confirmed
    } else {
        Verdict::Inconclusive(format!(
            "the platform's client, not the engine, limited decode {} (client bound): the check \
             says nothing of the engine and runs again soon",
            starved.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(context: u64, concurrency: u64, tok_s: f64) -> CheckedCell {
        CheckedCell {
            context,
            concurrency,
            status: CellStatus::Valid,
            reasons: String::new(),
            total_tok_s: tok_s,
        }
    }

    fn refuted(verdict: Verdict) -> String {
        match verdict {
            Verdict::Refuted(why) => why,
            other => panic!("not refuted: {other:?}"),
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
            Verdict::Confirmed
        );
        // No fingerprint on either side: the figures decide.
        assert_eq!(
            verdict(&baseline, None, Some("bbb"), &good, 0.9),
            Verdict::Confirmed
        );
        let why = refuted(verdict(
            &baseline,
            Some("aaaaaaaaaaaaaaaa"),
            Some("bbb"),
            &good,
            0.9,
        ));
        assert!(
            why.contains("changed since verification (aaaaaaaaaaaa → bbb)"),
            "{why}"
        );
        let why = refuted(verdict(&baseline, None, None, &good[..1], 0.9));
        assert!(why.contains("0 x 8 was not measured"), "{why}");
        let mut queued = good.clone();
        queued[1].status = CellStatus::RequestsQueued;
        queued[1].reasons = "the server preempted 3 times".into();
        let why = refuted(verdict(&baseline, None, None, &queued, 0.9));
        assert!(
            why.contains("is requests queued (the server preempted 3 times) in the spot check"),
            "{why}"
        );
        // 89 % of 100 is under a 90 % floor; exactly 90 % is not.
        let slow = [checked(0, 1, 89.0), checked(0, 8, 400.0)];
        let why = refuted(verdict(&baseline, None, None, &slow, 0.9));
        assert!(
            why.contains("89.0 tok/s, 89 % of the verified 100.0"),
            "{why}"
        );
        let floor = [checked(0, 1, 90.0), checked(0, 8, 360.0)];
        assert_eq!(
            verdict(&baseline, None, None, &floor, 0.9),
            Verdict::Confirmed
        );
    }

    #[test]
    fn a_starved_checker_is_inconclusive_unless_the_engine_is_refuted_anyway() {
        let baseline = [(0, 1, 100.0), (0, 8, 400.0)];
        // The client was starved at 8 streams (its figure is low, as a starved client's is):
        // that is no evidence against the engine.
        let mut starved = [checked(0, 1, 95.0), checked(0, 8, 120.0)];
        starved[1].status = CellStatus::ClientBound;
        match verdict(&baseline, None, None, &starved, 0.9) {
            Verdict::Inconclusive(why) => {
                assert!(why.contains("limited decode 0 x 8 (client bound)"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        // A valid cell below the floor refutes it whatever else was starved.
        starved[0].total_tok_s = 50.0;
        let why = refuted(verdict(&baseline, None, None, &starved, 0.9));
        assert!(why.contains("0 x 1: 50.0 tok/s"), "{why}");
        // So does another fingerprint.
        starved[0].total_tok_s = 95.0;
        let why = refuted(verdict(&baseline, Some("aaa"), Some("bbb"), &starved, 0.9));
        assert!(why.contains("fingerprint changed"), "{why}");
    }
}
