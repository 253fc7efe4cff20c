//! `date -d STRING` as gnulib's parse-datetime reads it, for the forms people write: items
//! in any order — a calendar date (`2024-02-29`, `2/29/2024`, `29 Feb 2024`, `Feb 29, 2024`,
//! `20240229`), a time (`12:00[:00[.frac]]`, `5pm`, optionally with a zone offset), a zone
//! (`UTC`, `Z`, `EST`, `+0200`, military letters), a weekday (`monday`, `next fri`), relative
//! items (`3 days ago`, `+2 hours`, `next week`, `tomorrow`), a bare number (year, date or
//! hour by GNU's rules), and `@SECONDS`. The result is computed the way parse-datetime
//! does: the date and time in the given zone (default: the local offset), then the weekday,
//! then relative years/months/days (calendar arithmetic), then hours/minutes/seconds.

use common::timefmt::{civil_from_days, days_from_civil, Tm};

#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// A number: its sign if one was written, value, digit count, fraction in ns.
    Num { sign: i64, signed: bool, value: i64, digits: usize, frac: Option<u32> },
    Word(String),
    Punct(u8),
}

fn tokenize(text: &[u8]) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'(' {
            // Comments nest, as in parse-datetime.
            let mut depth = 0;
            while i < text.len() {
                match text[i] {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
                i += 1;
                if depth == 0 {
                    break;
                }
            }
        } else if c.is_ascii_digit() || ((c == b'+' || c == b'-') && next_digit(text, i + 1).is_some()) {
            let (sign, signed) = match c {
                b'-' => (-1, true),
                b'+' => (1, true),
                _ => (1, false),
            };
            if signed {
                i = next_digit(text, i + 1)?;
            }
            let start = i;
            let mut value: i64 = 0;
            while i < text.len() && text[i].is_ascii_digit() {
                value = value.checked_mul(10)?.checked_add((text[i] - b'0') as i64)?;
                i += 1;
            }
            let digits = i - start;
            let mut frac = None;
            if i + 1 < text.len() && (text[i] == b'.' || text[i] == b',') && text[i + 1].is_ascii_digit() {
                i += 1;
                let (mut ns, mut n) = (0u32, 0);
                while i < text.len() && text[i].is_ascii_digit() {
                    if n < 9 {
                        ns = ns * 10 + (text[i] - b'0') as u32;
                        n += 1;
                    }
                    i += 1;
                }
                frac = Some(ns * 10u32.pow(9 - n));
            }
            out.push(Token::Num { sign, signed, value, digits, frac });
        } else if c.is_ascii_alphabetic() {
            let start = i;
            while i < text.len() && (text[i].is_ascii_alphabetic() || text[i] == b'.') {
                i += 1;
            }
            let word: String = text[start..i].iter().filter(|b| **b != b'.').map(|b| b.to_ascii_uppercase() as char).collect();
            out.push(Token::Word(word));
        } else {
            out.push(Token::Punct(c));
            i += 1;
        }
    }
    Some(out)
}

/// Where the digits after a sign start (blanks may come between, as in parse-datetime).
fn next_digit(text: &[u8], mut i: usize) -> Option<usize> {
    while i < text.len() && text[i].is_ascii_whitespace() {
        i += 1;
    }
    if i < text.len() && text[i].is_ascii_digit() {
        Some(i)
    } else {
        None
    }
}

#[derive(Default)]
struct State {
    date: Option<(Option<i64>, i64, i64, usize)>, // year (digits), month, day, year digits
    time: Option<(i64, i64, i64, u32)>,
    zone: Option<i64>,
    weekday: Option<(i64, i64)>, // ordinal, day number (0 = Sunday)
    rel_months: i64,
    rel_days: i64,
    rel_seconds: i64,
    rels_seen: bool,
    dates_seen: usize,
    times_seen: usize,
    zones_seen: usize,
    days_seen: usize,
}

const WEEKDAYS: [&str; 7] = ["SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY"];
const MONTHS: [&str; 12] = ["JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST", "SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER"];

fn month_of(word: &str) -> Option<i64> {
    if word == "SEPT" {
        return Some(9);
    }
    MONTHS.iter().position(|m| *m == word || (word.len() == 3 && m.starts_with(word))).map(|i| i as i64 + 1)
}

fn weekday_of(word: &str) -> Option<i64> {
    let extra = [("TUES", 2), ("WEDNES", 3), ("THUR", 4), ("THURS", 4)];
    if let Some((_, d)) = extra.iter().find(|(w, _)| *w == word) {
        return Some(*d);
    }
    WEEKDAYS.iter().position(|d| *d == word || (word.len() == 3 && d.starts_with(word))).map(|i| i as i64)
}

fn ordinal_of(word: &str) -> Option<i64> {
    let words = ["LAST", "THIS", "NEXT", "FIRST", "", "THIRD", "FOURTH", "FIFTH", "SIXTH", "SEVENTH", "EIGHTH", "NINTH", "TENTH", "ELEVENTH", "TWELFTH"];
    words.iter().position(|w| !w.is_empty() && *w == word).map(|i| i as i64 - 1)
}

/// A relative unit: (months, seconds) per unit.
fn unit_of(word: &str) -> Option<(i64, i64)> {
    let w = if word.len() > 3 && word.ends_with('S') { &word[..word.len() - 1] } else { word };
    Some(match w {
        "YEAR" => (12, 0),
        "MONTH" => (1, 0),
        "FORTNIGHT" => (0, 14 * 86400),
        "WEEK" => (0, 7 * 86400),
        "DAY" => (0, 86400),
        "HOUR" => (0, 3600),
        "MINUTE" | "MIN" => (0, 60),
        "SECOND" | "SEC" => (0, 1),
        _ => return None,
    })
}

/// Zone abbreviations: offset in seconds east of UTC.
fn zone_of(word: &str) -> Option<i64> {
    let hours = match word {
        "GMT" | "UT" | "UTC" | "WET" | "Z" => 0,
        "BST" | "CET" | "WEST" | "MET" => 1,
        "CEST" | "EET" | "MEST" => 2,
        "EEST" | "MSK" => 3,
        "EST" => -5,
        "EDT" | "AST" => -4,
        "CST" => -6,
        "CDT" => -5,
        "MST" => -7,
        "MDT" => -6,
        "PST" => -8,
        "PDT" => -7,
        "AKST" => -9,
        "HST" => -10,
        "JST" => 9,
        "IST" => return Some(5 * 3600 + 1800),
        w if w.len() == 1 && w != "J" => {
            // Military zones: A-I +1..+9, K-M +10..+12, N-Y -1..-12.
            let c = w.as_bytes()[0];
            match c {
                b'A'..=b'I' => (c - b'A' + 1) as i64,
                b'K'..=b'M' => (c - b'K' + 10) as i64,
                b'N'..=b'Y' => -((c - b'N' + 1) as i64),
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(hours * 3600)
}

/// `+hh`, `+hhmm`, `+hh:mm` as seconds east of UTC.
fn offset_value(sign: i64, value: i64, digits: usize, minutes: Option<i64>) -> Option<i64> {
    let (h, m) = match minutes {
        Some(m) => (value, m),
        None if digits <= 2 => (value, 0),
        None => (value / 100, value % 100),
    };
    if h > 24 || m > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60))
}

fn two_digit_year(year: i64, digits: usize) -> i64 {
    if digits <= 2 {
        if year < 69 {
            year + 2000
        } else {
            year + 1900
        }
    } else {
        year
    }
}

/// Parses `text` relative to `now` (seconds, nanoseconds) with the local zone at
/// `local_offset`; the result is (seconds, nanoseconds) since the epoch, None if invalid.
pub fn parse(text: &[u8], now: (i64, u32), local_offset: i64) -> Option<(i64, u32)> {
    let trimmed = text.iter().position(|b| !b.is_ascii_whitespace()).map_or(&text[..0], |p| &text[p..]);
    if let Some(rest) = trimmed.strip_prefix(b"@") {
        return epoch(rest);
    }
    let tokens = tokenize(text)?;
    let mut st = State::default();
    let mut i = 0;
    while i < tokens.len() {
        i = item(&tokens, i, &mut st)?;
    }
    if st.dates_seen > 1 || st.times_seen > 1 || st.zones_seen > 1 || st.days_seen > 1 {
        return None;
    }
    compute(&st, now, local_offset)
}

fn epoch(text: &[u8]) -> Option<(i64, u32)> {
    let tokens = tokenize(text)?;
    match tokens.as_slice() {
        [Token::Num { sign, value, frac, .. }] => {
            let ns = frac.unwrap_or(0) as i64;
            let total = (*sign as i128) * (*value as i128 * 1_000_000_000 + ns as i128);
            let secs = total.div_euclid(1_000_000_000);
            Some((i64::try_from(secs).ok()?, total.rem_euclid(1_000_000_000) as u32))
        }
        _ => None,
    }
}

fn num_at(tokens: &[Token], i: usize) -> Option<(i64, bool, i64, usize, Option<u32>)> {
    match tokens.get(i) {
        Some(Token::Num { sign, signed, value, digits, frac }) => Some((*sign, *signed, *value, *digits, *frac)),
        _ => None,
    }
}

fn word_at(tokens: &[Token], i: usize) -> Option<&str> {
    match tokens.get(i) {
        Some(Token::Word(w)) => Some(w.as_str()),
        _ => None,
    }
}

fn punct_at(tokens: &[Token], i: usize, c: u8) -> bool {
    tokens.get(i) == Some(&Token::Punct(c))
}

fn unsigned_at(tokens: &[Token], i: usize) -> Option<(i64, usize)> {
    match num_at(tokens, i) {
        Some((_, false, v, d, None)) => Some((v, d)),
        _ => None,
    }
}

/// Parses one item at `i`; returns where the next one starts.
fn item(tokens: &[Token], i: usize, st: &mut State) -> Option<usize> {
    if let Some((sign, signed, value, digits, frac)) = num_at(tokens, i) {
        if !signed && frac.is_none() {
            // hh:mm[:ss[.frac]] [am|pm | zone offset]
            if punct_at(tokens, i + 1, b':') {
                return time(tokens, i, value, st);
            }
            if let Some(next) = word_at(tokens, i + 1) {
                if let Some(pm) = meridian(next) {
                    st.time = Some((to_hour(value, Some(pm))?, 0, 0, 0));
                    st.times_seen += 1;
                    return Some(i + 2);
                }
            }
            // yyyy-mm-dd (the lexer made -mm and -dd signed numbers)
            if let (Some((-1, true, m, _, None)), Some((-1, true, d, _, None))) = (num_at(tokens, i + 1), num_at(tokens, i + 2)) {
                st.date = Some((Some(value), m, d, digits));
                st.dates_seen += 1;
                let mut j = i + 3;
                if word_at(tokens, j) == Some("T") && unsigned_at(tokens, j + 1).is_some() && punct_at(tokens, j + 2, b':') {
                    j += 1;
                    let (v, _) = unsigned_at(tokens, j)?;
                    return time(tokens, j, v, st);
                }
                return Some(j);
            }
            // m/d[/y] or y/m/d
            if punct_at(tokens, i + 1, b'/') {
                let (second, _) = unsigned_at(tokens, i + 2)?;
                st.dates_seen += 1;
                if punct_at(tokens, i + 3, b'/') {
                    let (third, third_digits) = unsigned_at(tokens, i + 4)?;
                    st.date = Some(if digits >= 3 { (Some(value), second, third, digits) } else { (Some(third), value, second, third_digits) });
                    return Some(i + 5);
                }
                st.date = Some((None, value, second, 0));
                return Some(i + 3);
            }
            // d month [year], d-month-year
            let mut j = i + 1;
            if punct_at(tokens, j, b'-') {
                j += 1;
            }
            if let Some(month) = word_at(tokens, j).and_then(month_of) {
                st.dates_seen += 1;
                let mut year = None;
                let mut year_digits = 0;
                if let Some((_, true, y, yd, None)) = num_at(tokens, j + 1) {
                    year = Some(y);
                    year_digits = yd;
                    j += 1;
                }
                st.date = Some((year, month, value, year_digits));
                return Some(j + 1);
            }
            // N unit [ago]
            if let Some(unit) = word_at(tokens, i + 1).and_then(unit_of) {
                return Some(relative(tokens, i + 1, sign * value, unit, st));
            }
            digits_to_date_time(st, value, digits);
            return Some(i + 1);
        }
        if let (Some(unit), None) = (word_at(tokens, i + 1).and_then(unit_of), frac) {
            return Some(relative(tokens, i + 1, sign * value, unit, st));
        }
        if frac.is_some() && !signed {
            // A bare decimal is parse-datetime's seconds-relative form only with a unit.
            return None;
        }
        // A signed number followed by a weekday: "+1 monday"? parse-datetime accepts it.
        if let Some(day) = word_at(tokens, i + 1).and_then(weekday_of) {
            st.weekday = Some((sign * value, day));
            st.days_seen += 1;
            return Some(skip_comma(tokens, i + 2));
        }
        return None;
    }
    if let Some(word) = word_at(tokens, i) {
        if let Some(month) = month_of(word) {
            // month d[, year] / month d year / month-d-year
            let j = if punct_at(tokens, i + 1, b'-') { i + 2 } else { i + 1 };
            st.dates_seen += 1;
            match num_at(tokens, j) {
                Some((_, false, d, _, None)) => {
                    if punct_at(tokens, j + 1, b',') {
                        if let Some((y, yd)) = unsigned_at(tokens, j + 2) {
                            st.date = Some((Some(y), month, d, yd));
                            return Some(j + 3);
                        }
                    }
                    st.date = Some((None, month, d, 0));
                    return Some(j + 1);
                }
                Some((-1, true, d, _, None)) => {
                    let (y, yd) = match num_at(tokens, j + 1) {
                        Some((-1, true, y, yd, None)) => (Some(y), yd),
                        _ => (None, 0),
                    };
                    st.date = Some((y, month, d, yd));
                    return Some(if y.is_some() { j + 2 } else { j + 1 });
                }
                _ => return None,
            }
        }
        if let Some(day) = weekday_of(word) {
            st.weekday = Some((0, day));
            st.days_seen += 1;
            return Some(skip_comma(tokens, i + 1));
        }
        if let Some(n) = ordinal_of(word) {
            if let Some(unit) = word_at(tokens, i + 1).and_then(unit_of) {
                return Some(relative(tokens, i + 1, n, unit, st));
            }
            let day = word_at(tokens, i + 1).and_then(weekday_of)?;
            st.weekday = Some((n, day));
            st.days_seen += 1;
            return Some(skip_comma(tokens, i + 2));
        }
        if let Some(unit) = unit_of(word) {
            return Some(relative(tokens, i, 1, unit, st));
        }
        match word {
            "TOMORROW" => return Some(relative_days(tokens, i, 1, st)),
            "YESTERDAY" => return Some(relative_days(tokens, i, -1, st)),
            "TODAY" | "NOW" => return Some(relative_days(tokens, i, 0, st)),
            _ => {}
        }
        if let Some(offset) = zone_of(word) {
            st.zones_seen += 1;
            // UTC+3, GMT-05:00
            let unit_follows = word_at(tokens, i + 2).and_then(unit_of).is_some();
            if let (Some((sign, true, value, digits, None)), false) = (num_at(tokens, i + 1), unit_follows) {
                let (minutes, next) = colon_minutes(tokens, i + 2);
                st.zone = Some(offset + offset_value(sign, value, digits, minutes)?);
                return Some(next);
            }
            st.zone = Some(offset);
            return Some(i + 1);
        }
        return None;
    }
    if punct_at(tokens, i, b',') {
        return Some(i + 1);
    }
    None
}

fn skip_comma(tokens: &[Token], i: usize) -> usize {
    if punct_at(tokens, i, b',') {
        i + 1
    } else {
        i
    }
}

fn colon_minutes(tokens: &[Token], i: usize) -> (Option<i64>, usize) {
    if punct_at(tokens, i, b':') {
        if let Some((m, _)) = unsigned_at(tokens, i + 1) {
            return (Some(m), i + 2);
        }
    }
    (None, i)
}

fn meridian(word: &str) -> Option<bool> {
    match word {
        "AM" => Some(false),
        "PM" => Some(true),
        _ => None,
    }
}

fn to_hour(hour: i64, pm: Option<bool>) -> Option<i64> {
    match pm {
        None if (0..=23).contains(&hour) => Some(hour),
        Some(pm) if (1..=12).contains(&hour) => Some(hour % 12 + if pm { 12 } else { 0 }),
        _ => None,
    }
}

/// hh:mm[:ss[.frac]] at `i` (whose value is `hour`), then am/pm or a zone offset.
fn time(tokens: &[Token], i: usize, hour: i64, st: &mut State) -> Option<usize> {
    let (minute, _) = unsigned_at(tokens, i + 2)?;
    let mut j = i + 3;
    let (mut second, mut nanos) = (0, 0);
    if punct_at(tokens, j, b':') {
        match num_at(tokens, j + 1) {
            Some((_, false, s, _, frac)) => {
                second = s;
                nanos = frac.unwrap_or(0);
                j += 2;
            }
            _ => return None,
        }
    }
    let mut pm = None;
    if let Some(m) = word_at(tokens, j).and_then(meridian) {
        pm = Some(m);
        j += 1;
    } else if let Some((sign, true, value, digits, None)) = num_at(tokens, j) {
        let (minutes, next) = colon_minutes(tokens, j + 1);
        st.zone = Some(offset_value(sign, value, digits, minutes)?);
        st.zones_seen += 1;
        j = next;
    }
    if minute > 59 || second > 60 {
        return None;
    }
    st.time = Some((to_hour(hour, pm)?, minute, second, nanos));
    st.times_seen += 1;
    Some(j)
}

/// A relative item: `n` units of the unit word at `i`, negated by a following `ago`.
fn relative(tokens: &[Token], i: usize, n: i64, unit: (i64, i64), st: &mut State) -> usize {
    let (n, next) = if word_at(tokens, i + 1) == Some("AGO") { (-n, i + 2) } else { (n, i + 1) };
    st.rels_seen = true;
    if unit.0 != 0 {
        st.rel_months = st.rel_months.saturating_add(n.saturating_mul(unit.0));
    } else if unit.1 % 86400 == 0 {
        st.rel_days = st.rel_days.saturating_add(n.saturating_mul(unit.1 / 86400));
    } else {
        st.rel_seconds = st.rel_seconds.saturating_add(n.saturating_mul(unit.1));
    }
    next
}

fn relative_days(tokens: &[Token], i: usize, n: i64, st: &mut State) -> usize {
    relative(tokens, i, n, (0, 86400), st)
}

/// parse-datetime's rule for a bare number: a year after a date, a yyyymmdd date, or a
/// time (h, hh, hhmm).
fn digits_to_date_time(st: &mut State, value: i64, digits: usize) {
    if st.dates_seen > 0 && !st.rels_seen && st.date.map_or(false, |d| d.0.is_none()) && (st.times_seen > 0 || digits > 2) {
        if let Some(d) = st.date.as_mut() {
            d.0 = Some(value);
            d.3 = digits;
        }
    } else if digits > 4 {
        st.dates_seen += 1;
        st.date = Some((Some(value / 10000), value / 100 % 100, value % 100, digits - 4));
    } else {
        st.times_seen += 1;
        st.time = Some(if digits <= 2 { (value, 0, 0, 0) } else { (value / 100, value % 100, 0, 0) });
    }
}

fn days_in_month(year: i64, month: i64) -> i64 {
    days_from_civil(year + month / 12, (month % 12) as u32 + 1, 1) - days_from_civil(year, month as u32, 1)
}

fn compute(st: &State, now: (i64, u32), local_offset: i64) -> Option<(i64, u32)> {
    let offset = st.zone.unwrap_or(local_offset);
    let today = Tm::at(now.0, now.1, offset);
    let (mut year, mut month, mut day) = (today.year, today.month as i64, today.day as i64);
    if let Some((y, m, d, digits)) = st.date {
        if let Some(y) = y {
            year = two_digit_year(y, digits);
        }
        // Far beyond what time_t holds; also keeps the calendar arithmetic in range.
        if year.abs() > 1_000_000_000 {
            return None;
        }
        if !(1..=12).contains(&m) || d < 1 || d > days_in_month(year, m) {
            return None;
        }
        month = m;
        day = d;
    }
    let (hour, minute, second, nanos) = if let Some((h, m, s, ns)) = st.time {
        if h > 23 {
            return None;
        }
        (h, m, s, ns)
    } else if st.rels_seen && st.dates_seen == 0 && st.days_seen == 0 {
        (today.hour as i64, today.minute as i64, today.second as i64, today.nanos)
    } else {
        (0, 0, 0, 0)
    };
    let mut days = days_from_civil(year, month as u32, day as u32);
    if let (Some((ordinal, weekday)), 0) = (st.weekday, st.dates_seen) {
        let wday = (days + 4).rem_euclid(7);
        days = days.checked_add((ordinal - (ordinal > 0 && wday != weekday) as i64).checked_mul(7)? + (weekday - wday + 7) % 7)?;
    }
    if st.rel_months.abs() > 12_000_000_000 || st.rel_days.abs() > 400_000_000_000 {
        return None;
    }
    if st.rel_months != 0 {
        let (y, m, d) = civil_from_days(days);
        let total = y * 12 + m as i64 - 1 + st.rel_months;
        days = days_from_civil(total.div_euclid(12), total.rem_euclid(12) as u32 + 1, 1) + d as i64 - 1;
    }
    days = days.checked_add(st.rel_days)?;
    let secs = days.checked_mul(86400)?.checked_add(hour * 3600 + minute * 60 + second - offset)?.checked_add(st.rel_seconds)?;
    Some((secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: (i64, u32) = (1_763_683_200 + 3600, 0); // Fri 2025-11-21 01:00 UTC

    fn p(s: &str) -> Option<i64> {
        parse(s.as_bytes(), NOW, 0).map(|r| r.0)
    }

    #[test]
    fn forms() {
        assert_eq!(p("2024-02-29 12:00"), Some(1709208000));
        assert_eq!(p("2024-02-29T12:00:00Z"), Some(1709208000));
        assert_eq!(p("2024-02-29 14:00:00 +0200"), Some(1709208000));
        assert_eq!(p("Feb 29 2024 12:00"), Some(1709208000));
        assert_eq!(p("29 Feb 2024 12:00 UTC"), Some(1709208000));
        assert_eq!(p("Thu, 29 Feb 2024 12:00:00 +0000"), Some(1709208000));
        assert_eq!(p("2/29/2024 12pm"), Some(1709208000));
        assert_eq!(p("20240229 12:00"), Some(1709208000));
        assert_eq!(p("2024-02-30"), None);
        assert_eq!(p("@-1"), Some(-1));
        assert_eq!(p("2024-01-31 +1 month"), p("2024-03-02"));
        assert_eq!(p("2024-02-29 12:00 +1 month"), Some(1709208000 - 3600 + 29 * 86400));
        assert_eq!(p("2024-01-01 3 days ago"), p("2023-12-29"));
        assert_eq!(p("bogus"), None);
    }
}
