//! Timestamps and run ids from the wall clock. Only ids and `*_at` columns use the clock; no
//! result depends on it.

use std::time::{SystemTime, UNIX_EPOCH};

/// `(year, month, day)` of a day count since 1970-01-01 (Howard Hinnant's civil-from-days).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn parts(t: SystemTime) -> (i64, u32, u32, u64, u64, u64, u32) {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (y, m, day) = civil((secs / 86_400) as i64);
    let s = secs % 86_400;
    (y, m, day, s / 3600, s / 60 % 60, s % 60, d.subsec_millis())
}

/// RFC 3339 UTC with milliseconds (`2026-11-22T08:01:32.123Z`).
pub fn rfc3339(t: SystemTime) -> String {
    let (y, m, d, hh, mm, ss, ms) = parts(t);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}.{ms:03}Z")
}

/// `run-<yyyymmdd>-<hhmmss>-<4 hex>`; the hex comes from `salt` (e.g. sub-second nanos and pid).
pub fn run_id(t: SystemTime, salt: u64) -> String {
    let (y, m, d, hh, mm, ss, _) = parts(t);
    format!(
        "run-{y:04}{m:02}{d:02}-{hh:02}{mm:02}{ss:02}-{:04x}",
        salt & 0xffff
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn known_instants_format() {
        let cases = [
            (0u64, "1970-01-01T00:00:00.000Z"),
            (951_782_400, "2000-02-29T00:00:00.000Z"),
            (1_795_334_492, "2026-11-22T08:01:32.000Z"),
        ];
        for (secs, want) in cases {
            assert_eq!(rfc3339(UNIX_EPOCH + Duration::from_secs(secs)), want);
        }
        let t = UNIX_EPOCH + Duration::from_secs(1_795_334_492);
        assert_eq!(run_id(t, 0x1_abcd), "run-20261122-080132-abcd");
    }
}
