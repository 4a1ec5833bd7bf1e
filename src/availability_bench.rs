//! `gpumarket availability-bench`: how long a listing's availability over a year takes to
//! compute from many bookings (`domain::booking::free_segments`, one sweep), beside the
//! earlier per-segment scan on a tenth of them (quadratic, so it is not run at full size).

use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use clap::Args;
use domain::booking::Holding;

#[derive(Debug, Args)]
pub struct AvailabilityBenchArgs {
    /// Bookings on the machine (one-second bookings spread over the year).
    #[arg(long, default_value_t = 100_000)]
    bookings: usize,
}

/// Free GPUs per segment, the way it was computed before: every segment scans every booking.
fn by_scan(capacity: i32, bookings: &[Holding], from: DateTime<Utc>, to: DateTime<Utc>) -> usize {
    let mut edges = vec![from, to];
    for h in bookings {
        edges.extend([h.starts_at, h.ends_at]);
    }
    edges.sort();
    edges.dedup();
    let mut segments = 0;
    let mut last = None;
    for pair in edges.windows(2) {
        let used: i32 = bookings
            .iter()
            .filter(|h| h.starts_at < pair[1] && h.ends_at > pair[0])
            .map(|h| h.gpus)
            .sum();
        if last != Some(capacity - used) {
            segments += 1;
            last = Some(capacity - used);
        }
    }
    segments
}

fn bookings(n: usize, from: DateTime<Utc>) -> Vec<Holding> {
    let step = (365 * 24 * 3600 / n.max(1)) as i64;
    (0..n as i64)
        .map(|i| {
            let start = from + Duration::seconds(i * step);
            let id = uuid::Uuid::from_u128(i as u128).into();
            Holding::booking(id, (start, start + Duration::seconds(1)), 1)
        })
        .collect()
}

pub fn availability_bench(args: AvailabilityBenchArgs) -> anyhow::Result<std::process::ExitCode> {
    let from = DateTime::from_timestamp(1_900_000_000, 0).unwrap_or_default();
    let to = from + Duration::days(365);
    let all = bookings(args.bookings, from);
    let started = Instant::now();
    let segments = domain::booking::free_segments(2, (None, None), &all, from, to);
    let sweep = started.elapsed();
    println!(
        "sweep: {} bookings over a year -> {} segments in {:.1} ms",
        all.len(),
        segments.len(),
        sweep.as_secs_f64() * 1000.0
    );
    let tenth = bookings(args.bookings / 10, from);
    let started = Instant::now();
    let sweep_tenth = domain::booking::free_segments(2, (None, None), &tenth, from, to).len();
    let sweep_small = started.elapsed();
    let started = Instant::now();
    let scanned = by_scan(2, &tenth, from, to);
    let scan_small = started.elapsed();
    anyhow::ensure!(scanned == sweep_tenth, "the two ways disagree");
    println!(
        "at {} bookings: sweep {:.2} ms, per-segment scan {:.0} ms ({:.0}x)",
        tenth.len(),
        sweep_small.as_secs_f64() * 1000.0,
        scan_small.as_secs_f64() * 1000.0,
        scan_small.as_secs_f64() / sweep_small.as_secs_f64().max(1e-9)
    );
    Ok(std::process::ExitCode::SUCCESS)
}
