//! Reading dates for the date quantifiers.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime};

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
    local(s)
}

/// What chrono's `NaiveDateTime::parse_from_str` reads with
/// `%Y-%m-%dT%H:%M:%S%.f` or `%Y-%m-%d %H:%M:%S%.f`, or `NaiveDate`'s with
/// `%Y-%m-%d` (at midnight), read the way chrono reads them: whitespace
/// before each number, one to four digits of year (any number after a
/// sign), one or two of the rest, a fraction of any length (nine digits
/// count), `60` seconds as a leap second, nothing left over. Written out
/// because chrono's format-string reader is kilobytes of the wasm module for
/// three fixed formats; a test holds it to chrono's on generated input.
fn local(s: &str) -> Option<NaiveDateTime> {
    let mut r = Reader(s);
    let year = r.year()?;
    r.literal('-')?;
    let month = r.number(2)?;
    r.literal('-')?;
    let day = r.number(2)?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(year, month as u32, day as u32);
    let rest = r.0;
    if rest.is_empty() {
        return date?.and_hms_opt(0, 0, 0);
    }
    // `T`, or (the second format) any whitespace, none included.
    let mut time = Reader(rest.strip_prefix('T').unwrap_or(rest.trim_start()));
    let time = time.time().or_else(|| Reader(rest.trim_start()).time())?;
    Some(date?.and_time(time))
}

/// A reader of the text left, as chrono's parser keeps it.
struct Reader<'a>(&'a str);

impl Reader<'_> {
    /// One to `max` ASCII digits, no whitespace skipped.
    fn digits(&mut self, max: usize) -> Option<i64> {
        let count = self
            .0
            .bytes()
            .take(max)
            .take_while(u8::is_ascii_digit)
            .count();
        if count == 0 {
            return None;
        }
        let mut n: i64 = 0;
        for b in self.0[..count].bytes() {
            n = n.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
        }
        self.0 = &self.0[count..];
        Some(n)
    }

    /// A number of one to `max` digits after any whitespace.
    fn number(&mut self, max: usize) -> Option<i64> {
        self.0 = self.0.trim_start();
        self.digits(max)
    }

    /// `%Y`: four digits at most, any number after a sign.
    fn year(&mut self) -> Option<i32> {
        self.0 = self.0.trim_start();
        let year = if let Some(rest) = self.0.strip_prefix('-') {
            self.0 = rest;
            0i64.checked_sub(self.digits(usize::MAX)?)?
        } else if let Some(rest) = self.0.strip_prefix('+') {
            self.0 = rest;
            self.digits(usize::MAX)?
        } else {
            self.digits(4)?
        };
        i32::try_from(year).ok()
    }

    fn literal(&mut self, c: char) -> Option<()> {
        self.0 = self.0.strip_prefix(c)?;
        Some(())
    }

    /// `%H:%M:%S%.f` to the end of the text.
    fn time(&mut self) -> Option<NaiveTime> {
        let hour = self.number(2)?;
        self.literal(':')?;
        let minute = self.number(2)?;
        self.literal(':')?;
        let second = self.number(2)?;
        let mut nano = 0;
        if let Some(rest) = self.0.strip_prefix('.') {
            self.0 = rest;
            let before = self.0.len();
            let n = self.digits(9)?;
            let scale = 10i64.pow(9 - (before - self.0.len()) as u32);
            nano = n * scale;
            self.0 = self.0.trim_start_matches(|c: char| c.is_ascii_digit());
        }
        if !self.0.is_empty() || hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        let (second, leap) = if second == 60 {
            (59, 1_000_000_000)
        } else {
            (second, 0)
        };
        NaiveTime::from_hms_nano_opt(
            hour as u32,
            minute as u32,
            second as u32,
            (nano + leap) as u32,
        )
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// chrono's own reading of the three formats, as the core read them
    /// before [`local`].
    fn chrono_local(s: &str) -> Option<NaiveDateTime> {
        for fmt in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
            if let Ok(d) = NaiveDateTime::parse_from_str(s, fmt) {
                return Some(d);
            }
        }
        NaiveDate::parse_from_str(s, "%Y-%m-%d")
            .ok()
            .and_then(|d| d.and_hms_opt(0, 0, 0))
    }

    #[test]
    fn local_reads_as_chrono_does() {
        let seeds = [
            "2024-02-29T23:59:60.123456789",
            "2024-02-29 23:59:59.1234567891234",
            "2023-02-29",
            "2024-1-5T1:2:3",
            "+12024-01-01T00:00:00",
            "-0044-03-15 12:00:00",
            "2024- 01-\u{a0}01T 12:00:00.5",
            "2024-01-0112:00:00",
            "2024-01-01T12:00",
            "2024-01-01T12:00:00.",
            "2024-01-01T24:00:00",
            "99999999999999999999-01-01",
            "2024-13-01",
            "0000-01-01",
            "2024-01-01 ",
            " 2024-01-01",
            "2024-01-01T12:00:00Z",
        ];
        for s in seeds {
            assert_eq!(local(s), chrono_local(s), "{s:?}");
        }
        // Every string of up to a few pieces of dates, generated.
        let pieces = [
            "2024",
            "1",
            "12",
            "31",
            "60",
            "-",
            "+",
            ":",
            "T",
            " ",
            ".",
            "5",
            "123456789012",
            "00",
            "0229",
            "\u{2003}",
            "x",
            "24",
            "7",
        ];
        let mut rng: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        for _ in 0..200_000 {
            let mut s = String::new();
            // Mostly well-formed shapes, mutated.
            let base = ["2024-02-29T23:59:60.5", "2024-1-5 1:2:3", "2024-01-01"][next(3)];
            s.push_str(base);
            for _ in 0..next(3) {
                let at = next(s.len() + 1);
                let at = (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
                if next(2) == 0 {
                    s.insert_str(at, pieces[next(pieces.len())]);
                } else if at < s.len() {
                    let end = (at + 1..=s.len())
                        .find(|&i| s.is_char_boundary(i))
                        .unwrap_or(s.len());
                    s.replace_range(at..end, "");
                }
            }
            assert_eq!(local(&s), chrono_local(&s), "{s:?}");
        }
    }
}
