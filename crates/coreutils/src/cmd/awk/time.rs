//! strftime(), mktime() and systime() without a timezone database: the sandbox runs in
//! UTC, and `TZ` may give a fixed offset (`EST5`, `UTC-3`), as common::timefmt reads it.

use super::value::Value;

const DAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS: [&str; 12] = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

pub fn now_seconds() -> i64 {
    common::timefmt::now().0
}

/// The zone's name for %Z: the letters of TZ (glibc), GMT for gmtime, else UTC.
fn zone_name(utc: bool) -> String {
    if utc {
        return "GMT".to_string();
    }
    let tz = std::env::var("TZ").unwrap_or_default();
    let name: String = tz.trim_start_matches(':').chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    if name.len() >= 3 {
        name
    } else {
        "UTC".to_string()
    }
}

struct Broken {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    weekday: u32,
    yday: u32,
    offset: i64,
    epoch: i64,
}

fn broken(epoch: i64, offset: i64) -> Broken {
    let tm = common::timefmt::Tm::at(epoch, 0, offset);
    let days = (epoch + offset).div_euclid(86400);
    let weekday = (days + 4).rem_euclid(7) as u32;
    let yday = (days - common::timefmt::days_from_civil(tm.year, 1, 1)) as u32;
    Broken { year: tm.year, month: tm.month, day: tm.day, hour: tm.hour, minute: tm.minute, second: tm.second, weekday, yday, offset, epoch }
}

/// ISO 8601 week-based year and week number.
fn iso_week(t: &Broken) -> (i64, u32) {
    let wday = (t.weekday + 6) % 7; // Monday = 0
    let mut year = t.year;
    let mut week = (t.yday as i64 - wday as i64 + 10) / 7;
    if week < 1 {
        year -= 1;
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days_prev = if leap { 366 } else { 365 };
        week = (t.yday as i64 + days_prev - wday as i64 + 10) / 7;
    } else {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days = if leap { 366 } else { 365 };
        if t.yday as i64 - wday as i64 + 3 >= days {
            year += 1;
            week = 1;
        }
    }
    (year, week as u32)
}

fn push_num(out: &mut String, value: i64, width: usize, pad: char, flag: Option<char>) {
    let text = value.abs().to_string();
    if value < 0 {
        out.push('-');
    }
    let pad = match flag {
        Some('-') => None,
        Some('_') => Some(' '),
        Some('0') => Some('0'),
        _ => Some(pad),
    };
    if let Some(p) = pad {
        for _ in text.len()..width {
            out.push(p);
        }
    }
    out.push_str(&text);
}

/// Formats like C's strftime in the C locale.
pub fn strftime(format: &[u8], epoch: i64, utc: bool) -> Vec<u8> {
    let offset = if utc { 0 } else { common::timefmt::local_offset() };
    let t = broken(epoch, offset);
    let mut out = String::new();
    let text = String::from_utf8_lossy(format);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut flag = None;
        if let Some(&f) = chars.peek() {
            if matches!(f, '-' | '_' | '0' | '^' | '#') {
                flag = Some(f);
                chars.next();
            }
        }
        if let Some(&m) = chars.peek() {
            if m == 'E' || m == 'O' {
                chars.next();
            }
        }
        let conv = match chars.next() {
            Some(c) => c,
            None => {
                out.push('%');
                break;
            }
        };
        let start = out.len();
        let hour12 = if t.hour % 12 == 0 { 12 } else { t.hour % 12 };
        match conv {
            'a' => out.push_str(&DAYS[t.weekday as usize][..3]),
            'A' => out.push_str(DAYS[t.weekday as usize]),
            'b' | 'h' => out.push_str(&MONTHS[t.month as usize - 1][..3]),
            'B' => out.push_str(MONTHS[t.month as usize - 1]),
            'c' => out.push_str(&String::from_utf8_lossy(&strftime(b"%a %b %e %H:%M:%S %Y", epoch, utc))),
            'C' => push_num(&mut out, t.year.div_euclid(100), 2, '0', flag),
            'd' => push_num(&mut out, t.day as i64, 2, '0', flag),
            'D' => out.push_str(&String::from_utf8_lossy(&strftime(b"%m/%d/%y", epoch, utc))),
            'e' => push_num(&mut out, t.day as i64, 2, ' ', flag),
            'F' => out.push_str(&String::from_utf8_lossy(&strftime(b"%Y-%m-%d", epoch, utc))),
            'g' => push_num(&mut out, iso_week(&t).0.rem_euclid(100), 2, '0', flag),
            'G' => push_num(&mut out, iso_week(&t).0, 1, '0', flag),
            'H' => push_num(&mut out, t.hour as i64, 2, '0', flag),
            'I' => push_num(&mut out, hour12 as i64, 2, '0', flag),
            'j' => push_num(&mut out, t.yday as i64 + 1, 3, '0', flag),
            'k' => push_num(&mut out, t.hour as i64, 2, ' ', flag),
            'l' => push_num(&mut out, hour12 as i64, 2, ' ', flag),
            'm' => push_num(&mut out, t.month as i64, 2, '0', flag),
            'M' => push_num(&mut out, t.minute as i64, 2, '0', flag),
            'n' => out.push('\n'),
            'p' => out.push_str(if t.hour < 12 { "AM" } else { "PM" }),
            'P' => out.push_str(if t.hour < 12 { "am" } else { "pm" }),
            'r' => out.push_str(&String::from_utf8_lossy(&strftime(b"%I:%M:%S %p", epoch, utc))),
            'R' => out.push_str(&String::from_utf8_lossy(&strftime(b"%H:%M", epoch, utc))),
            's' => out.push_str(&t.epoch.to_string()),
            'S' => push_num(&mut out, t.second as i64, 2, '0', flag),
            't' => out.push('\t'),
            'T' | 'X' => out.push_str(&String::from_utf8_lossy(&strftime(b"%H:%M:%S", epoch, utc))),
            'u' => push_num(&mut out, if t.weekday == 0 { 7 } else { t.weekday as i64 }, 1, '0', flag),
            'U' => push_num(&mut out, ((t.yday + 7 - t.weekday) / 7) as i64, 2, '0', flag),
            'V' => push_num(&mut out, iso_week(&t).1 as i64, 2, '0', flag),
            'w' => push_num(&mut out, t.weekday as i64, 1, '0', flag),
            'W' => push_num(&mut out, ((t.yday + 7 - (t.weekday + 6) % 7) / 7) as i64, 2, '0', flag),
            'x' => out.push_str(&String::from_utf8_lossy(&strftime(b"%m/%d/%y", epoch, utc))),
            'y' => push_num(&mut out, t.year.rem_euclid(100), 2, '0', flag),
            'Y' => push_num(&mut out, t.year, 1, '0', flag),
            'z' => {
                let a = t.offset.abs();
                out.push_str(&format!("{}{:02}{:02}", if t.offset < 0 { '-' } else { '+' }, a / 3600, a / 60 % 60));
            }
            'Z' => out.push_str(&zone_name(utc)),
            '%' => out.push('%'),
            other => {
                out.push('%');
                out.push(other);
            }
        }
        if flag == Some('^') {
            let upper = out[start..].to_uppercase();
            out.truncate(start);
            out.push_str(&upper);
        }
    }
    out.into_bytes()
}

/// strftime([format [, timestamp [, utc]]]).
pub fn strftime_builtin(args: &[Value], default_format: Option<Vec<u8>>, convfmt: &[u8]) -> Vec<u8> {
    let format = match args.first() {
        Some(v) => v.to_str(convfmt).to_vec(),
        None => default_format.unwrap_or_else(|| b"%a %b %e %H:%M:%S %Z %Y".to_vec()),
    };
    if format.is_empty() {
        return Vec::new();
    }
    let epoch = match args.get(1) {
        Some(v) => {
            let n = v.to_num();
            if !n.is_finite() || n.abs() > 6.7e16 {
                return Vec::new();
            }
            n as i64
        }
        None => now_seconds(),
    };
    let utc = args.get(2).map_or(false, |v| v.is_true());
    strftime(&format, epoch, utc)
}

/// mktime("YYYY MM DD HH MM SS [DST]" [, utc]): -1 when fewer than six numbers are given.
/// Out-of-range fields are normalized, as C's mktime does.
pub fn mktime(spec: &[u8], utc: bool) -> f64 {
    let text = String::from_utf8_lossy(spec);
    let mut numbers = Vec::new();
    for word in text.split_whitespace().take(7) {
        let digits: String = word.chars().enumerate().take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+'))).map(|(_, c)| c).collect();
        match digits.parse::<i64>() {
            Ok(n) => numbers.push(n),
            Err(_) => break,
        }
        if digits.len() != word.len() {
            break;
        }
    }
    if numbers.len() < 6 {
        return -1.0;
    }
    let (year, month) = (numbers[0], numbers[1] - 1);
    let year = year + month.div_euclid(12);
    let month = month.rem_euclid(12) as u32 + 1;
    let days = common::timefmt::days_from_civil(year, month, 1) + numbers[2] - 1;
    let offset = if utc { 0 } else { common::timefmt::local_offset() };
    (days * 86400 + numbers[3] * 3600 + numbers[4] * 60 + numbers[5] - offset) as f64
}
