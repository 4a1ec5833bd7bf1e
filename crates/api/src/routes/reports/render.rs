//! The decode matrix of a stored report rendered for people and spreadsheets: CSV (one row per
//! cell) and an SVG heatmap.

use std::fmt::Write;

use app::trust::reports::ReportCell;
use domain::{CellPhase, CellStatus};

/// The decode matrix of a stored report as CSV (one row per cell).
pub fn matrix_csv(cells: &[ReportCell]) -> String {
    let mut out = String::from(
        "phase,context_tokens,concurrency,status,total_tok_s,per_request_tok_s,ttft_ms,tbt_ms,prompt_tok_s\n",
    );
    let num = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_default();
    for c in cells {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{}",
            c.phase.as_str(),
            c.context_tokens,
            c.concurrency,
            c.status,
            num(c.total_tok_s),
            num(c.per_request_tok_s),
            num(c.ttft_ms),
            num(c.tbt_ms),
            num(c.prompt_tok_s)
        );
    }
    out
}

/// The decode matrix as an SVG heatmap: rows = contexts, columns = concurrency, colour =
/// total tok/s (darker is faster), status words in cells that did not run validly.
pub fn matrix_svg(cells: &[ReportCell]) -> String {
    let decode: Vec<&ReportCell> = cells
        .iter()
        .filter(|c| c.phase == CellPhase::Decode)
        .collect();
    let mut contexts: Vec<i64> = decode.iter().map(|c| c.context_tokens).collect();
    contexts.sort_unstable();
    contexts.dedup();
    let mut levels: Vec<i64> = decode.iter().map(|c| c.concurrency).collect();
    levels.sort_unstable();
    levels.dedup();
    let best = decode
        .iter()
        .filter_map(|c| c.total_tok_s)
        .fold(0.0f64, f64::max);
    let (cw, ch, left, top) = (96, 40, 80, 40);
    let width = left + cw * levels.len() + 10;
    let height = top + ch * contexts.len() + 10;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n"
    );
    let _ = writeln!(
        svg,
        "<text x=\"4\" y=\"16\">context \\ streams (total tok/s)</text>"
    );
    for (i, level) in levels.iter().enumerate() {
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{level}</text>",
            left + i * cw + cw / 2,
            top - 8
        );
    }
    for (r, context) in contexts.iter().enumerate() {
        let y = top + r * ch;
        let label = if *context >= 1024 && context % 1024 == 0 {
            format!("{}K", context / 1024)
        } else {
            context.to_string()
        };
        let _ = writeln!(svg, "<text x=\"4\" y=\"{}\">{label}</text>", y + ch / 2 + 4);
        for (i, level) in levels.iter().enumerate() {
            let x = left + i * cw;
            let cell = decode
                .iter()
                .find(|c| c.context_tokens == *context && c.concurrency == *level);
            let (fill, text) = match cell {
                Some(c) if matches!(c.status, CellStatus::Valid | CellStatus::RequestsQueued) => {
                    let total = c.total_tok_s.unwrap_or_default();
                    let share = if best > 0.0 { total / best } else { 0.0 };
                    let light = 92.0 - 55.0 * share;
                    let mark = if c.status == CellStatus::Valid {
                        ""
                    } else {
                        " (queued)"
                    };
                    (
                        format!("hsl(210,70%,{light:.0}%)"),
                        format!("{total:.1}{mark}"),
                    )
                }
                Some(c) => ("#eeeeee".to_owned(), c.status.words().to_owned()),
                None => ("#ffffff".to_owned(), String::new()),
            };
            let _ = writeln!(
                svg,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{cw}\" height=\"{ch}\" fill=\"{fill}\" stroke=\"#ffffff\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{text}</text>",
                x + cw / 2,
                y + ch / 2 + 4
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}
