//! Dates: gmtime/mktime between epoch seconds and jq's broken-down time
//! `[year, month0, mday, hours, minutes, seconds, wday, yday]`, and strftime/strptime with
//! glibc's conversions in the C locale. The sandbox has no zone database: local time is UTC.

use super::ast::Ast;
use super::builtins::Native;
use super::interp::{err, Env, Flow, Interp, Res};
use super::value::Value;

const DAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS: [&str; 12] = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/// Days since 1970-01-01 of a civil date (month 1-12).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// (year, month 1-12, day) of a day count since the epoch.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = if z >= 0 { z } else { z - 146096 } / 146097;
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// A broken-down UTC time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tm {
    pub year: i64,
    pub mon: i64,
    pub mday: i64,
    pub hour: i64,
    pub min: i64,
    pub sec: f64,
    pub wday: i64,
    pub yday: i64,
}

pub fn gmtime(t: f64) -> Tm {
    let secs = t.floor() as i64;
    let days = secs.div_euclid(86400);
    let rem = secs.rem_euclid(86400);
    let (y, m, d) = civil_from_days(days);
    Tm {
        year: y,
        mon: m - 1,
        mday: d,
        hour: rem / 3600,
        min: rem % 3600 / 60,
        sec: (rem % 60) as f64 + (t - t.floor()),
        wday: (days + 4).rem_euclid(7),
        yday: days - days_from_civil(y, 1, 1),
    }
}

pub fn timegm(tm: &Tm) -> f64 {
    let days = days_from_civil(tm.year + tm.mon.div_euclid(12), tm.mon.rem_euclid(12) + 1, 1) + tm.mday - 1;
    (days * 86400 + tm.hour * 3600 + tm.min * 60) as f64 + tm.sec.floor()
}

fn tm_to_value(tm: &Tm) -> Value {
    Value::array(vec![
        Value::Number(tm.year as f64),
        Value::Number(tm.mon as f64),
        Value::Number(tm.mday as f64),
        Value::Number(tm.hour as f64),
        Value::Number(tm.min as f64),
        Value::Number(tm.sec),
        Value::Number(tm.wday as f64),
        Value::Number(tm.yday as f64),
    ])
}

fn value_to_tm(v: &Value, what: &str) -> Result<Tm, Flow> {
    let items = match v {
        Value::Array(a) => a,
        _ => return Err(err(format!("{} requires array inputs", what))),
    };
    let mut n = [0f64; 8];
    for (i, slot) in n.iter_mut().enumerate() {
        match items.get(i) {
            Some(Value::Number(x)) => *slot = *x,
            _ => return Err(err(format!("{} requires parsed datetime inputs", what))),
        }
    }
    Ok(Tm { year: n[0] as i64, mon: n[1] as i64, mday: n[2] as i64, hour: n[3] as i64, min: n[4] as i64, sec: n[5], wday: n[6] as i64, yday: n[7] as i64 })
}

/// ISO 8601 week-based year and week number.
fn iso_week(tm: &Tm) -> (i64, i64) {
    let wday = (tm.wday + 6) % 7; // Monday = 0
    let mut year = tm.year;
    let mut week = (tm.yday - wday + 10) / 7;
    if week < 1 {
        year -= 1;
        let prev_days = if is_leap(year) { 366 } else { 365 };
        week = (tm.yday + prev_days - wday + 10) / 7;
    } else {
        let days = if is_leap(year) { 366 } else { 365 };
        if week == 53 && tm.yday - wday + 3 >= days {
            year += 1;
            week = 1;
        }
    }
    (year, week)
}

pub fn strftime(fmt: &str, tm: &Tm) -> String {
    let mut out = String::new();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let spec = match chars.next() {
            Some(s) => s,
            None => {
                out.push('%');
                break;
            }
        };
        let hour12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 };
        let piece = match spec {
            'a' => DAYS[tm.wday.rem_euclid(7) as usize][..3].to_string(),
            'A' => DAYS[tm.wday.rem_euclid(7) as usize].to_string(),
            'b' | 'h' => MONTHS[tm.mon.rem_euclid(12) as usize][..3].to_string(),
            'B' => MONTHS[tm.mon.rem_euclid(12) as usize].to_string(),
            'c' => strftime("%a %b %e %H:%M:%S %Y", tm),
            'C' => format!("{:02}", tm.year.div_euclid(100)),
            'd' => format!("{:02}", tm.mday),
            'D' | 'x' => strftime("%m/%d/%y", tm),
            'e' => format!("{:2}", tm.mday),
            'F' => strftime("%Y-%m-%d", tm),
            'G' => iso_week(tm).0.to_string(),
            'g' => format!("{:02}", iso_week(tm).0.rem_euclid(100)),
            'H' => format!("{:02}", tm.hour),
            'I' => format!("{:02}", hour12),
            'j' => format!("{:03}", tm.yday + 1),
            'k' => format!("{:2}", tm.hour),
            'l' => format!("{:2}", hour12),
            'm' => format!("{:02}", tm.mon + 1),
            'M' => format!("{:02}", tm.min),
            'n' => "\n".to_string(),
            'p' => if tm.hour < 12 { "AM" } else { "PM" }.to_string(),
            'P' => if tm.hour < 12 { "am" } else { "pm" }.to_string(),
            'r' => strftime("%I:%M:%S %p", tm),
            'R' => strftime("%H:%M", tm),
            's' => format!("{}", timegm(tm) as i64),
            'S' => format!("{:02}", tm.sec as i64),
            't' => "\t".to_string(),
            'T' | 'X' => strftime("%H:%M:%S", tm),
            'u' => format!("{}", if tm.wday == 0 { 7 } else { tm.wday }),
            'U' => format!("{:02}", (tm.yday + 7 - tm.wday) / 7),
            'V' => format!("{:02}", iso_week(tm).1),
            'w' => format!("{}", tm.wday),
            'W' => format!("{:02}", (tm.yday + 7 - (tm.wday + 6) % 7) / 7),
            'y' => format!("{:02}", tm.year.rem_euclid(100)),
            'Y' => tm.year.to_string(),
            'z' => "+0000".to_string(),
            'Z' => "UTC".to_string(),
            '%' => "%".to_string(),
            other => format!("%{}", other),
        };
        out.push_str(&piece);
    }
    out
}

/// glibc-style strptime; None when the text does not match the format.
pub fn strptime(text: &str, fmt: &str) -> Option<Tm> {
    let mut tm = Tm { year: 1900, mday: 0, ..Tm::default() };
    let mut have_yday = false;
    let mut pm: Option<bool> = None;
    let s = text.as_bytes();
    let f = fmt.as_bytes();
    let (mut i, mut j) = (0usize, 0usize);
    fn number(s: &[u8], i: &mut usize, max_digits: usize) -> Option<i64> {
        while *i < s.len() && s[*i] == b' ' {
            *i += 1;
        }
        let neg = *i < s.len() && (s[*i] == b'-' || s[*i] == b'+') && max_digits > 4;
        let start = if neg { *i + 1 } else { *i };
        let mut end = start;
        while end < s.len() && end - start < max_digits && s[end].is_ascii_digit() {
            end += 1;
        }
        if end == start {
            return None;
        }
        let v: i64 = std::str::from_utf8(&s[start..end]).ok()?.parse().ok()?;
        *i = end;
        Some(if neg && s[start - 1] == b'-' { -v } else { v })
    }
    fn name(s: &[u8], i: &mut usize, names: &[&str]) -> Option<i64> {
        for (n, full) in names.iter().enumerate() {
            for candidate in [*full, &full[..3]] {
                if s.len() >= *i + candidate.len() && s[*i..*i + candidate.len()].eq_ignore_ascii_case(candidate.as_bytes()) {
                    *i += candidate.len();
                    return Some(n as i64);
                }
            }
        }
        None
    }
    while j < f.len() {
        let c = f[j];
        j += 1;
        if c.is_ascii_whitespace() {
            while i < s.len() && s[i].is_ascii_whitespace() {
                i += 1;
            }
            continue;
        }
        if c != b'%' {
            if i < s.len() && s[i] == c {
                i += 1;
                continue;
            }
            return None;
        }
        let spec = *f.get(j)?;
        j += 1;
        match spec {
            b'Y' => tm.year = number(s, &mut i, 5)?,
            b'm' => tm.mon = number(s, &mut i, 2)? - 1,
            b'd' | b'e' => tm.mday = number(s, &mut i, 2)?,
            b'H' | b'k' => tm.hour = number(s, &mut i, 2)?,
            b'I' | b'l' => tm.hour = number(s, &mut i, 2)? % 12,
            b'M' => tm.min = number(s, &mut i, 2)?,
            b'S' => tm.sec = number(s, &mut i, 2)? as f64,
            b'j' => {
                tm.yday = number(s, &mut i, 3)? - 1;
                have_yday = true;
            }
            b'y' => {
                let y = number(s, &mut i, 2)?;
                tm.year = if y < 69 { 2000 + y } else { 1900 + y };
            }
            b'C' => tm.year = number(s, &mut i, 2)? * 100 + tm.year.rem_euclid(100),
            b'b' | b'B' | b'h' => tm.mon = name(s, &mut i, &MONTHS)?,
            b'a' | b'A' => tm.wday = name(s, &mut i, &DAYS)?,
            b'p' | b'P' => {
                if s.len() >= i + 2 && s[i..i + 2].eq_ignore_ascii_case(b"AM") {
                    pm = Some(false);
                } else if s.len() >= i + 2 && s[i..i + 2].eq_ignore_ascii_case(b"PM") {
                    pm = Some(true);
                } else {
                    return None;
                }
                i += 2;
            }
            b's' => {
                let t = number(s, &mut i, 20)?;
                tm = gmtime(t as f64);
                continue;
            }
            b'z' => {
                while i < s.len() && s[i] == b' ' {
                    i += 1;
                }
                if i < s.len() && (s[i] == b'Z' || s[i] == b'z') {
                    i += 1;
                } else {
                    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
                        i += 1;
                    } else {
                        return None;
                    }
                    let start = i;
                    while i < s.len() && (s[i].is_ascii_digit() || s[i] == b':') {
                        i += 1;
                    }
                    if i == start {
                        return None;
                    }
                }
            }
            b'Z' => {
                while i < s.len() && s[i].is_ascii_alphabetic() {
                    i += 1;
                }
            }
            b'T' => tm = sub(&s[i..], "%H:%M:%S", tm, &mut i)?,
            b'D' => tm = sub(&s[i..], "%m/%d/%y", tm, &mut i)?,
            b'F' => tm = sub(&s[i..], "%Y-%m-%d", tm, &mut i)?,
            b'R' => tm = sub(&s[i..], "%H:%M", tm, &mut i)?,
            b'n' | b't' => {
                while i < s.len() && s[i].is_ascii_whitespace() {
                    i += 1;
                }
            }
            b'%' => {
                if i < s.len() && s[i] == b'%' {
                    i += 1;
                } else {
                    return None;
                }
            }
            _ => return None,
        }
    }
    if i != s.len() {
        return None;
    }
    if let Some(true) = pm {
        tm.hour += 12;
    }
    if have_yday && tm.mday == 0 {
        let (_, m, d) = civil_from_days(days_from_civil(tm.year, 1, 1) + tm.yday);
        tm.mon = m - 1;
        tm.mday = d;
    }
    // wday and yday follow from the date, as glibc computes them.
    let days = days_from_civil(tm.year, tm.mon + 1, tm.mday.max(1));
    tm.wday = (days + 4).rem_euclid(7);
    tm.yday = days - days_from_civil(tm.year, 1, 1);
    Some(tm)
}

/// Parses a composite conversion (%T, %D, ...) and merges its fields.
fn sub(s: &[u8], fmt: &str, base: Tm, i: &mut usize) -> Option<Tm> {
    // Try successively longer prefixes: the composite has fixed shape.
    for len in (1..=s.len()).rev() {
        if let Ok(text) = std::str::from_utf8(&s[..len]) {
            if let Some(parsed) = strptime_fields(text, fmt) {
                *i += len;
                let mut tm = base;
                for (field, value) in parsed {
                    match field {
                        'H' => tm.hour = value,
                        'M' => tm.min = value,
                        'S' => tm.sec = value as f64,
                        'm' => tm.mon = value - 1,
                        'd' => tm.mday = value,
                        'y' => tm.year = if value < 69 { 2000 + value } else { 1900 + value },
                        'Y' => tm.year = value,
                        _ => {}
                    }
                }
                return Some(tm);
            }
        }
    }
    None
}

/// The numeric fields of a simple all-numeric format, or None.
fn strptime_fields(text: &str, fmt: &str) -> Option<Vec<(char, i64)>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut fchars = fmt.chars();
    while let Some(c) = fchars.next() {
        if c == '%' {
            let spec = fchars.next()?;
            let max = if spec == 'Y' { 5 } else { 2 };
            let digits = rest.bytes().take(max).take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 {
                return None;
            }
            out.push((spec, rest[..digits].parse().ok()?));
            rest = &rest[digits..];
        } else {
            rest = rest.strip_prefix(c)?;
        }
    }
    if rest.is_empty() {
        Some(out)
    } else {
        None
    }
}

fn now() -> f64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_secs_f64(),
        Err(_) => 0.0,
    }
}

pub fn call<'p>(ip: &Interp<'p, '_>, native: Native, args: &'p [Ast], env: &Env<'p>, input: Value, cb: &mut dyn FnMut(Value) -> Res) -> Res {
    match native {
        Native::Now => cb(Value::Number(now())),
        Native::Mktime => {
            if !matches!(input, Value::Array(_)) {
                return Err(err("mktime requires array inputs"));
            }
            let tm = value_to_tm(&input, "mktime")?;
            cb(Value::Number(timegm(&tm)))
        }
        Native::Gmtime | Native::Localtime => match input {
            Value::Number(t) => cb(tm_to_value(&gmtime(t))),
            _ => Err(err(if native == Native::Gmtime { "gmtime() requires numeric inputs" } else { "localtime() requires numeric inputs" })),
        },
        Native::Strftime | Native::Strflocaltime => ip.eval(&args[0], env, input.clone(), &mut |f| {
            let name = if native == Native::Strftime { "strftime/1" } else { "strflocaltime/1" };
            let fmt = match &f {
                Value::String(s) => s.clone(),
                _ => return Err(err(format!("{} requires a string format", name))),
            };
            let tm = match &input {
                Value::Number(t) => gmtime(*t),
                Value::Array(_) => value_to_tm(&input, name).map_err(|_| err(format!("{} requires parsed datetime inputs", name)))?,
                _ => return Err(err(format!("{} requires parsed datetime inputs", name))),
            };
            cb(Value::string(strftime(&fmt, &tm)))
        }),
        Native::Strptime => ip.eval(&args[0], env, input.clone(), &mut |f| match (&input, &f) {
            (Value::String(s), Value::String(fmt)) => match strptime(s, fmt) {
                Some(tm) => cb(tm_to_value(&tm)),
                None => Err(err(format!("date \"{}\" does not match format \"{}\"", s, fmt))),
            },
            _ => Err(err("strptime/1 requires string inputs and arguments")),
        }),
        _ => Err(err("unknown time builtin")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let tm = gmtime(1425599507.0);
        assert_eq!((tm.year, tm.mon, tm.mday, tm.hour, tm.min, tm.wday, tm.yday), (2015, 2, 5, 23, 51, 4, 63));
        assert_eq!(timegm(&tm), 1425599507.0);
        assert_eq!(strftime("%Y-%m-%dT%H:%M:%SZ", &tm), "2015-03-05T23:51:47Z");
        let parsed = strptime("2015-03-05T23:51:47Z", "%Y-%m-%dT%H:%M:%SZ").unwrap();
        assert_eq!(timegm(&parsed), 1425599507.0);
        assert_eq!(gmtime(-1.0).year, 1969);
    }
}
