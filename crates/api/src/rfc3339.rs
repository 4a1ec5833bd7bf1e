//! Timestamps as JSON, byte for byte as chrono writes them (`2026-12-04T10:15:00.123Z`:
//! RFC 3339 in UTC, the fraction in 3, 6 or 9 digits as its precision needs, none when
//! whole), without chrono's trip through `core::fmt`, which cost a search page of 20 listings
//! a tenth of its CPU. Years outside 0–9999 and leap seconds are left to chrono.
//!
//! Use on a view's field: `#[serde(serialize_with = "crate::rfc3339::write")]`, or
//! `crate::rfc3339::write_option` for an `Option`.

use chrono::{DateTime, Datelike, Timelike, Utc};
use serde::Serializer;

/// The longest text the fast path writes: `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`.
const LONGEST: usize = 30;

pub fn write<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    let mut buffer = [0u8; LONGEST];
    match format(at, &mut buffer) {
        // Only ASCII digits and separators were written.
        Some(text) => serializer.serialize_str(std::str::from_utf8(text).unwrap_or_default()),
        None => serde::Serialize::serialize(at, serializer),
    }
}

pub fn write_option<S: Serializer>(
    at: &Option<DateTime<Utc>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match at {
        Some(at) => write(at, serializer),
        None => serializer.serialize_none(),
    }
}

/// `at` in `buffer`, or `None` where chrono's own formatting is needed.
fn format<'b>(at: &DateTime<Utc>, buffer: &'b mut [u8; LONGEST]) -> Option<&'b [u8]> {
    // UTC's own fields: a `DateTime`'s accessors convert to local time (here UTC) each time.
    let at = at.naive_utc();
    let year = u32::try_from(at.year()).ok().filter(|y| *y <= 9999)?;
    let nanos = at.nanosecond();
    if nanos >= 1_000_000_000 {
        return None;
    }
    let mut put = |at: usize, value: u32, digits: usize| {
        let mut value = value;
        for i in (0..digits).rev() {
            buffer[at + i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, year, 4);
    put(5, at.month(), 2);
    put(8, at.day(), 2);
    put(11, at.hour(), 2);
    put(14, at.minute(), 2);
    put(17, at.second(), 2);
    let end = if nanos == 0 {
        19
    } else if nanos.is_multiple_of(1_000_000) {
        put(20, nanos / 1_000_000, 3);
        23
    } else if nanos.is_multiple_of(1_000) {
        put(20, nanos / 1_000, 6);
        26
    } else {
        put(20, nanos, 9);
        29
    };
    for (i, c) in [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')] {
        buffer[i] = c;
    }
    if end > 19 {
        buffer[19] = b'.';
    }
    buffer[end] = b'Z';
    Some(&buffer[..=end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    #[derive(serde::Serialize)]
    struct Ours(#[serde(serialize_with = "write")] DateTime<Utc>);

    fn both(at: DateTime<Utc>) -> (String, String) {
        (
            serde_json::to_string(&Ours(at)).unwrap(),
            serde_json::to_string(&at).unwrap(),
        )
    }

    proptest! {
        #[test]
        fn written_as_chrono_writes_it(
            secs in -70_000_000_000i64..300_000_000_000,
            nanos in prop_oneof![
                Just(0u32),
                (0u32..1000).prop_map(|ms| ms * 1_000_000),
                (0u32..1_000_000).prop_map(|us| us * 1_000),
                0u32..1_000_000_000,
            ],
        ) {
            let at = Utc.timestamp_opt(secs, nanos).unwrap();
            let (ours, chrono) = both(at);
            prop_assert_eq!(ours, chrono);
        }
    }

    #[test]
    fn edges_are_written_as_chrono_writes_them() {
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .unwrap()
            .and_hms_nano_opt(23, 59, 59, 1_500_000_000)
            .unwrap()
            .and_utc();
        for at in [
            Utc.timestamp_opt(0, 0).unwrap(),
            Utc.timestamp_opt(0, 1).unwrap(),
            Utc.with_ymd_and_hms(9999, 12, 31, 23, 59, 59).unwrap(),
            Utc.with_ymd_and_hms(10000, 1, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(-1, 1, 1, 0, 0, 0).unwrap(),
            leap,
        ] {
            let (ours, chrono) = both(at);
            assert_eq!(ours, chrono);
        }
        assert_eq!(
            both(Utc.timestamp_opt(1_764_843_300, 120_000_000).unwrap()).0,
            "\"2025-12-04T10:15:00.120Z\""
        );
    }
}
