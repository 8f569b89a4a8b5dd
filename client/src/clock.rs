//! Local wall-clock time, the one place that asks the C library (the time zone rules live
//! there: TZ, /etc/localtime).

/// A moment in local time, broken down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTime {
    pub year: i32,
    /// 1..=12
    pub month: u32,
    /// 1..=31
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

/// Unix seconds now.
pub fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// `unix_secs` in local time; None when the C library cannot convert it.
pub fn local(unix_secs: i64) -> Option<LocalTime> {
    let t = libc::time_t::try_from(unix_secs).ok()?;
    // SAFETY: an all-zero `tm` is a valid value of that plain C struct, and localtime_r (the
    // thread-safe form) only reads `t` and writes into `tm`, both live for the call.
    let tm = unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        (!libc::localtime_r(&t, &mut tm).is_null()).then_some(tm)
    }?;
    let field = |v: libc::c_int| u32::try_from(v).ok();
    Some(LocalTime {
        year: tm.tm_year + 1900,
        month: field(tm.tm_mon + 1)?,
        day: field(tm.tm_mday)?,
        hour: field(tm.tm_hour)?,
        minute: field(tm.tm_min)?,
        second: field(tm.tm_sec)?,
    })
}

/// Local time now; UTC when the C library cannot say.
pub fn local_now() -> LocalTime {
    let now = now_secs();
    local(now).unwrap_or_else(|| utc(now))
}

/// `unix_secs` as UTC (days from the civil-from-days algorithm), the fallback.
pub fn utc(unix_secs: i64) -> LocalTime {
    let days = unix_secs.div_euclid(86_400);
    let secs = unix_secs.rem_euclid(86_400) as u32;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
    LocalTime {
        year,
        month,
        day,
        hour: secs / 3600,
        minute: secs / 60 % 60,
        second: secs % 60,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_breaks_down_known_moments() {
        let t = utc(0);
        assert_eq!(
            (t.year, t.month, t.day, t.hour, t.minute),
            (1970, 1, 1, 0, 0)
        );
        // 2024-02-29 13:45:07 UTC, a leap day.
        let t = utc(1_709_214_307);
        assert_eq!(
            (t.year, t.month, t.day, t.hour, t.minute, t.second),
            (2024, 2, 29, 13, 45, 7)
        );
    }

    #[test]
    fn local_time_is_within_a_day_of_utc() {
        let now = now_secs();
        let l = local(now).expect("the C library converts now");
        let u = utc(now);
        let minutes = |t: LocalTime| i64::from(t.hour * 60 + t.minute);
        // Time zones are within ±14 h; the minute past the hour agrees for whole-hour and
        // half-hour zones alike modulo 15.
        assert!(l.year >= u.year - 1 && l.year <= u.year + 1);
        assert_eq!((minutes(l) - minutes(u)).rem_euclid(15), 0);
    }
}
