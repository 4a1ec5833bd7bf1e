//! Charts drawn as SVG on the server: an uptime strip and a throughput frontier.

/// Daily uptime as a strip of bars, oldest first: each bar's height its share up, its class
/// how it fared (`full` at 99.9 % or more, `ok` at 99 %, `low` below, `none` unobserved),
/// the day and share also in `data-` attributes and a `<title>`. Numbers and dates only.
pub(crate) fn uptime_svg(days: &[(chrono::NaiveDate, Option<f64>)]) -> String {
    const BAR: f64 = 10.0;
    const GAP: f64 = 3.0;
    const H: f64 = 40.0;
    let width = days.len() as f64 * (BAR + GAP);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {H}\" role=\"img\">"
    );
    for (i, (day, share)) in days.iter().enumerate() {
        let x = i as f64 * (BAR + GAP);
        let (class, height, shown) = match share {
            None => ("none", 4.0, "–".to_owned()),
            Some(s) => (
                if *s >= 0.999 {
                    "full"
                } else if *s >= 0.99 {
                    "ok"
                } else {
                    "low"
                },
                (H * s).max(4.0),
                format!("{:.2} %", s * 100.0),
            ),
        };
        svg.push_str(&format!(
            "<rect class=\"day {class}\" data-date=\"{day}\" data-uptime=\"{}\" x=\"{x}\" y=\"{:.1}\" width=\"{BAR}\" height=\"{height:.1}\"><title>{day}: {shown}</title></rect>",
            share.map_or_else(String::new, |s| format!("{s:.6}")),
            H - height,
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// One decode cell's bar in the power strip.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PowerBar<'a> {
    pub context: u64,
    pub concurrency: u64,
    /// Mean power over the window, W.
    pub watts: Option<f64>,
    pub per_token: Option<f64>,
    /// The cell's `energy_status`.
    pub status: &'a str,
}

/// A report's decode cells' mean GPU power as a strip of bars, in the report's order: each
/// bar's height its power against the strip's highest, its class the cell's energy status
/// (`ok`, `implausible_power`, `unavailable`), the cell and figures also in `data-`
/// attributes and a `<title>`. Numbers and the standard's status names only.
pub(crate) fn power_svg(cells: &[PowerBar<'_>]) -> String {
    const BAR: f64 = 10.0;
    const GAP: f64 = 3.0;
    const H: f64 = 40.0;
    let width = cells.len() as f64 * (BAR + GAP);
    let top = cells.iter().filter_map(|c| c.watts).fold(1.0f64, f64::max);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {H}\" role=\"img\">"
    );
    for (i, bar) in cells.iter().enumerate() {
        let PowerBar {
            context,
            concurrency,
            watts,
            per_token,
            status,
        } = *bar;
        let status = match status {
            "ok" | "implausible_power" => status,
            _ => "unavailable",
        };
        let x = i as f64 * (BAR + GAP);
        let height = watts.map_or(4.0, |w| (H * w / top).max(4.0));
        let shown = watts.map_or_else(|| "–".to_owned(), |w| format!("{w:.1} W"));
        let joules = per_token.map_or_else(String::new, |j| format!(", {j:.4} J/token"));
        svg.push_str(&format!(
            "<rect class=\"cell {status}\" data-context=\"{context}\" data-concurrency=\"{concurrency}\" data-power-w=\"{}\" data-j-per-token=\"{}\" x=\"{x}\" y=\"{:.1}\" width=\"{BAR}\" height=\"{height:.1}\"><title>{context} × {concurrency}: {shown}{joules} ({status})</title></rect>",
            watts.map_or_else(String::new, |w| format!("{w}")),
            per_token.map_or_else(String::new, |j| format!("{j}")),
            H - height,
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// One context's frontier as SVG: per report a path through `(per-user tok/s, total tok/s)`
/// by concurrency (its points also in `data-points`, unscaled), and the stutter limit's line
/// (per-user speed 1000 ÷ `itl_p99_ms`) when given. Numbers only: nothing a report wrote.
pub(crate) fn frontier_svg(series: &[Vec<(f64, f64)>], slo_per_user: Option<f64>) -> String {
    const W: f64 = 480.0;
    const H: f64 = 300.0;
    const PAD: f64 = 40.0;
    let max_x = series
        .iter()
        .flatten()
        .map(|p| p.0)
        .chain(slo_per_user)
        .fold(1.0f64, f64::max)
        * 1.1;
    let max_y = series.iter().flatten().map(|p| p.1).fold(1.0f64, f64::max) * 1.1;
    let x = |v: f64| PAD + v / max_x * (W - 2.0 * PAD);
    let y = |v: f64| H - PAD - v / max_y * (H - 2.0 * PAD);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" role=\"img\">\
         <line class=\"axis\" x1=\"{PAD}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/>\
         <line class=\"axis\" x1=\"{PAD}\" y1=\"{PAD}\" x2=\"{PAD}\" y2=\"{b}\"/>\
         <text x=\"{r}\" y=\"{t}\" text-anchor=\"end\">{mx:.0}</text>\
         <text x=\"4\" y=\"{PAD}\">{my:.0}</text>",
        b = H - PAD,
        r = W - PAD,
        t = H - PAD / 3.0,
        mx = max_x,
        my = max_y,
    );
    for (n, points) in series.iter().enumerate() {
        let d: Vec<String> = points
            .iter()
            .enumerate()
            .map(|(i, &(u, t))| {
                format!("{}{:.1},{:.1}", if i == 0 { 'M' } else { 'L' }, x(u), y(t))
            })
            .collect();
        let raw: Vec<String> = points.iter().map(|(u, t)| format!("{u},{t}")).collect();
        svg.push_str(&format!(
            "<path class=\"series s{n}\" data-report=\"{n}\" data-points=\"{}\" d=\"{}\"/>",
            raw.join(" "),
            d.join(" ")
        ));
    }
    if let Some(limit) = slo_per_user {
        svg.push_str(&format!(
            "<line class=\"slo\" x1=\"{v:.1}\" y1=\"{PAD}\" x2=\"{v:.1}\" y2=\"{b}\"/>",
            v = x(limit),
            b = H - PAD
        ));
    }
    svg.push_str("</svg>");
    svg
}
