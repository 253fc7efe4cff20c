//! The orderings of sort's keys, each on byte slices, as GNU sort does them in a UTF-8
//! locale whose collation is code point order (so plain text compares as bytes):
//! `-n` (gnulib strnumcmp, exact on arbitrarily long numbers), `-g` (floating point, with
//! non-numbers first and NaNs next), `-h` (SI suffix first), `-M`, and `-V` (gnulib
//! filevercmp).

use std::cmp::Ordering;

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n'
}

fn skip_blanks(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| is_blank(**b)).count();
    &s[n..]
}

/// A byte of `s`, or NUL past its end (GNU compares NUL-terminated keys).
fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

fn digit(b: u8) -> bool {
    b.is_ascii_digit()
}

fn sign(n: i32) -> Ordering {
    n.cmp(&0)
}

/// `-n`: gnulib's numcompare with '.' as the decimal point and no thousands separator.
pub fn numeric(a: &[u8], b: &[u8]) -> Ordering {
    sign(numcompare(skip_blanks(a), skip_blanks(b)))
}

fn fraccompare(a: &[u8], mut i: usize, b: &[u8], mut j: usize) -> i32 {
    let (ca, cb) = (at(a, i), at(b, j));
    if ca == b'.' && cb == b'.' {
        loop {
            i += 1;
            j += 1;
            if at(a, i) != at(b, j) {
                break;
            }
            if !digit(at(a, i)) {
                return 0;
            }
        }
        let (x, y) = (at(a, i), at(b, j));
        if digit(x) && digit(y) {
            return x as i32 - y as i32;
        }
        if digit(x) {
            return trailing_nonzero(a, i);
        }
        if digit(y) {
            return -trailing_nonzero(b, j);
        }
        0
    } else if ca == b'.' {
        trailing_nonzero(a, i + 1)
    } else if cb == b'.' {
        -trailing_nonzero(b, j + 1)
    } else {
        0
    }
}

fn trailing_nonzero(s: &[u8], i: usize) -> i32 {
    digit(at(s, skip_zeros(s, i))) as i32
}

/// The index of the first byte at or after `i` that is not a '0'.
fn skip_zeros(s: &[u8], mut i: usize) -> usize {
    while at(s, i) == b'0' {
        i += 1;
    }
    i
}

/// Whether the unsigned number at `i` (leading zeros, then an optional fraction) is not zero.
fn nonzero(s: &[u8], i: usize) -> bool {
    let i = skip_zeros(s, i);
    if at(s, i) == b'.' {
        trailing_nonzero(s, i + 1) != 0
    } else {
        digit(at(s, i))
    }
}

fn digits_from(s: &[u8], i: usize) -> usize {
    s[i.min(s.len())..].iter().take_while(|c| digit(**c)).count()
}

/// gnulib's numcompare: the sign decides unless both sides share it; a negative and a
/// non-negative side are equal only when both are zero ("-0" = "0" = "-.0").
fn numcompare(a: &[u8], b: &[u8]) -> i32 {
    match (at(a, 0) == b'-', at(b, 0) == b'-') {
        (true, true) => -magnitude(a, skip_zeros(a, 1), b, skip_zeros(b, 1)),
        (true, false) if nonzero(a, 1) => -1,
        (true, false) => -(nonzero(b, 0) as i32),
        (false, true) if nonzero(b, 1) => 1,
        (false, true) => nonzero(a, 0) as i32,
        (false, false) => magnitude(a, skip_zeros(a, 0), b, skip_zeros(b, 0)),
    }
}

/// Compares the unsigned numbers at `a[i..]` and `b[j..]`, both past their leading zeros:
/// the longer integer part is larger, then the first differing digit, then the fractions.
fn magnitude(a: &[u8], mut i: usize, b: &[u8], mut j: usize) -> i32 {
    while at(a, i) == at(b, j) && digit(at(a, i)) {
        i += 1;
        j += 1;
    }
    let (ta, tb) = (at(a, i), at(b, j));
    if (ta == b'.' && !digit(tb)) || (tb == b'.' && !digit(ta)) {
        return fraccompare(a, i, b, j);
    }
    let (la, lb) = (digits_from(a, i), digits_from(b, j));
    if la != lb {
        return if la < lb { -1 } else { 1 };
    }
    if la == 0 {
        return 0;
    }
    ta as i32 - tb as i32
}

/// `-h`: by sign and SI suffix first (K < M < G ...), then as `-n`.
pub fn human(a: &[u8], b: &[u8]) -> Ordering {
    let (a, b) = (skip_blanks(a), skip_blanks(b));
    unit_order(a).cmp(&unit_order(b)).then_with(|| sign(numcompare(a, b)))
}

fn unit_order(s: &[u8]) -> i32 {
    let minus = at(s, 0) == b'-';
    let mut i = minus as usize;
    let mut nonzero = false;
    while digit(at(s, i)) {
        nonzero |= at(s, i) != b'0';
        i += 1;
    }
    if at(s, i) == b'.' {
        i += 1;
        while digit(at(s, i)) {
            nonzero |= at(s, i) != b'0';
            i += 1;
        }
    }
    if !nonzero {
        return 0;
    }
    let order = match at(s, i) {
        b'K' | b'k' => 1,
        b'M' => 2,
        b'G' => 3,
        b'T' => 4,
        b'P' => 5,
        b'E' => 6,
        b'Z' => 7,
        b'Y' => 8,
        b'R' => 9,
        b'Q' => 10,
        _ => 0,
    };
    if minus {
        -order
    } else {
        order
    }
}

/// The value of the longest prefix of `s` that strtold accepts (after blanks), or None.
pub fn parse_float_prefix(s: &[u8]) -> Option<f64> {
    let start = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let s = &s[start..];
    let mut i = 0;
    if matches!(at(s, 0), b'+' | b'-') {
        i = 1;
    }
    let rest = &s[i..];
    let lower: Vec<u8> = rest.iter().take(8).map(|b| b.to_ascii_lowercase()).collect();
    let negative = at(s, 0) == b'-';
    if lower.starts_with(b"inf") {
        return Some(if negative { f64::NEG_INFINITY } else { f64::INFINITY });
    }
    if lower.starts_with(b"nan") {
        return Some(f64::NAN);
    }
    if lower.starts_with(b"0x") && (digit_hex(at(rest, 2)) || (at(rest, 2) == b'.' && digit_hex(at(rest, 3)))) {
        return Some(parse_hex(&rest[2..], negative));
    }
    let mut end = i;
    let mut digits = 0;
    while digit(at(s, end)) {
        end += 1;
        digits += 1;
    }
    if at(s, end) == b'.' {
        end += 1;
        while digit(at(s, end)) {
            end += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if matches!(at(s, end), b'e' | b'E') {
        let mut k = end + 1;
        if matches!(at(s, k), b'+' | b'-') {
            k += 1;
        }
        if digit(at(s, k)) {
            while digit(at(s, k)) {
                k += 1;
            }
            end = k;
        }
    }
    std::str::from_utf8(&s[..end]).ok()?.parse::<f64>().ok()
}

fn digit_hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

fn parse_hex(s: &[u8], negative: bool) -> f64 {
    let mut value = 0f64;
    let mut i = 0;
    let mut scale = 0i32;
    while digit_hex(at(s, i)) {
        value = value * 16.0 + (at(s, i) as char).to_digit(16).unwrap_or(0) as f64;
        i += 1;
    }
    if at(s, i) == b'.' {
        i += 1;
        while digit_hex(at(s, i)) {
            value = value * 16.0 + (at(s, i) as char).to_digit(16).unwrap_or(0) as f64;
            scale -= 4;
            i += 1;
        }
    }
    if matches!(at(s, i), b'p' | b'P') {
        let mut k = i + 1;
        let neg = at(s, k) == b'-';
        if matches!(at(s, k), b'+' | b'-') {
            k += 1;
        }
        let mut e = 0i32;
        while digit(at(s, k)) {
            e = e.saturating_mul(10).saturating_add((at(s, k) - b'0') as i32);
            k += 1;
        }
        scale += if neg { -e } else { e };
    }
    let v = value * 2f64.powi(scale);
    if negative {
        -v
    } else {
        v
    }
}

/// `-g`: conversion errors first, then NaNs, then numbers.
pub fn general(a: &[u8], b: &[u8]) -> Ordering {
    match (parse_float_prefix(a), parse_float_prefix(b)) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => match (x.is_nan(), y.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        },
    }
}

/// `-M`: 0 for unknown, 1..12 for JAN..DEC (case-insensitive, after blanks).
fn month_number(s: &[u8]) -> u8 {
    const MONTHS: [&[u8; 3]; 12] = [b"JAN", b"FEB", b"MAR", b"APR", b"MAY", b"JUN", b"JUL", b"AUG", b"SEP", b"OCT", b"NOV", b"DEC"];
    let s = skip_blanks(s);
    if s.len() < 3 {
        return 0;
    }
    let head = [s[0].to_ascii_uppercase(), s[1].to_ascii_uppercase(), s[2].to_ascii_uppercase()];
    MONTHS.iter().position(|m| **m == head).map_or(0, |p| p as u8 + 1)
}

pub fn month(a: &[u8], b: &[u8]) -> Ordering {
    month_number(a).cmp(&month_number(b))
}

/// `-V`: gnulib's filenvercmp.
pub fn version(a: &[u8], b: &[u8]) -> Ordering {
    if a.is_empty() || b.is_empty() {
        return (!a.is_empty()).cmp(&!b.is_empty());
    }
    if a[0] == b'.' {
        if b[0] != b'.' {
            return Ordering::Less;
        }
        let (adot, bdot) = (a.len() == 1, b.len() == 1);
        if adot || bdot {
            return bdot.cmp(&adot);
        }
        let (add, bdd) = (a == b"..", b == b"..");
        if add || bdd {
            return bdd.cmp(&add);
        }
    } else if b[0] == b'.' {
        return Ordering::Greater;
    }
    let (ap, bp) = (prefix_len(a), prefix_len(b));
    let result = verrevcmp(&a[..ap], &b[..bp]);
    if result != 0 || (ap == a.len() && bp == b.len()) {
        return sign(result);
    }
    sign(verrevcmp(a, b))
}

/// The length of `s` without its file suffix (`(\.[A-Za-z~][A-Za-z0-9~]*)*$`).
fn prefix_len(s: &[u8]) -> usize {
    let n = s.len();
    let mut prefix = 0;
    let mut i = 0;
    loop {
        if i == n {
            return prefix;
        }
        i += 1;
        prefix = i;
        while i + 1 < n && s[i] == b'.' && (s[i + 1].is_ascii_alphabetic() || s[i + 1] == b'~') {
            i += 2;
            while i < n && (s[i].is_ascii_alphanumeric() || s[i] == b'~') {
                i += 1;
            }
        }
    }
}

fn order(s: &[u8], pos: usize) -> i32 {
    if pos >= s.len() {
        return 0;
    }
    let c = s[pos];
    if digit(c) {
        0
    } else if c.is_ascii_alphabetic() {
        c as i32
    } else if c == b'~' {
        -1
    } else {
        c as i32 + 256
    }
}

fn verrevcmp(a: &[u8], b: &[u8]) -> i32 {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let mut first_diff = 0;
        while (i < a.len() && !digit(a[i])) || (j < b.len() && !digit(b[j])) {
            let (x, y) = (order(a, i), order(b, j));
            if x != y {
                return x - y;
            }
            i += 1;
            j += 1;
        }
        while i < a.len() && a[i] == b'0' {
            i += 1;
        }
        while j < b.len() && b[j] == b'0' {
            j += 1;
        }
        while i < a.len() && j < b.len() && digit(a[i]) && digit(b[j]) {
            if first_diff == 0 {
                first_diff = a[i] as i32 - b[j] as i32;
            }
            i += 1;
            j += 1;
        }
        if i < a.len() && digit(a[i]) {
            return 1;
        }
        if j < b.len() && digit(b[j]) {
            return -1;
        }
        if first_diff != 0 {
            return first_diff;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    use Ordering::{Equal, Greater, Less};

    #[test]
    fn orderings() {
        type Compare = fn(&[u8], &[u8]) -> Ordering;
        let cases: &[(Compare, &[u8], &[u8], Ordering)] = &[
            (numeric, b"10", b"9", Greater),
            (numeric, b"-10", b"-9", Less),
            (numeric, b"1.5", b"1.25", Greater),
            (numeric, b"abc", b"0", Equal),
            (numeric, b"-0", b"0", Equal),
            (numeric, b" 007", b"7", Equal),
            (numeric, b"-.5", b"0", Less),
            (numeric, b"-.0", b"0", Equal),
            (numeric, b"0", b"-.5", Greater),
            (numeric, b"-2.5", b"-2.25", Less),
            (numeric, b"-1", b"-1.0", Equal),
            (human, b"2K", b"1M", Less),
            (general, b"1e3", b"999", Greater),
            (general, b"x", b"nan", Less),
            (version, b"a2", b"a10", Less),
            (version, b"1.0~rc1", b"1.0", Less),
            (version, b"foo.tar.gz", b"foo1.tar.gz", Less),
            (version, b".", b"..", Less),
        ];
        for (compare, a, b, want) in cases {
            assert_eq!(compare(a, b), *want, "{:?} vs {:?}", String::from_utf8_lossy(a), String::from_utf8_lossy(b));
        }
    }
}
