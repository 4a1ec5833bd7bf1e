//! The arithmetic of the figures, kept free of I/O so hand-made timelines can test it.

use std::time::{Duration, Instant};

/// The p-th percentile (0..=100) with linear interpolation between closest ranks, as
/// numpy's default: rank = p/100 × (n − 1).
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (p / 100.0).clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let low = rank.floor() as usize;
    let high = rank.ceil() as usize;
    let fraction = rank - low as f64;
    Some(sorted[low] + (sorted[high] - sorted[low]) * fraction)
}

pub fn median(values: &[f64]) -> Option<f64> {
    percentile(values, 50.0)
}

/// The 97.5th percentile of Student's t with `df` degrees of freedom: the factor of a
/// two-sided 95 % confidence interval. Cornish–Fisher expansion around the normal quantile
/// (Abramowitz & Stegun 26.7.5), within 0.001 of the exact value from 4 degrees of freedom.
pub fn t_975(df: f64) -> f64 {
    const Z: f64 = 1.959_963_984_540_054;
    let z = |n: i32| Z.powi(n);
    let g1 = (z(3) + Z) / 4.0;
    let g2 = (5.0 * z(5) + 16.0 * z(3) + 3.0 * Z) / 96.0;
    let g3 = (3.0 * z(7) + 19.0 * z(5) + 17.0 * z(3) - 15.0 * Z) / 384.0;
    let g4 = (79.0 * z(9) + 776.0 * z(7) + 1482.0 * z(5) - 1920.0 * z(3) - 945.0 * Z) / 92160.0;
    Z + g1 / df + g2 / df.powi(2) + g3 / df.powi(3) + g4 / df.powi(4)
}

/// The mean of `values` and the half-width of its 95 % confidence interval, treating the
/// values as independent (batch means); `None` under five values.
pub fn mean_ci95(values: &[f64]) -> Option<(f64, f64)> {
    if values.len() < 5 {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some((mean, t_975(n - 1.0) * (variance / n).sqrt()))
}

/// Seconds from `a` to `b` (negative when `b` is earlier).
pub fn secs(a: Instant, b: Instant) -> f64 {
    if b >= a {
        (b - a).as_secs_f64()
    } else {
        -(a - b).as_secs_f64()
    }
}

/// The time-weighted mean over `[start, end]` of a quantity sampled at `samples` (sorted by
/// time): each sample holds until the next. Before the first sample inside the window the
/// last earlier sample holds (or, with none, the first sample).
pub fn time_weighted_mean(samples: &[(Instant, f64)], start: Instant, end: Instant) -> Option<f64> {
    if samples.is_empty() || end <= start {
        return None;
    }
    let mut current = samples
        .iter()
        .rev()
        .find(|(at, _)| *at <= start)
        .or_else(|| samples.first())
        .map(|(_, v)| *v)?;
    let mut cursor = start;
    let mut area = 0.0;
    for &(at, value) in samples.iter().filter(|(at, _)| *at > start && *at < end) {
        area += current * secs(cursor, at);
        cursor = at;
        current = value;
    }
    area += current * secs(cursor, end);
    Some(area / secs(start, end))
}

/// The mean number of intervals open over `[start, end]` (e.g. the client's own requests in
/// flight). An interval without an end is open to the end of the window.
pub fn mean_overlap(intervals: &[(Instant, Option<Instant>)], start: Instant, end: Instant) -> f64 {
    let window = secs(start, end);
    if window <= 0.0 {
        return 0.0;
    }
    let total: f64 = intervals
        .iter()
        .map(|&(from, to)| {
            let from = from.max(start);
            let to = to.unwrap_or(end).min(end);
            if to > from { secs(from, to) } else { 0.0 }
        })
        .sum();
    total / window
}

/// Client-side inter-token latency of one request's chunks, per token: a chunk carrying k
/// tokens after a gap g contributes k samples of g/k. Only chunks arriving inside the window
/// count, and the first chunk of a request has no gap. Chunks that arrive in one socket read
/// share a timestamp, so this shows delivery jitter, not the server's pace.
pub fn itl_samples(chunks: &[(Instant, u64)], start: Instant, end: Instant, out: &mut Vec<f64>) {
    for pair in chunks.windows(2) {
        let (previous, _) = pair[0];
        let (at, tokens) = pair[1];
        if at < start || at > end || tokens == 0 {
            continue;
        }
        let per_token = secs(previous, at) * 1000.0 / tokens as f64;
        out.extend(std::iter::repeat_n(per_token, tokens as usize));
    }
}

/// A stream's decode progress inside the window: from its first token-bearing chunk in the
/// window (the anchor) to its last, the tokens that arrived after the anchor and the time
/// between. A request's first token ends its prefill, so it never starts a span early.
pub fn decode_span(chunks: &[(Instant, u64)], start: Instant, end: Instant) -> (u64, Duration) {
    let mut inside = chunks.iter().filter(|(at, _)| *at >= start && *at <= end);
    let Some(&(anchor, _)) = inside.next() else {
        return (0, Duration::ZERO);
    };
    let mut tokens = 0;
    let mut last = anchor;
    for &(at, n) in inside {
        tokens += n;
        last = at;
    }
    (tokens, last - anchor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        // Exact values of t(0.975, df).
        for (df, exact) in [
            (4.0, 2.776_445),
            (9.0, 2.262_157),
            (29.0, 2.045_230),
            (1e9, 1.959_964),
        ] {
            assert!(
                (t_975(df) - exact).abs() < 1e-3,
                "df {df}: {} vs {exact}",
                t_975(df)
            );
        }
    }

    #[test]
    fn batch_means_give_the_textbook_interval() {
        assert_eq!(mean_ci95(&[1.0, 2.0, 3.0, 4.0]), None);
        // Mean 10, sample sd 1.5811 over 5 values: half-width t(4) × sd / √5 = 1.963.
        let (mean, half) = mean_ci95(&[8.0, 9.0, 10.0, 11.0, 12.0]).unwrap();
        assert!((mean - 10.0).abs() < 1e-12);
        assert!(
            (half - 2.776_445 * 1.581_139 / 5f64.sqrt()).abs() < 5e-3,
            "{half}"
        );
        assert_eq!(mean_ci95(&[5.0; 10]), Some((5.0, 0.0)));
    }

    fn at(base: Instant, ms: u64) -> Instant {
        base + Duration::from_millis(ms)
    }

    #[test]
    fn percentiles_interpolate_linearly() {
        let values = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(percentile(&values, 0.0), Some(1.0));
        assert_eq!(percentile(&values, 100.0), Some(4.0));
        assert_eq!(median(&values), Some(2.5));
        assert!((percentile(&values, 99.0).unwrap() - 3.97).abs() < 1e-9);
        assert_eq!(median(&[7.0]), Some(7.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn multi_token_chunks_weigh_by_their_tokens() {
        let t = Instant::now();
        // 10 ms gaps carrying one token, then one 30 ms gap carrying 3 tokens (10 ms each),
        // then a 40 ms gap with 1 token.
        let chunks = [
            (at(t, 0), 1),
            (at(t, 10), 1),
            (at(t, 20), 1),
            (at(t, 50), 3),
            (at(t, 90), 1),
        ];
        let mut samples = Vec::new();
        itl_samples(&chunks, t, at(t, 1000), &mut samples);
        assert_eq!(
            samples.len(),
            6,
            "one sample per token after the first chunk"
        );
        let ten = samples.iter().filter(|v| (**v - 10.0).abs() < 1e-9).count();
        assert_eq!(ten, 5);
        assert_eq!(median(&samples), Some(10.0));
        // Counting per chunk instead would have made the median 20 ms: [10, 10, 30, 40].
    }

    #[test]
    fn only_chunks_inside_the_window_count() {
        let t = Instant::now();
        let chunks = [
            (at(t, 0), 1),
            (at(t, 100), 1),
            (at(t, 200), 1),
            (at(t, 300), 1),
        ];
        let mut samples = Vec::new();
        itl_samples(&chunks, at(t, 150), at(t, 250), &mut samples);
        assert_eq!(samples, vec![100.0]);
        // Decode span: tokens after the first one inside, over first→last inside.
        let (tokens, span) = decode_span(&chunks, at(t, 50), at(t, 250));
        assert_eq!(tokens, 1);
        assert_eq!(span, Duration::from_millis(100));
    }

    #[test]
    fn time_weighting_holds_each_sample_until_the_next() {
        let t = Instant::now();
        // 2 running from before the window until 300 ms, then 4 until the end.
        let samples = [(at(t, 0), 2.0), (at(t, 300), 4.0)];
        let mean = time_weighted_mean(&samples, at(t, 100), at(t, 500)).unwrap();
        assert!((mean - (2.0 * 200.0 + 4.0 * 200.0) / 400.0).abs() < 1e-9);
        // A plain mean of the samples would say 3.0 regardless of timing.
        let late = [(at(t, 0), 2.0), (at(t, 450), 4.0)];
        let mean = time_weighted_mean(&late, at(t, 100), at(t, 500)).unwrap();
        assert!((mean - (2.0 * 350.0 + 4.0 * 50.0) / 400.0).abs() < 1e-9);
    }

    #[test]
    fn in_flight_counts_overlap_with_the_window() {
        let t = Instant::now();
        let intervals = [
            (at(t, 0), Some(at(t, 1000))),    // the whole window
            (at(t, 500), None),               // the second half
            (at(t, 2000), Some(at(t, 2100))), // after
        ];
        let mean = mean_overlap(&intervals, at(t, 0), at(t, 1000));
        assert!((mean - 1.5).abs() < 1e-9);
    }
}
