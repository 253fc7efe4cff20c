//! Numbers read the way C's `strtoimax`, `strtoumax` and `strtod` read them: leading
//! white space, a sign, then the longest valid prefix (base 0: `0x` hex, `0` octal;
//! decimal or hexadecimal floating point, `inf`, `nan`). The caller gets the value, how
//! many bytes were used (0: no number at all) and whether it was out of range, so it can
//! word its own errors (printf's "value not completely converted" and friends).

/// The result of reading a number from the start of a byte string.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scanned<T> {
    pub value: T,
    /// Bytes consumed, including leading white space; 0 when no number was found.
    pub used: usize,
    /// ERANGE: the value was clamped.
    pub overflow: bool,
}

fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// Digits of an integer in `base` 0 (auto), as (negative, magnitude, used, overflow).
fn scan_integer(text: &[u8]) -> (bool, u64, usize, bool) {
    let mut i = 0;
    while i < text.len() && is_c_space(text[i]) {
        i += 1;
    }
    let mut negative = false;
    if i < text.len() && (text[i] == b'+' || text[i] == b'-') {
        negative = text[i] == b'-';
        i += 1;
    }
    let mut base = 10u64;
    if text.get(i) == Some(&b'0') {
        if matches!(text.get(i + 1), Some(b'x') | Some(b'X')) && text.get(i + 2).map_or(false, |c| c.is_ascii_hexdigit()) {
            base = 16;
            i += 2;
        } else {
            base = 8;
        }
    }
    let start = i;
    let mut value: u64 = 0;
    let mut overflow = false;
    while i < text.len() {
        let digit = match (text[i] as char).to_digit(base as u32) {
            Some(d) => d as u64,
            None => break,
        };
        match value.checked_mul(base).and_then(|v| v.checked_add(digit)) {
            Some(v) => value = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return (false, 0, 0, false);
    }
    (negative, value, i, overflow)
}

/// `strtoimax(text, &end, 0)`.
pub fn strtoimax(text: &[u8]) -> Scanned<i64> {
    let (negative, magnitude, used, overflow) = scan_integer(text);
    let limit = if negative { 1u64 << 63 } else { i64::MAX as u64 };
    if overflow || magnitude > limit {
        return Scanned { value: if negative { i64::MIN } else { i64::MAX }, used, overflow: true };
    }
    let value = if negative { (magnitude as i64).wrapping_neg() } else { magnitude as i64 };
    Scanned { value, used, overflow: false }
}

/// `strtoumax(text, &end, 0)`: a minus sign negates modulo 2^64, as C does.
pub fn strtoumax(text: &[u8]) -> Scanned<u64> {
    let (negative, magnitude, used, overflow) = scan_integer(text);
    if overflow {
        return Scanned { value: u64::MAX, used, overflow: true };
    }
    Scanned { value: if negative { magnitude.wrapping_neg() } else { magnitude }, used, overflow: false }
}

/// `strtod(text, &end)`.
pub fn strtod(text: &[u8]) -> Scanned<f64> {
    let none = Scanned { value: 0.0, used: 0, overflow: false };
    let mut i = 0;
    while i < text.len() && is_c_space(text[i]) {
        i += 1;
    }
    let mut negative = false;
    if i < text.len() && (text[i] == b'+' || text[i] == b'-') {
        negative = text[i] == b'-';
        i += 1;
    }
    let rest = &text[i..];
    let lower: Vec<u8> = rest.iter().take(8).map(|c| c.to_ascii_lowercase()).collect();
    let sign = |v: f64| if negative { -v } else { v };
    if lower.starts_with(b"inf") {
        let len = if lower.starts_with(b"infinity") { 8 } else { 3 };
        return Scanned { value: sign(f64::INFINITY), used: i + len, overflow: false };
    }
    if lower.starts_with(b"nan") {
        let mut len = 3;
        // nan(chars)
        if rest.get(3) == Some(&b'(') {
            if let Some(close) = rest[4..].iter().position(|c| !(c.is_ascii_alphanumeric() || *c == b'_')) {
                if rest[4 + close] == b')' {
                    len = 4 + close + 1;
                }
            }
        }
        return Scanned { value: sign(f64::NAN), used: i + len, overflow: false };
    }
    if lower.starts_with(b"0x") {
        if let Some((value, len)) = scan_hex_float(&rest[2..]) {
            return Scanned { value: sign(value), used: i + 2 + len, overflow: value.is_infinite() };
        }
        // "0x" without hex digits reads as the number 0 followed by "x".
        return Scanned { value: sign(0.0), used: i + 1, overflow: false };
    }
    let start = i;
    let mut digits = 0;
    while i < text.len() && text[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < text.len() && text[i] == b'.' {
        i += 1;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return none;
    }
    if let Some((_, end)) = exponent(text, i, b'e') {
        i = end;
    }
    let literal = String::from_utf8_lossy(&text[start..i]).into_owned();
    let literal = if literal.starts_with('.') { format!("0{}", literal) } else { literal };
    let value: f64 = literal.parse().unwrap_or(0.0);
    Scanned { value: sign(value), used: i, overflow: value.is_infinite() }
}

/// The digits after `0x`: hex mantissa with optional `.` and `p` exponent.
fn scan_hex_float(text: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    let mut value = 0.0f64;
    let mut digits = 0;
    while i < text.len() && text[i].is_ascii_hexdigit() {
        value = value * 16.0 + (text[i] as char).to_digit(16)? as f64;
        i += 1;
        digits += 1;
    }
    let mut scale = 0i32;
    if i < text.len() && text[i] == b'.' {
        i += 1;
        while i < text.len() && text[i].is_ascii_hexdigit() {
            value = value * 16.0 + (text[i] as char).to_digit(16)? as f64;
            scale -= 4;
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if let Some((power, end)) = exponent(text, i, b'p') {
        scale = scale.saturating_add(power);
        i = end;
    }
    Some((value * 2f64.powi(scale), i))
}

/// An exponent at `i`: `letter` (either case), an optional sign and at least one digit, as
/// strtod reads `e5`/`p-3`; its value (saturated) and where it ends. Without a digit there
/// is none, and the number ends before the letter.
fn exponent(text: &[u8], i: usize, letter: u8) -> Option<(i32, usize)> {
    if text.get(i).map(u8::to_ascii_lowercase) != Some(letter) {
        return None;
    }
    let mut j = i + 1;
    let negative = text.get(j) == Some(&b'-');
    if matches!(text.get(j), Some(b'+' | b'-')) {
        j += 1;
    }
    let digits = text[j.min(text.len())..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let power = text[j..j + digits].iter().fold(0i32, |n, d| n.saturating_mul(10).saturating_add(i32::from(d - b'0')));
    Some((if negative { -power } else { power }, j + digits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(strtoimax(b" 12").value, 12);
        assert_eq!(strtoimax(b"-0x10").value, -16);
        assert_eq!(strtoimax(b"010").value, 8);
        let s = strtoimax(b"12abc");
        assert_eq!((s.value, s.used), (12, 2));
        let s = strtoimax(b"0x");
        assert_eq!((s.value, s.used), (0, 1));
        assert!(strtoimax(b"99999999999999999999").overflow);
        assert_eq!(strtoimax(b"abc").used, 0);
        assert_eq!(strtoumax(b"-1").value, u64::MAX);
    }

    #[test]
    fn floats() {
        assert_eq!(strtod(b"1e3").value, 1000.0);
        let s = strtod(b"1.5x");
        assert_eq!((s.value, s.used), (1.5, 3));
        assert_eq!(strtod(b"0x1p3").value, 8.0);
        assert_eq!(strtod(b".").used, 0);
        assert_eq!(strtod(b"1e").used, 1);
        assert_eq!((strtod(b"2E-2z").value, strtod(b"2E-2z").used), (0.02, 4));
        assert_eq!(strtod(b"1e+x").used, 1);
        assert_eq!((strtod(b"0x1.8P-1").value, strtod(b"0x1.8P-1").used), (0.75, 8));
        assert_eq!(strtod(b"0x1p").used, 3);
        assert!(strtod(b"-nan").value.is_nan());
        assert_eq!(strtod(b"infinity").used, 8);
    }
}
