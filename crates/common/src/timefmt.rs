//! Calendar arithmetic without a timezone database (the sandbox is UTC; `TZ` may give a
//! fixed offset such as `UTC+3` or `EST5`): broken-down times for `ls -l` and `stat`, and
//! the date strings `touch -d`/`-t` accept.

pub const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// (year, month 1-12, day 1-31) of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + (month <= 2) as i64, month, day)
}

/// A broken-down time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tm {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub nanos: u32,
    /// Offset from UTC in seconds (east positive).
    pub offset: i64,
}

impl Tm {
    /// `secs` since the epoch, shown at `offset` seconds east of UTC.
    pub fn at(secs: i64, nanos: u32, offset: i64) -> Tm {
        let local = secs + offset;
        let (year, month, day) = civil_from_days(local.div_euclid(86400));
        let rem = local.rem_euclid(86400);
        Tm { year, month, day, hour: (rem / 3600) as u32, minute: (rem / 60 % 60) as u32, second: (rem % 60) as u32, nanos, offset }
    }

    /// `+0000`-style offset.
    pub fn offset_text(&self) -> String {
        let sign = if self.offset < 0 { '-' } else { '+' };
        let a = self.offset.abs();
        format!("{}{:02}{:02}", sign, a / 3600, a / 60 % 60)
    }

    /// `2024-01-31 12:00:00.000000000 +0000` (stat's format).
    pub fn full_iso(&self) -> String {
        format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:09} {}", self.year, self.month, self.day, self.hour, self.minute, self.second, self.nanos, self.offset_text())
    }
}

/// The local offset from `TZ` (east positive): POSIX `NAME[+-]hh[:mm[:ss]]` means hours
/// *west* of UTC; unset, empty, or a zone name alone is UTC.
pub fn local_offset() -> i64 {
    offset_of(&std::env::var("TZ").unwrap_or_default())
}

/// The zone abbreviation `%Z` shows for the process's `TZ`.
pub fn local_zone() -> String {
    zone_abbreviation(&std::env::var("TZ").unwrap_or_default())
}

/// The abbreviation of a `TZ` value: its leading name when it has three letters or more
/// (`EST5EDT` → `EST`), else `UTC`.
pub fn zone_abbreviation(tz: &str) -> String {
    let name: String = tz.trim_start_matches(':').chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    if name.len() >= 3 {
        name
    } else {
        "UTC".to_string()
    }
}

/// The offset (east positive) a `TZ` value gives (see [`local_offset`]).
pub fn offset_of(tz: &str) -> i64 {
    let tz = tz.trim_start_matches(':');
    let rest = tz.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    if rest.is_empty() {
        return 0;
    }
    let (sign, digits) = match rest.as_bytes()[0] {
        b'-' => (-1, &rest[1..]),
        b'+' => (1, &rest[1..]),
        _ => (1, rest),
    };
    let mut parts = digits.split(|c: char| !c.is_ascii_digit()).map(|p| p.parse::<i64>().unwrap_or(0));
    let seconds = parts.next().unwrap_or(0) * 3600 + parts.next().unwrap_or(0) * 60 + parts.next().unwrap_or(0);
    -sign * seconds
}

/// Now, as (seconds, nanoseconds) since the epoch.
pub fn now() -> (i64, u32) {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(_) => (0, 0),
    }
}

/// Splits nanoseconds since the epoch into (seconds, nanoseconds).
pub fn split_ns(ns: i128) -> (i64, u32) {
    (ns.div_euclid(1_000_000_000) as i64, ns.rem_euclid(1_000_000_000) as u32)
}

/// `touch -t [[CC]YY]MMDDhhmm[.ss]` in local time.
pub fn parse_touch_stamp(text: &str, now_secs: i64) -> Option<(i64, u32)> {
    let (main, secs) = match text.find('.') {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    if !main.bytes().all(|b| b.is_ascii_digit()) || !matches!(main.len(), 8 | 10 | 12) {
        return None;
    }
    let second = match secs {
        Some(s) if s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit()) => s.parse::<u32>().ok()?,
        Some(_) => return None,
        None => 0,
    };
    let num = |s: &str| s.parse::<u32>().ok();
    let n = main.len();
    let year = match n {
        12 => num(&main[..4])? as i64,
        10 => {
            let yy = num(&main[..2])? as i64;
            if yy < 69 {
                2000 + yy
            } else {
                1900 + yy
            }
        }
        _ => Tm::at(now_secs, 0, local_offset()).year,
    };
    let tail = &main[n - 8..];
    let (month, day, hour, minute) = (num(&tail[..2])?, num(&tail[2..4])?, num(&tail[4..6])?, num(&tail[6..8])?);
    to_epoch(year, month, day, hour, minute, second.min(60), local_offset()).map(|s| (s, 0))
}

fn to_epoch(year: i64, month: u32, day: u32, hour: u32, minute: u32, second: u32, offset: i64) -> Option<i64> {
    let days_in_month = [31, if is_leap(year) { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month[month as usize - 1] || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86400 + hour as i64 * 3600 + minute as i64 * 60 + second as i64 - offset)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// A `date -d`-style string, the common forms: `@SECS`, `YYYY-MM-DD[( |T)HH:MM[:SS[.frac]]]`
/// with an optional `Z`/`UTC`/`±HH[:MM]`, `HH:MM[:SS]` (today), month-name dates
/// (`Jan 2 2020`, `2 Jan 2020`), `now`/`today`/`yesterday`/`tomorrow`, and relative items
/// (`1 hour ago`, `+2 days`, `-3 weeks`, `next month`).
pub fn parse_date(text: &str, now: (i64, u32)) -> Option<(i64, u32)> {
    let text = text.trim();
    if let Some(rest) = text.strip_prefix('@') {
        return parse_epoch(rest);
    }
    let tokens = tokenize(&text.to_ascii_lowercase());
    let offset_local = local_offset();
    let today = Tm::at(now.0, 0, offset_local);
    let mut date: Option<(i64, u32, u32)> = None;
    let mut time: Option<(u32, u32, u32, u32)> = None;
    let mut zone: Option<i64> = None;
    let mut relative_secs: i64 = 0;
    let mut relative_months: i64 = 0;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        let next = tokens.get(i + 1).map(|s| s.as_str());
        if let Some(d) = parse_iso_date(t) {
            date = Some(d);
        } else if let Some(tm) = parse_clock(t) {
            time = Some(tm);
        } else if let Some(m) = month_index(t) {
            // `jan 2 [2020]`
            let day = next.and_then(|n| n.parse::<u32>().ok())?;
            i += 1;
            let mut year = today.year;
            if let Some(y) = tokens.get(i + 1).and_then(|n| if n.len() == 4 { n.parse::<i64>().ok() } else { None }) {
                year = y;
                i += 1;
            }
            date = Some((year, m, day));
        } else if t == "t" && time.is_none() {
            // the T between date and time in ISO 8601, split off by the tokenizer
        } else if t == "z" || t == "utc" || t == "gmt" {
            zone = Some(0);
        } else if (t.starts_with('+') || t.starts_with('-')) && time.is_some() && zone.is_none() && next.map_or(true, |n| unit_seconds(n).is_none() && month_unit(n).is_none()) {
            zone = Some(parse_zone(t)?);
        } else if t == "now" || t == "today" {
        } else if t == "yesterday" {
            relative_secs -= 86400;
        } else if t == "tomorrow" {
            relative_secs += 86400;
        } else if t == "ago" {
            relative_secs = -relative_secs;
            relative_months = -relative_months;
        } else if let (Some(n), Some(unit)) = (parse_count(t), next) {
            if let Some(s) = unit_seconds(unit) {
                relative_secs += n * s;
            } else if let Some(m) = month_unit(unit) {
                relative_months += n * m;
            } else if let (Some(day), Some(m)) = (t.parse::<u32>().ok(), month_index(unit)) {
                // `2 jan [2020]`
                let mut year = today.year;
                if let Some(y) = tokens.get(i + 2).and_then(|n| if n.len() == 4 { n.parse::<i64>().ok() } else { None }) {
                    year = y;
                    i += 1;
                }
                date = Some((year, m, day));
            } else {
                return None;
            }
            i += 1;
        } else if let Some(s) = unit_seconds(t) {
            relative_secs += s;
        } else if let Some(m) = month_unit(t) {
            relative_months += m;
        } else {
            return None;
        }
        i += 1;
    }
    let offset = zone.unwrap_or(offset_local);
    let (mut secs, mut nanos) = match (date, time) {
        (None, None) => now,
        (d, t) => {
            let (y, m, dd) = d.unwrap_or((today.year, today.month, today.day));
            let (h, mi, s, ns) = t.unwrap_or((0, 0, 0, 0));
            (to_epoch(y, m, dd, h, mi, s, offset)?, ns)
        }
    };
    if relative_months != 0 {
        let tm = Tm::at(secs, 0, offset);
        let total = tm.year * 12 + tm.month as i64 - 1 + relative_months;
        let (y, m) = (total.div_euclid(12), total.rem_euclid(12) as u32 + 1);
        secs = days_from_civil(y, m, tm.day) * 86400 + (tm.hour * 3600 + tm.minute * 60 + tm.second) as i64 - offset;
    }
    secs += relative_secs;
    if nanos >= 1_000_000_000 {
        nanos = 0;
    }
    Some((secs, nanos))
}

fn parse_epoch(text: &str) -> Option<(i64, u32)> {
    let (int, frac) = match text.find('.') {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (text, ""),
    };
    let secs: i64 = int.parse().ok()?;
    Some((secs, parse_fraction(frac)?))
}

fn parse_fraction(frac: &str) -> Option<u32> {
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut digits: String = frac.chars().take(9).collect();
    while digits.len() < 9 {
        digits.push('0');
    }
    digits.parse().ok()
}

/// Splits at spaces, and between an ISO date and `t`, and before a zone sign after a time.
fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        let mut w = word.to_string();
        if w.len() > 10 && w.as_bytes().get(10) == Some(&b't') && parse_iso_date(&w[..10]).is_some() {
            out.push(w[..10].to_string());
            w = w[11..].to_string();
        }
        if w.contains(':') || w.ends_with('z') {
            if let Some(p) = w.find(|c| c == '+' || c == '-' || c == 'z').filter(|p| *p > 0) {
                out.push(w[..p].to_string());
                w = w[p..].to_string();
            }
        }
        if !w.is_empty() {
            out.push(w);
        }
    }
    out
}

fn parse_iso_date(t: &str) -> Option<(i64, u32, u32)> {
    let parts: Vec<&str> = t.split('-').collect();
    if parts.len() != 3 || parts[0].len() < 4 || parts.iter().any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    Some((parts[0].parse().ok()?, parts[1].parse().ok()?, parts[2].parse().ok()?))
}

fn parse_clock(t: &str) -> Option<(u32, u32, u32, u32)> {
    if !t.contains(':') {
        return None;
    }
    let (main, frac) = match t.find(|c| c == '.' || c == ',') {
        Some(i) => (&t[..i], &t[i + 1..]),
        None => (t, ""),
    };
    let parts: Vec<&str> = main.split(':').collect();
    if parts.len() > 3 || parts.iter().any(|p| p.is_empty() || p.len() > 2 || !p.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    let n = |i: usize| parts.get(i).map_or(Some(0), |p| p.parse::<u32>().ok());
    Some((n(0)?, n(1)?, n(2)?, parse_fraction(frac)?))
}

fn parse_zone(t: &str) -> Option<i64> {
    let sign = if t.starts_with('-') { -1 } else { 1 };
    let digits: String = t[1..].chars().filter(|c| *c != ':').collect();
    if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = digits.parse().ok()?;
    let (h, m) = if digits.len() <= 2 { (n, 0) } else { (n / 100, n % 100) };
    Some(sign * (h * 3600 + m * 60))
}

fn parse_count(t: &str) -> Option<i64> {
    match t {
        "next" => Some(1),
        "last" => Some(-1),
        "this" => Some(0),
        _ => t.strip_prefix('+').unwrap_or(t).parse::<i64>().ok(),
    }
}

fn month_index(t: &str) -> Option<u32> {
    if t.len() < 3 {
        return None;
    }
    MONTHS.iter().position(|m| t.starts_with(&m.to_ascii_lowercase()) && "january february march april may june july august september october november december sept".split(' ').any(|full| full.starts_with(t))).map(|i| i as u32 + 1)
}

fn unit_seconds(t: &str) -> Option<i64> {
    Some(match t.trim_end_matches('s') {
        "sec" | "second" => 1,
        "min" | "minute" => 60,
        "hour" => 3600,
        "day" => 86400,
        "week" => 604800,
        "fortnight" => 1209600,
        _ => return None,
    })
}

fn month_unit(t: &str) -> Option<i64> {
    match t.trim_end_matches('s') {
        "month" => Some(1),
        "year" => Some(12),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil_from_days(19723), (2024, 1, 1));
        assert_eq!(days_from_civil(2000, 2, 29), 11016);
    }

    #[test]
    fn dates() {
        let now = (1_700_000_000, 0);
        assert_eq!(parse_date("2020-01-02", now), Some((1577923200, 0)));
        assert_eq!(parse_date("2020-01-02 03:04:05", now), Some((1577934245, 0)));
        assert_eq!(parse_date("2020-01-02T03:04:05Z", now), Some((1577934245, 0)));
        assert_eq!(parse_date("2020-01-02 03:04:05 +0100", now), Some((1577934245 - 3600, 0)));
        assert_eq!(parse_date("@5.5", now), Some((5, 500_000_000)));
        assert_eq!(parse_date("1 hour ago", now), Some((1_700_000_000 - 3600, 0)));
        assert_eq!(parse_date("Jan 2 2020", now), Some((1577923200, 0)));
        assert_eq!(parse_date("bogus", now), None);
        assert_eq!(parse_touch_stamp("202001020304.05", 0), Some((1577934245, 0)));
    }
}
