//! GNU `strftime` as `date +FORMAT` implements it (gnulib's nstrftime) in the C locale:
//! every conversion, the flags `-` (no padding), `_` (spaces), `0` (zeros), `^` (upper case)
//! and `#` (swapped case), a field width, the `E`/`O` modifiers (ignored in the C locale),
//! `%N` with a precision, and `%:z`, `%::z`, `%:::z`. An unknown conversion is copied as is.

use crate::timefmt::{days_from_civil, Tm};

const DAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS: [&str; 12] = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/// A moment to format: the broken-down time (with its UTC offset), the seconds since the
/// epoch (for `%s`) and the zone's abbreviation (for `%Z`).
pub struct Moment<'a> {
    pub tm: Tm,
    pub epoch: i64,
    pub zone: &'a str,
}

impl<'a> Moment<'a> {
    /// `secs` since the epoch seen at `offset` seconds east of UTC, in zone `zone`.
    pub fn new(secs: i64, nanos: u32, offset: i64, zone: &'a str) -> Moment<'a> {
        Moment { tm: Tm::at(secs, nanos, offset), epoch: secs, zone }
    }

    fn days(&self) -> i64 {
        days_from_civil(self.tm.year, self.tm.month, self.tm.day)
    }
    /// 0 = Sunday.
    fn weekday(&self) -> i64 {
        (self.days() + 4).rem_euclid(7)
    }
    /// 0-based day of the year.
    fn yday(&self) -> i64 {
        self.days() - days_from_civil(self.tm.year, 1, 1)
    }
    /// ISO 8601 week-based year and week number.
    fn iso_week(&self) -> (i64, i64) {
        let (year, yday, wday) = (self.tm.year, self.yday(), self.weekday());
        let week = |yday: i64| (yday - (wday + 6) % 7 + 10) / 7;
        let w = week(yday);
        if w < 1 {
            let prev = days_from_civil(year, 1, 1) - days_from_civil(year - 1, 1, 1);
            return (year - 1, week(yday + prev));
        }
        let len = days_from_civil(year + 1, 1, 1) - days_from_civil(year, 1, 1);
        if w == 53 && yday - (wday + 6) % 7 + 3 >= len {
            return (year + 1, 1);
        }
        (year, w)
    }
}

/// Formats `moment` by `format` (bytes: anything that is not a conversion is copied).
pub fn format(format: &[u8], moment: &Moment) -> Vec<u8> {
    format_in(format, moment, true)
}

/// The same as the C library's `strftime` in the C locale (bash's `printf %(...)T`): without
/// gnulib's additions `%N`, `%q` and `%:z`, which it leaves as they are.
pub fn format_libc(format: &[u8], moment: &Moment) -> Vec<u8> {
    format_in(format, moment, false)
}

fn format_in(format: &[u8], moment: &Moment, gnu: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < format.len() {
        if format[i] != b'%' {
            out.push(format[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut pad: Option<u8> = None;
        let (mut upcase, mut swapcase) = (false, false);
        while i < format.len() {
            match format[i] {
                b'_' | b'-' | b'0' | b'+' => pad = Some(format[i]),
                b'^' => upcase = true,
                b'#' => swapcase = true,
                _ => break,
            }
            i += 1;
        }
        let mut width: Option<usize> = None;
        while i < format.len() && format[i].is_ascii_digit() {
            width = Some(width.unwrap_or(0).saturating_mul(10).saturating_add((format[i] - b'0') as usize).min(4096));
            i += 1;
        }
        let mut colons = 0;
        while i < format.len() && format[i] == b':' {
            colons += 1;
            i += 1;
        }
        while i < format.len() && (format[i] == b'E' || format[i] == b'O') {
            i += 1;
        }
        if i >= format.len() {
            out.extend_from_slice(&format[start..]);
            break;
        }
        let conv = format[i];
        i += 1;
        if colons > 0 && (conv != b'z' || !gnu) || colons > 3 || (!gnu && matches!(conv, b'N' | b'q')) {
            out.extend_from_slice(&format[start..i]);
            continue;
        }
        let spec = Spec { pad, width, upcase, swapcase, conv };
        if !convert(&mut out, &spec, colons, moment) {
            out.extend_from_slice(&format[start..i]);
        }
    }
    out
}

struct Spec {
    pad: Option<u8>,
    width: Option<usize>,
    upcase: bool,
    swapcase: bool,
    conv: u8,
}

/// Appends one conversion; false when `conv` is not one.
fn convert(out: &mut Vec<u8>, spec: &Spec, colons: usize, m: &Moment) -> bool {
    let tm = &m.tm;
    let hour12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 } as i64;
    let num = |out: &mut Vec<u8>, digits: usize, value: i64| number(out, spec, digits, value, b'0');
    let spaced = |out: &mut Vec<u8>, digits: usize, value: i64| number(out, spec, digits, value, b'_');
    match spec.conv {
        b'a' => text(out, spec, &DAYS[m.weekday() as usize][..3], Case::Names),
        b'A' => text(out, spec, DAYS[m.weekday() as usize], Case::Names),
        b'b' | b'h' => text(out, spec, &MONTHS[tm.month as usize - 1][..3], Case::Names),
        b'B' => text(out, spec, MONTHS[tm.month as usize - 1], Case::Names),
        b'p' => text(out, spec, if tm.hour < 12 { "AM" } else { "PM" }, Case::Lower),
        b'P' => text(out, spec, if tm.hour < 12 { "am" } else { "pm" }, Case::AlwaysLower),
        b'Z' => text(out, spec, m.zone, Case::Lower),
        b'c' => composite(out, spec, b"%a %b %e %H:%M:%S %Y", m),
        b'D' | b'x' => composite(out, spec, b"%m/%d/%y", m),
        b'F' => composite(out, spec, b"%Y-%m-%d", m),
        b'r' => composite(out, spec, b"%I:%M:%S %p", m),
        b'R' => composite(out, spec, b"%H:%M", m),
        b'T' | b'X' => composite(out, spec, b"%H:%M:%S", m),
        b'C' => num(out, 2, tm.year.div_euclid(100)),
        b'd' => num(out, 2, tm.day as i64),
        b'e' => spaced(out, 2, tm.day as i64),
        b'g' => num(out, 2, m.iso_week().0.rem_euclid(100)),
        b'G' => num(out, 4, m.iso_week().0),
        b'H' => num(out, 2, tm.hour as i64),
        b'I' => num(out, 2, hour12),
        b'j' => num(out, 3, m.yday() + 1),
        b'k' => spaced(out, 2, tm.hour as i64),
        b'l' => spaced(out, 2, hour12),
        b'm' => num(out, 2, tm.month as i64),
        b'M' => num(out, 2, tm.minute as i64),
        b'N' => nanoseconds(out, spec, tm.nanos),
        b'q' => num(out, 1, (tm.month as i64 - 1) / 3 + 1),
        b's' => num(out, 1, m.epoch),
        b'S' => num(out, 2, tm.second as i64),
        b'u' => num(out, 1, (m.weekday() + 6) % 7 + 1),
        b'U' => num(out, 2, (m.yday() + 7 - m.weekday()) / 7),
        b'V' => num(out, 2, m.iso_week().1),
        b'w' => num(out, 1, m.weekday()),
        b'W' => num(out, 2, (m.yday() + 7 - (m.weekday() + 6) % 7) / 7),
        b'y' => num(out, 2, tm.year.rem_euclid(100)),
        b'Y' => num(out, 4, tm.year),
        b'z' => zone_offset(out, spec, colons, tm.offset),
        b'n' => text(out, spec, "\n", Case::Names),
        b't' => text(out, spec, "\t", Case::Names),
        b'%' => text(out, spec, "%", Case::Names),
        _ => return false,
    }
    true
}

#[derive(PartialEq)]
enum Case {
    /// `#` makes it upper case (day and month names).
    Names,
    /// `#` makes it lower case (%p, %Z).
    Lower,
    /// Lower case whatever the flags (%P).
    AlwaysLower,
}

fn text(out: &mut Vec<u8>, spec: &Spec, s: &str, case: Case) {
    let s = if case == Case::AlwaysLower || (spec.swapcase && case == Case::Lower) {
        s.to_ascii_lowercase()
    } else if spec.upcase || spec.swapcase {
        s.to_ascii_uppercase()
    } else {
        s.to_string()
    };
    pad_left(out, spec, s.as_bytes());
}

/// A string padded on the left to the field width: zeros with `0`/`+`, else spaces.
fn pad_left(out: &mut Vec<u8>, spec: &Spec, s: &[u8]) {
    if spec.pad != Some(b'-') {
        let fill = if matches!(spec.pad, Some(b'0') | Some(b'+')) { b'0' } else { b' ' };
        for _ in s.len()..spec.width.unwrap_or(0) {
            out.push(fill);
        }
    }
    out.extend_from_slice(s);
}

fn composite(out: &mut Vec<u8>, spec: &Spec, inner: &[u8], m: &Moment) {
    let mut s = format_in(inner, m, false);
    if spec.upcase || spec.swapcase {
        s.make_ascii_uppercase();
    }
    pad_left(out, spec, &s);
}

/// A number of at least `digits` digits, zero-padded unless the flags say otherwise
/// (`default_pad` `_` for the space-padded %e %k %l); a width widens the field.
fn number(out: &mut Vec<u8>, spec: &Spec, digits: usize, value: i64, default_pad: u8) {
    let pad = spec.pad.unwrap_or(default_pad);
    let magnitude = value.unsigned_abs().to_string();
    let sign = if value < 0 { "-" } else { "" };
    if pad == b'-' {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(magnitude.as_bytes());
        return;
    }
    let width = spec.width.unwrap_or(digits).max(1);
    let len = sign.len() + magnitude.len();
    let fill = width.saturating_sub(len);
    if pad == b'_' {
        out.extend(std::iter::repeat(b' ').take(fill));
        out.extend_from_slice(sign.as_bytes());
    } else {
        out.extend_from_slice(sign.as_bytes());
        out.extend(std::iter::repeat(b'0').take(fill));
    }
    out.extend_from_slice(magnitude.as_bytes());
}

/// %N: nine digits; a width is a precision (truncated, or padded with zeros on the right).
fn nanoseconds(out: &mut Vec<u8>, spec: &Spec, nanos: u32) {
    let digits = format!("{:09}", nanos);
    let width = spec.width.unwrap_or(9);
    if width <= 9 {
        out.extend_from_slice(&digits.as_bytes()[..width.max(1)]);
    } else {
        out.extend_from_slice(digits.as_bytes());
        out.extend(std::iter::repeat(b'0').take(width - 9));
    }
}

/// %z `+hhmm`, %:z `+hh:mm`, %::z `+hh:mm:ss`, %:::z as short as exact (`+hh`, `+hh:mm`).
fn zone_offset(out: &mut Vec<u8>, spec: &Spec, colons: usize, offset: i64) {
    let a = offset.abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    let sign = if offset < 0 { '-' } else { '+' };
    let body = match colons {
        0 => format!("{}{:02}{:02}", sign, h, m),
        1 => format!("{}{:02}:{:02}", sign, h, m),
        2 => format!("{}{:02}:{:02}:{:02}", sign, h, m, s),
        _ if s != 0 => format!("{}{:02}:{:02}:{:02}", sign, h, m, s),
        _ if m != 0 => format!("{}{:02}:{:02}", sign, h, m),
        _ => format!("{}{:02}", sign, h),
    };
    let width = spec.width.unwrap_or(0);
    if body.len() < width && spec.pad != Some(b'-') {
        // gnulib widens the hours field: `%8z` is `+0000000`-style with the sign first.
        let fill = width - body.len();
        let c = if spec.pad == Some(b'_') { b' ' } else { b'0' };
        if c == b' ' {
            out.extend(std::iter::repeat(b' ').take(fill));
            out.extend_from_slice(body.as_bytes());
        } else {
            out.push(body.as_bytes()[0]);
            out.extend(std::iter::repeat(b'0').take(fill));
            out.extend_from_slice(&body.as_bytes()[1..]);
        }
        return;
    }
    out.extend_from_slice(body.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, secs: i64) -> String {
        String::from_utf8(format(fmt.as_bytes(), &Moment::new(secs, 5, 0, "UTC"))).unwrap()
    }

    #[test]
    fn conversions() {
        assert_eq!(f("%c", 0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(f("%F %T %j %U %W %V %G %u %w", 1709208000), "2024-02-29 12:00:00 060 08 09 09 2024 4 4");
        assert_eq!(f("%-d|%_5H|%10A|%^a|%#p|%3N|%J|%", 0), "1|    0|  Thursday|THU|am|000|%J|%");
        assert_eq!(f("%V %G", days_from_civil(2021, 1, 1) * 86400), "53 2020");
        assert_eq!(f("%V %G", days_from_civil(2024, 12, 30) * 86400), "01 2025");
    }
}
