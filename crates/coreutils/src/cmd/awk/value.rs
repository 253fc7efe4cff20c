//! awk values: numbers, strings, "strnums" (input that looks numeric compares as a
//! number) and the uninitialized value, with gawk's conversion rules.

use std::rc::Rc;

use super::format;

/// An awk string: shared bytes, or a shared growable buffer that `s = s x` appends to in
/// place when nothing else holds it (gawk's optimization; without it building a string
/// in a loop would copy it every time).
#[derive(Debug, Clone)]
pub enum Str {
    Shared(Rc<[u8]>),
    Growable(Rc<Vec<u8>>),
}

impl std::ops::Deref for Str {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Str::Shared(s) => s,
            Str::Growable(v) => v,
        }
    }
}

impl PartialEq for Str {
    fn eq(&self, other: &Str) -> bool {
        **self == **other
    }
}

impl Eq for Str {}

impl From<&[u8]> for Str {
    fn from(bytes: &[u8]) -> Str {
        Str::Shared(bytes.into())
    }
}

impl From<Vec<u8>> for Str {
    fn from(bytes: Vec<u8>) -> Str {
        Str::Shared(bytes.into())
    }
}

impl Str {
    /// The bytes as a buffer to append to: taken over if this is the only reference.
    pub fn into_buffer(self) -> Vec<u8> {
        match self {
            Str::Growable(rc) => Rc::try_unwrap(rc).unwrap_or_else(|rc| rc.to_vec()),
            Str::Shared(rc) => rc.to_vec(),
        }
    }
}

#[derive(Debug, Clone)]
pub enum Value {
    Uninit,
    Num(f64),
    Str(Str),
    /// User input (fields, getline, ARGV, ENVIRON, -v): numeric if it looks numeric.
    StrNum(Str),
}

/// How a value takes part in a comparison.
pub enum CmpClass {
    Number(f64),
    /// Uninitialized: a number against numbers, "" against strings.
    Uninit,
    String,
}

impl Value {
    pub fn from_str(bytes: &[u8]) -> Value {
        Value::Str(bytes.into())
    }

    pub fn strnum(bytes: &[u8]) -> Value {
        Value::StrNum(bytes.into())
    }

    #[inline]
    pub fn to_num(&self) -> f64 {
        match self {
            Value::Uninit => 0.0,
            Value::Num(n) => *n,
            Value::Str(s) | Value::StrNum(s) => str_to_num(s),
        }
    }

    pub fn is_true(&self) -> bool {
        match self {
            Value::Uninit => false,
            Value::Num(n) => *n != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::StrNum(s) => match looks_numeric(s) {
                Some(n) => n != 0.0,
                None => !s.is_empty(),
            },
        }
    }

    pub fn cmp_class(&self) -> CmpClass {
        match self {
            Value::Uninit => CmpClass::Uninit,
            Value::Num(n) => CmpClass::Number(*n),
            Value::Str(_) => CmpClass::String,
            Value::StrNum(s) => match looks_numeric(s) {
                Some(n) => CmpClass::Number(n),
                None => CmpClass::String,
            },
        }
    }

    /// Appends the string value (numbers through `convfmt`).
    pub fn append_str(&self, out: &mut Vec<u8>, convfmt: &[u8]) {
        match self {
            Value::Uninit => {}
            Value::Num(n) => num_to_str(*n, convfmt, out),
            Value::Str(s) | Value::StrNum(s) => out.extend_from_slice(s),
        }
    }

    /// The string value as a shared string.
    pub fn to_str(&self, convfmt: &[u8]) -> Str {
        match self {
            Value::Str(s) | Value::StrNum(s) => s.clone(),
            _ => {
                let mut out = Vec::new();
                self.append_str(&mut out, convfmt);
                out.into()
            }
        }
    }

    /// Whether the value is a number for `%c` and typeof(): numbers and numeric strnums.
    pub fn is_numeric(&self) -> bool {
        match self {
            Value::Num(_) => true,
            Value::StrNum(s) => looks_numeric(s).is_some(),
            _ => false,
        }
    }
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Length of the decimal number at the start of `s` (after an optional sign): digits,
/// optional fraction, optional exponent. 0 when there is no number.
fn number_len(s: &[u8]) -> usize {
    let mut i = 0;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let mut mantissa = i - digits_start;
    if i < s.len() && s[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        mantissa += i - frac_start;
    }
    if mantissa == 0 {
        return 0;
    }
    if i < s.len() && (s[i] | 0x20) == b'e' {
        let mut j = i + 1;
        if j < s.len() && (s[j] == b'+' || s[j] == b'-') {
            j += 1;
        }
        if j < s.len() && s[j].is_ascii_digit() {
            while j < s.len() && s[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    i
}

/// `+inf`, `-nan`…: gawk accepts these (sign required) as numbers in input.
fn special_value(s: &[u8]) -> Option<f64> {
    if s.len() < 4 || (s[0] != b'+' && s[0] != b'-') {
        return None;
    }
    let word = [s[1] | 0x20, s[2] | 0x20, s[3] | 0x20];
    let negative = s[0] == b'-';
    let value = match &word {
        b"inf" => f64::INFINITY,
        b"nan" => f64::NAN,
        _ => return None,
    };
    Some(if negative { -value } else { value })
}

fn parse_decimal(text: &[u8]) -> f64 {
    // Fast path: short integers are exact in f64.
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.len() <= 15 && digits.iter().all(|c| c.is_ascii_digit()) {
        let mut n: u64 = 0;
        for d in digits {
            n = n * 10 + (d - b'0') as u64;
        }
        let v = n as f64;
        return if negative { -v } else { v };
    }
    std::str::from_utf8(text).ok().and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0)
}

/// A string's numeric value: its longest numeric prefix after leading blanks (like strtod,
/// decimal only), 0 if none.
pub fn str_to_num(s: &[u8]) -> f64 {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let rest = &s[i..];
    if let Some(v) = special_value(rest) {
        return v;
    }
    let len = number_len(rest);
    if len == 0 {
        return 0.0;
    }
    parse_decimal(&rest[..len])
}

/// The value of a string that looks entirely numeric (blanks around allowed), as input
/// must to compare as a number.
pub fn looks_numeric(s: &[u8]) -> Option<f64> {
    let mut start = 0;
    while start < s.len() && is_space(s[start]) {
        start += 1;
    }
    let mut end = s.len();
    while end > start && is_space(s[end - 1]) {
        end -= 1;
    }
    let text = &s[start..end];
    if text.is_empty() {
        return None;
    }
    if text.len() == 4 {
        if let Some(v) = special_value(text) {
            return Some(v);
        }
    }
    if number_len(text) != text.len() {
        return None;
    }
    Some(parse_decimal(text))
}

/// Whether a number prints as an integer (gawk: any integral value, however large).
pub fn is_integral(n: f64) -> bool {
    n.is_finite() && n == n.trunc()
}

/// A number's string form: integral values as integers, others through `fmt`
/// (CONVFMT or OFMT), infinities and NaNs as gawk spells them.
pub fn num_to_str(n: f64, fmt: &[u8], out: &mut Vec<u8>) {
    if is_integral(n) {
        append_integer(n, out);
    } else if !n.is_finite() {
        out.extend_from_slice(nan_inf_text(n).as_bytes());
    } else if fmt == b"%.6g" {
        format::format_g(out, n, 6, false, false);
    } else {
        let args = [Value::Num(n)];
        let _ = format::sprintf(out, fmt, &args, b"%.6g");
    }
}

pub fn nan_inf_text(n: f64) -> &'static str {
    if n.is_nan() {
        if n.is_sign_negative() {
            "-nan"
        } else {
            "+nan"
        }
    } else if n > 0.0 {
        "+inf"
    } else {
        "-inf"
    }
}

/// The decimal text of `k` in `buf`, without allocating (array keys, number output).
pub fn int_text(k: i64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    let mut u = k.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if k < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    &buf[i..]
}

/// Appends an integral value in decimal.
pub fn append_integer(n: f64, out: &mut Vec<u8>) {
    if n.abs() < 9.0e18 {
        out.extend_from_slice(int_text(n as i64, &mut [0u8; 20]));
    } else {
        out.extend_from_slice(format!("{:.0}", n).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_to_number() {
        assert_eq!(str_to_num(b" 12abc"), 12.0);
        assert_eq!(str_to_num(b"0x1A"), 0.0);
        assert_eq!(str_to_num(b".5e1"), 5.0);
        assert_eq!(str_to_num(b"1e"), 1.0);
        assert_eq!(str_to_num(b"inf"), 0.0);
        assert!(str_to_num(b"-inf").is_infinite());
        assert_eq!(str_to_num(b"-"), 0.0);
    }

    #[test]
    fn numeric_strings() {
        assert_eq!(looks_numeric(b" 3 "), Some(3.0));
        assert_eq!(looks_numeric(b"1e5"), Some(100000.0));
        assert_eq!(looks_numeric(b"1e"), None);
        assert_eq!(looks_numeric(b""), None);
        assert_eq!(looks_numeric(b"."), None);
        assert_eq!(looks_numeric(b"+5."), Some(5.0));
        assert_eq!(looks_numeric(b"0x10"), None);
    }

    #[test]
    fn number_to_string() {
        let s = |n: f64| {
            let mut out = Vec::new();
            num_to_str(n, b"%.6g", &mut out);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(s(3.0), "3");
        assert_eq!(s(-0.0), "0");
        assert_eq!(s(0.1 + 0.2), "0.3");
        assert_eq!(s(1e20), "100000000000000000000");
        assert_eq!(s(1.0 / 3.0), "0.333333");
        assert_eq!(s(1e-5), "1e-05");
        assert_eq!(s(f64::NEG_INFINITY), "-inf");
    }
}
