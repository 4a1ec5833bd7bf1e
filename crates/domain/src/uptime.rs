//! Whether a machine stays up: its observed timeline, maintenance windows, and the uptime
//! and reliability computed from them. Pure arithmetic on values.
//!
//! A machine's engine is observed by liveness probes (and by gateway requests its engine
//! refused to connect to). Each state holds from the observation that first saw it to the
//! one that first saw otherwise, so an outage is measured to within one probe period at
//! either end. Observations further apart than [`gap`] leave the time between them
//! unknown: neither up nor down.

use chrono::{DateTime, Duration, Utc};

use crate::ValidationError;

/// A stretch of one state, `[from, until)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub up: bool,
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
}

/// A maintenance window as uptime sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    /// Announced at least the notice period ahead: its time is left out of uptime.
    /// Announced later, it counts as downtime.
    pub in_time: bool,
}

/// The longest a maintenance window may last.
pub const MAX_WINDOW_DAYS: i64 = 14;
/// The longest a window's reason may be, in characters.
pub const MAX_REASON_CHARS: usize = 500;

/// How far apart two observations may be for the time between them to count: three probe
/// periods (a probe is jittered by a tenth of its period, and one may fail to be made).
pub fn gap(period: Duration) -> Duration {
    period * 3
}

/// What one observation does to the timeline, given its latest span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The latest span goes on until the observation.
    Extend { until: DateTime<Utc> },
    /// The latest span ends at the observation, and a span of the other state starts there.
    Change { at: DateTime<Utc> },
    /// A new span starts at the observation (the first, or after a gap).
    Start { at: DateTime<Utc> },
    /// The observation is older than the latest span's end: nothing changes.
    Stale,
}

/// What observing `up` at `at` does to a timeline whose latest span is `latest`.
pub fn observe(latest: Option<&Span>, up: bool, at: DateTime<Utc>, gap: Duration) -> Step {
    match latest {
        None => Step::Start { at },
        Some(span) if at < span.until => Step::Stale,
        Some(span) if at - span.until > gap => Step::Start { at },
        Some(span) if span.up == up => Step::Extend { until: at },
        Some(_) => Step::Change { at },
    }
}

/// Whether a window announced at `announced` for `from` gave the notice due.
pub fn in_time(announced: DateTime<Utc>, from: DateTime<Utc>, notice: Duration) -> bool {
    from - announced >= notice
}

/// The share of `[from, to)` the machine was up, of the time it was observed up or down:
/// time inside a window announced in time is left out, time inside one announced late
/// counts as down, time no observation covers is left out. `None` when nothing is left.
/// (Spans of one timeline never overlap; were an up and a down span to, up would count.)
pub fn uptime(
    spans: &[Span],
    windows: &[Window],
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Option<f64> {
    if to <= from {
        return None;
    }
    // One sweep over every start and end in time order (O(n log n)): what covers each
    // stretch between two of them is counted, by kind.
    #[derive(Clone, Copy)]
    enum Kind {
        Excused,
        Late,
        Up,
        Down,
    }
    let mut edges: Vec<(DateTime<Utc>, Kind, i32)> =
        Vec::with_capacity(2 * (spans.len() + windows.len()));
    let mut add = |a: DateTime<Utc>, b: DateTime<Utc>, kind: Kind| {
        let (a, b) = (a.max(from), b.min(to));
        if a < b {
            edges.extend([(a, kind, 1), (b, kind, -1)]);
        }
    };
    for s in spans {
        add(s.from, s.until, if s.up { Kind::Up } else { Kind::Down });
    }
    for w in windows {
        add(
            w.from,
            w.until,
            if w.in_time { Kind::Excused } else { Kind::Late },
        );
    }
    edges.sort_by_key(|&(at, _, delta)| (at, delta));
    let mut open = [0i32; 4];
    let (mut up, mut down) = (0i64, 0i64);
    let mut last: Option<DateTime<Utc>> = None;
    for (at, kind, delta) in edges {
        if let Some(since) = last {
            let ms = (at - since).num_milliseconds();
            match open {
                [0, late, ups, downs] if late > 0 || (ups == 0 && downs > 0) => down += ms,
                [0, _, ups, _] if ups > 0 => up += ms,
                _ => {}
            }
        }
        open[kind as usize] += delta;
        last = Some(at);
    }
    let observed = up + down;
    (observed > 0).then(|| up as f64 / observed as f64)
}

/// A machine's state now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    Up {
        since: DateTime<Utc>,
    },
    Down {
        since: DateTime<Utc>,
    },
    /// Inside a maintenance window, until its end.
    Maintenance {
        until: DateTime<Utc>,
    },
    /// Never observed.
    Unknown,
}

impl Liveness {
    /// From the last observed state (`up`, since when) and the windows: a window covering
    /// `now` wins.
    pub fn at(
        observed: Option<(bool, DateTime<Utc>)>,
        windows: &[Window],
        now: DateTime<Utc>,
    ) -> Self {
        if let Some(w) = windows.iter().find(|w| w.from <= now && now < w.until) {
            return Self::Maintenance { until: w.until };
        }
        match observed {
            Some((true, since)) => Self::Up { since },
            Some((false, since)) => Self::Down { since },
            None => Self::Unknown,
        }
    }

    /// `up`, `down`, `maintenance` or `unknown`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Up { .. } => "up",
            Self::Down { .. } => "down",
            Self::Maintenance { .. } => "maintenance",
            Self::Unknown => "unknown",
        }
    }
}

/// A maintenance window as a provider asks for it: not reversed, not empty, not starting in
/// the past (a minute of grace, then it starts `now`: its start is returned), at most [`MAX_WINDOW_DAYS`] long, with a reason of at most
/// [`MAX_REASON_CHARS`] characters (trimmed; it may be empty).
pub fn window_request(
    from: DateTime<Utc>,
    until: DateTime<Utc>,
    reason: &str,
    now: DateTime<Utc>,
) -> Result<(DateTime<Utc>, String), ValidationError> {
    if until <= from {
        return Err(ValidationError::new("until", "must be after from"));
    }
    // A minute of grace for clocks and latency; a window never reaches into the past.
    if from < now - Duration::minutes(1) {
        return Err(ValidationError::new("from", "must not be in the past"));
    }
    let from = from.max(now);
    if until <= from {
        return Err(ValidationError::new("until", "must be in the future"));
    }
    if until - from > Duration::days(MAX_WINDOW_DAYS) {
        return Err(ValidationError::new(
            "until",
            format!("a window may last at most {MAX_WINDOW_DAYS} days"),
        ));
    }
    Ok((
        from,
        crate::bounded_text("reason", reason, 0, MAX_REASON_CHARS)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(minutes: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_900_000_000, 0).unwrap() + Duration::minutes(minutes)
    }

    fn span(up: bool, from: i64, until: i64) -> Span {
        Span {
            up,
            from: t(from),
            until: t(until),
        }
    }

    #[test]
    fn observations_extend_change_or_start_spans() {
        let gap = gap(Duration::minutes(5));
        let latest = span(true, 0, 10);
        assert_eq!(observe(None, true, t(3), gap), Step::Start { at: t(3) });
        assert_eq!(
            observe(Some(&latest), true, t(15), gap),
            Step::Extend { until: t(15) }
        );
        assert_eq!(
            observe(Some(&latest), false, t(15), gap),
            Step::Change { at: t(15) }
        );
        assert_eq!(
            observe(Some(&latest), false, t(26), gap),
            Step::Start { at: t(26) },
            "after a gap of more than three periods nothing is assumed"
        );
        assert_eq!(observe(Some(&latest), false, t(9), gap), Step::Stale);
    }

    #[test]
    fn uptime_is_weighted_by_time_and_skips_the_unknown() {
        let spans = [span(true, 0, 45), span(false, 45, 60)];
        assert_eq!(uptime(&spans, &[], t(0), t(60)), Some(0.75));
        // Nothing observed in [60, 120): the share is of the observed hour.
        assert_eq!(uptime(&spans, &[], t(0), t(120)), Some(0.75));
        assert_eq!(uptime(&spans, &[], t(30), t(60)), Some(0.5));
        assert_eq!(uptime(&spans, &[], t(60), t(120)), None);
        assert_eq!(uptime(&[], &[], t(0), t(60)), None);
    }

    #[test]
    fn windows_announced_in_time_are_left_out_and_late_ones_count_as_down() {
        let spans = [span(true, 0, 30), span(false, 30, 60)];
        let announced = Window {
            from: t(30),
            until: t(60),
            in_time: true,
        };
        assert_eq!(uptime(&spans, &[announced], t(0), t(60)), Some(1.0));
        let late = Window {
            in_time: false,
            ..announced
        };
        assert_eq!(uptime(&spans, &[late], t(0), t(60)), Some(0.5));
        // A late window counts as down even where probes saw the machine up.
        let late_over_up = Window {
            from: t(0),
            until: t(15),
            in_time: false,
        };
        assert_eq!(uptime(&spans, &[late_over_up], t(0), t(30)), Some(0.5));
        assert!(in_time(t(0), t(24 * 60), Duration::hours(24)));
        assert!(!in_time(t(1), t(24 * 60), Duration::hours(24)));
    }

    #[test]
    fn the_state_now_prefers_a_window() {
        let window = Window {
            from: t(10),
            until: t(20),
            in_time: true,
        };
        assert_eq!(
            Liveness::at(Some((false, t(5))), &[window], t(12)),
            Liveness::Maintenance { until: t(20) }
        );
        assert_eq!(
            Liveness::at(Some((false, t(5))), &[window], t(20)),
            Liveness::Down { since: t(5) }
        );
        assert_eq!(Liveness::at(None, &[], t(0)), Liveness::Unknown);
        assert_eq!(Liveness::Unknown.name(), "unknown");
    }

    #[test]
    fn window_requests_are_checked() {
        let now = t(0);
        assert!(
            window_request(t(10), t(20), " disk swap ", now)
                .is_ok_and(|r| r == (t(10), "disk swap".to_owned()))
        );
        assert_eq!(
            window_request(t(20), t(10), "", now).unwrap_err().field,
            "until"
        );
        assert_eq!(
            window_request(t(-20), t(-10), "", now).unwrap_err().field,
            "from",
            "a window never reaches into the past"
        );
        assert_eq!(
            window_request(t(-20), t(10), "", now).unwrap_err().field,
            "from"
        );
        // Within the minute of grace it starts now.
        let late = now - Duration::seconds(20);
        assert_eq!(window_request(late, t(10), "", now).unwrap().0, now);
        assert_eq!(
            window_request(t(0), t(15 * 24 * 60), "", now)
                .unwrap_err()
                .field,
            "until"
        );
        assert_eq!(
            window_request(t(0), t(10), &"x".repeat(501), now)
                .unwrap_err()
                .field,
            "reason"
        );
    }
}
