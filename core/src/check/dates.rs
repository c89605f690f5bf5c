//! Reading dates for the date quantifiers.

use chrono::{DateTime, NaiveDate, NaiveDateTime};

/// Parse an RFC 3339 timestamp, a `YYYY-MM-DDTHH:MM:SS` local time or a plain
/// `YYYY-MM-DD` date, as a UTC-naive date-time.
pub fn parse_date(s: &str) -> Option<NaiveDateTime> {
    let s = s.trim();
    if let Some(d) = parse_utc_seconds(s) {
        return Some(d);
    }
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(d.naive_utc());
    }
    for fmt in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
        if let Ok(d) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(d);
        }
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
}

/// The most common timestamp, `YYYY-MM-DDTHH:MM:SSZ`, read without the
/// general parser (date checks run over every result of a response).
fn parse_utc_seconds(s: &str) -> Option<NaiveDateTime> {
    let b = s.as_bytes();
    if b.len() != 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'Z'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r].iter().try_fold(0u32, |acc, c| {
            c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
        })
    };
    let date = NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)?;
    date.and_hms_opt(num(11..13)?, num(14..16)?, num(17..19)?)
}

/// A plain date as an upper bound covers its whole day.
pub(super) fn end_of(written: &str, parsed: NaiveDateTime) -> NaiveDateTime {
    if written.trim().len() == 10 {
        parsed
            .date()
            .and_hms_milli_opt(23, 59, 59, 999)
            .unwrap_or(parsed)
    } else {
        parsed
    }
}

pub(super) fn date_part(s: &str) -> String {
    s.trim().chars().take(10).collect()
}
