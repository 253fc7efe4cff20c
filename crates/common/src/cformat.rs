//! C `printf` conversions of one value, as glibc formats them: `%d %i %o %u %x %X` for
//! integers, `%f %F %e %E %g %G %a %A` for floating point, `%s %c` for bytes, with the
//! flags `-+ #0'`, a field width and a precision. Used by printf, seq -f and numfmt
//! --format. Values are f64; `%a` is printed the way glibc prints a `long double` (a
//! leading hex digit of 8–f), which is what those GNU tools use.

/// One parsed conversion specification.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spec {
    pub minus: bool,
    pub plus: bool,
    pub space: bool,
    pub hash: bool,
    pub zero: bool,
    pub width: Option<usize>,
    pub precision: Option<usize>,
    pub conversion: u8,
}

/// Where a width or precision comes from while parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Amount {
    None,
    Fixed(usize),
    /// `*`: taken from the next argument.
    Star,
}

/// A conversion as written in a format: flags, width and precision (maybe `*`), the
/// conversion letter, and the number of bytes it took after the `%`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Directive {
    pub spec: Spec,
    pub width: Amount,
    pub precision: Amount,
    pub length: usize,
}

/// Every byte, as `parse_directive`'s `valid`: for callers that judge the conversion letter
/// themselves (awk, the shell's printf).
pub const ANY_CONVERSION: [u8; 256] = {
    let mut all = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        all[i] = i as u8;
        i += 1;
    }
    all
};

/// Parses the text after a `%`. Length modifiers (`hh h l ll L j z t`) are accepted and
/// ignored, as GNU printf does. None when it is not a valid conversion: `valid` lists the
/// accepted conversion letters.
pub fn parse_directive(text: &[u8], valid: &[u8]) -> Option<Directive> {
    let mut spec = Spec::default();
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'-' => spec.minus = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'#' => spec.hash = true,
            b'0' => spec.zero = true,
            b'\'' => {}
            _ => break,
        }
        i += 1;
    }
    let mut width = Amount::None;
    if text.get(i) == Some(&b'*') {
        width = Amount::Star;
        i += 1;
    } else {
        let start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        if i > start {
            width = Amount::Fixed(std::str::from_utf8(&text[start..i]).ok()?.parse().ok()?);
        }
    }
    let mut precision = Amount::None;
    if text.get(i) == Some(&b'.') {
        i += 1;
        if text.get(i) == Some(&b'*') {
            precision = Amount::Star;
            i += 1;
        } else {
            let start = i;
            while i < text.len() && text[i].is_ascii_digit() {
                i += 1;
            }
            let digits = std::str::from_utf8(&text[start..i]).ok()?;
            precision = Amount::Fixed(if digits.is_empty() { 0 } else { digits.parse().ok()? });
        }
    }
    while i < text.len() && b"hlLjzt".contains(&text[i]) {
        i += 1;
    }
    let conversion = *text.get(i)?;
    if !valid.contains(&conversion) {
        return None;
    }
    spec.conversion = conversion;
    if let Amount::Fixed(w) = width {
        spec.width = Some(w);
    }
    if let Amount::Fixed(p) = precision {
        spec.precision = Some(p);
    }
    Some(Directive { spec, width, precision, length: i + 1 })
}

/// The flags, field width and precision of a `%` directive as find -printf and stat
/// --format write them: no `*` and no length modifiers; a `.` without digits is precision 0.
#[derive(Debug, PartialEq, Eq)]
pub struct Head<'a> {
    pub flags: &'a [u8],
    pub width: Option<usize>,
    pub precision: Option<usize>,
    /// How many bytes of the text the head took.
    pub length: usize,
}

/// Reads a [`Head`] at the start of `text` (after the `%`); `flags` lists the flag bytes.
pub fn parse_head<'a>(text: &'a [u8], flags: &[u8]) -> Head<'a> {
    let flags_end = text.iter().position(|c| !flags.contains(c)).unwrap_or(text.len());
    let digits_end = |from: usize| from + text[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let number = |from: usize, to: usize| std::str::from_utf8(&text[from..to]).ok().and_then(|s| s.parse().ok());
    let width_end = digits_end(flags_end);
    let (precision, length) = match text.get(width_end) {
        Some(b'.') => {
            let end = digits_end(width_end + 1);
            (Some(number(width_end + 1, end).unwrap_or(0)), end)
        }
        _ => (None, width_end),
    };
    Head { flags: &text[..flags_end], width: number(flags_end, width_end), precision, length }
}

/// Pads `body` (which may start with a sign or `0x` prefix of `prefix_len` bytes) to the
/// field width: spaces on the left, on the right with `-`, or zeros after the prefix.
fn pad(spec: &Spec, body: Vec<u8>, prefix_len: usize, zero_ok: bool) -> Vec<u8> {
    let width = spec.width.unwrap_or(0);
    if body.len() >= width {
        return body;
    }
    let fill = width - body.len();
    let mut out = Vec::with_capacity(width);
    if spec.minus {
        out.extend_from_slice(&body);
        out.resize(width, b' ');
    } else if spec.zero && zero_ok {
        out.extend_from_slice(&body[..prefix_len]);
        out.resize(prefix_len + fill, b'0');
        out.extend_from_slice(&body[prefix_len..]);
    } else {
        out.resize(fill, b' ');
        out.extend_from_slice(&body);
    }
    out
}

/// The sign a number's conversion prints first: `-`, or `+`/` ` as the flags ask.
pub fn sign_prefix(spec: &Spec, negative: bool) -> &'static [u8] {
    if negative {
        b"-"
    } else if spec.plus {
        b"+"
    } else if spec.space {
        b" "
    } else {
        b""
    }
}

/// `%d`/`%i` of a signed value.
pub fn format_signed(spec: &Spec, value: i64) -> Vec<u8> {
    let digits = value.unsigned_abs().to_string().into_bytes();
    let mut body = sign_prefix(spec, value < 0).to_vec();
    let prefix_len = body.len();
    append_digits(&mut body, &digits, spec.precision);
    pad(spec, body, prefix_len, spec.precision.is_none())
}

/// `%o %u %x %X` of an unsigned value.
pub fn format_unsigned(spec: &Spec, value: u64) -> Vec<u8> {
    let digits = match spec.conversion {
        b'o' => format!("{:o}", value),
        b'x' => format!("{:x}", value),
        b'X' => format!("{:X}", value),
        _ => value.to_string(),
    }
    .into_bytes();
    let mut body = Vec::new();
    match spec.conversion {
        b'x' if spec.hash && value != 0 => body.extend_from_slice(b"0x"),
        b'X' if spec.hash && value != 0 => body.extend_from_slice(b"0X"),
        _ => {}
    }
    let prefix_len = body.len();
    append_digits(&mut body, &digits, spec.precision);
    // `#` makes the first octal digit a 0.
    if spec.conversion == b'o' && spec.hash && body.first() != Some(&b'0') {
        body.insert(0, b'0');
    }
    pad(spec, body, prefix_len, spec.precision.is_none())
}

/// Digits with a minimum count (precision); precision 0 and value 0 give no digits.
fn append_digits(body: &mut Vec<u8>, digits: &[u8], precision: Option<usize>) {
    match precision {
        Some(0) if digits == b"0" => {}
        Some(p) if p > digits.len() => {
            body.resize(body.len() + p - digits.len(), b'0');
            body.extend_from_slice(digits);
        }
        _ => body.extend_from_slice(digits),
    }
}

/// `%s` (precision truncates) and `%c` (the first byte).
pub fn format_bytes(spec: &Spec, bytes: &[u8]) -> Vec<u8> {
    let body = if spec.conversion == b'c' {
        bytes.first().map(|b| vec![*b]).unwrap_or_else(|| vec![0])
    } else {
        match spec.precision {
            Some(p) if p < bytes.len() => bytes[..p].to_vec(),
            _ => bytes.to_vec(),
        }
    };
    pad(spec, body, 0, false)
}

/// `%f %F %e %E %g %G %a %A` of a value.
pub fn format_float(spec: &Spec, value: f64) -> Vec<u8> {
    let upper = spec.conversion.is_ascii_uppercase();
    let negative = value.is_sign_negative() && !(value.is_nan());
    let mut body = sign_prefix(spec, negative).to_vec();
    let prefix_len = body.len();
    if !value.is_finite() {
        let word: &[u8] = match (value.is_nan(), upper) {
            (true, false) => b"nan",
            (true, true) => b"NAN",
            (false, false) => b"inf",
            (false, true) => b"INF",
        };
        // glibc prints a NaN's sign bit too.
        if value.is_nan() && value.is_sign_negative() {
            body = b"-".to_vec();
        }
        body.extend_from_slice(word);
        return pad(spec, body, 0, false);
    }
    let magnitude = value.abs();
    let precision = spec.precision.unwrap_or(6);
    let text = match spec.conversion.to_ascii_lowercase() {
        b'f' => fixed(magnitude, precision, spec.hash),
        b'e' => exponential(magnitude, precision, spec.hash),
        b'g' => general(magnitude, precision, spec.hash),
        _ => hex_long_double(magnitude, spec.precision, spec.hash),
    };
    let mut text = text.into_bytes();
    let mut prefix_len = prefix_len;
    if spec.conversion.to_ascii_lowercase() == b'a' {
        prefix_len += 2;
    }
    if upper {
        text.make_ascii_uppercase();
    }
    body.extend_from_slice(&text);
    pad(spec, body, prefix_len, true)
}

/// `%.*f` of a non-negative finite value, correctly rounded (ties to even, as glibc).
pub fn fixed(magnitude: f64, precision: usize, hash: bool) -> String {
    // Rust 1.63 rounds 0.5 to "1" with precision 0; glibc (ties-to-even) prints "0".
    let mut text = if precision == 0 && magnitude == 0.5 { "0".to_string() } else { format!("{:.*}", precision, magnitude) };
    if hash && precision == 0 {
        text.push('.');
    }
    text
}

/// `%.*e` of a non-negative finite value: `d.ddde+XX`.
pub fn exponential(magnitude: f64, precision: usize, hash: bool) -> String {
    let text = format!("{:.*e}", precision, magnitude);
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let mut out = mantissa.to_string();
    if hash && precision == 0 {
        out.push('.');
    }
    out.push_str(&format!("e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.abs()));
    out
}

/// `%.*g`: %e or %f by the exponent, trailing zeros removed unless `#`.
pub fn general(magnitude: f64, precision: usize, hash: bool) -> String {
    let p = if precision == 0 { 1 } else { precision };
    let probe = format!("{:.*e}", p - 1, magnitude);
    let exponent: i64 = probe.split_once('e').map_or(0, |(_, e)| e.parse().unwrap_or(0));
    let mut text = if (p as i64) > exponent && exponent >= -4 {
        fixed(magnitude, (p as i64 - 1 - exponent) as usize, hash)
    } else {
        exponential(magnitude, p - 1, hash)
    };
    if !hash {
        let (mantissa, suffix) = match text.find('e') {
            Some(i) => (text[..i].to_string(), text[i..].to_string()),
            None => (text.clone(), String::new()),
        };
        let mantissa = if mantissa.contains('.') { mantissa.trim_end_matches('0').trim_end_matches('.').to_string() } else { mantissa };
        text = mantissa + &suffix;
    }
    text
}

/// `%a` of a non-negative finite double as glibc prints a `double` (`0x1.8p+0` for 1.5:
/// gawk's form; GNU printf's `long double` form is `hex_long_double`).
pub fn hex_double(a: f64, precision: Option<usize>) -> String {
    let bits = a.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mantissa = bits & ((1u64 << 52) - 1);
    let lead = if exp == 0 {
        if mantissa == 0 {
            0
        } else {
            exp = 1;
            0
        }
    } else {
        1
    };
    if a == 0.0 {
        exp = 1023;
    }
    let mut digits = format!("{:013x}", mantissa);
    match precision {
        Some(p) if p < 13 => {
            // Round the mantissa to p hex digits (half to even is close enough here).
            let shift = 4 * (13 - p) as u32;
            let half = 1u64 << (shift - 1);
            let rounded = (mantissa + half) >> shift;
            mantissa = rounded << shift;
            digits = format!("{:013x}", mantissa & ((1u64 << 52) - 1));
            digits.truncate(p);
        }
        Some(p) => {
            while digits.len() < p {
                digits.push('0');
            }
        }
        None => {
            while digits.ends_with('0') {
                digits.pop();
            }
        }
    }
    let mut text = format!("0x{}", lead);
    if !digits.is_empty() {
        text.push('.');
        text.push_str(&digits);
    }
    let e = if a == 0.0 { 0 } else { exp - 1023 };
    text.push_str(&format!("p{}{}", if e < 0 { '-' } else { '+' }, e.abs()));
    text
}

/// `%a` as glibc prints a long double holding `magnitude`: `0x8p-3` for 1.
fn hex_long_double(magnitude: f64, precision: Option<usize>, hash: bool) -> String {
    if magnitude == 0.0 {
        let digits = precision.map(|p| "0".repeat(p)).unwrap_or_default();
        let point = if !digits.is_empty() || hash { "." } else { "" };
        return format!("0x0{}{}p+0", point, digits);
    }
    let bits = magnitude.to_bits();
    let mut exponent = ((bits >> 52) & 0x7ff) as i64;
    let mut fraction = bits & ((1u64 << 52) - 1);
    if exponent == 0 {
        // Subnormal: normalise.
        exponent = 1;
        while fraction & (1u64 << 52) == 0 {
            fraction <<= 1;
            exponent -= 1;
        }
        fraction &= (1u64 << 52) - 1;
    }
    // The 64-bit long double mantissa with its explicit leading 1.
    let mut mantissa: u128 = ((1u128 << 63) | ((fraction as u128) << 11)) as u128;
    let mut exp2 = exponent - 1023 - 3;
    let mut digits = 15usize;
    if let Some(p) = precision {
        if p < 15 {
            let drop = (15 - p) * 4;
            let unit = 1u128 << drop;
            let rest = mantissa & (unit - 1);
            mantissa >>= drop;
            let half = unit >> 1;
            if rest > half || (rest == half && mantissa & 1 == 1) {
                mantissa += 1;
            }
            if mantissa >> (p * 4 + 4) != 0 {
                // Carried into a new leading digit: renormalise to a leading 8.
                mantissa >>= 1;
                exp2 += 1;
                if p == 0 {
                    mantissa = 8;
                }
            }
            digits = p;
        } else {
            mantissa <<= (p - 15) * 4;
            digits = p;
        }
    }
    let all = format!("{:0width$x}", mantissa, width = digits + 1);
    let (lead, rest) = all.split_at(1);
    let mut rest = rest.to_string();
    if precision.is_none() {
        rest = rest.trim_end_matches('0').to_string();
    }
    let point = if !rest.is_empty() || hash { "." } else { "" };
    format!("0x{}{}{}p{}{}", lead, point, rest, if exp2 < 0 { '-' } else { '+' }, exp2.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, v: f64) -> String {
        let d = parse_directive(fmt.as_bytes(), b"feEgGaAF").unwrap();
        String::from_utf8(format_float(&d.spec, v)).unwrap()
    }

    #[test]
    fn heads() {
        assert_eq!(parse_head(b"-08.3fx", b"-+ #0"), Head { flags: b"-0", width: Some(8), precision: Some(3), length: 5 });
        assert_eq!(parse_head(b"'.d", b"-+ #0'"), Head { flags: b"'", width: None, precision: Some(0), length: 2 });
        assert_eq!(parse_head(b"s", b"-"), Head { flags: b"", width: None, precision: None, length: 0 });
    }

    #[test]
    fn floats() {
        assert_eq!(f("f", 3.14159), "3.141590");
        assert_eq!(f(".0f", 0.5), "0");
        assert_eq!(f(".0f", 1.5), "2");
        assert_eq!(f("e", 12345.678), "1.234568e+04");
        assert_eq!(f("g", 100000.0), "100000");
        assert_eq!(f("g", 1000000.0), "1e+06");
        assert_eq!(f("g", 0.0001), "0.0001");
        assert_eq!(f("#g", 1.0), "1.00000");
        assert_eq!(f("G", 0.00001234), "1.234E-05");
        assert_eq!(f("-+08.3f", 3.14159), "+3.142  ");
        assert_eq!(f("010.2f", -3.14159), "-000003.14");
        assert_eq!(f("a", 1.0), "0x8p-3");
        assert_eq!(f("A", 255.0), "0XF.FP+4");
        assert_eq!(f("a", 0.0), "0x0p+0");
        assert_eq!(f("F", f64::NEG_INFINITY), "-INF");
        assert_eq!(f("5f", f64::INFINITY), "  inf");
    }

    #[test]
    fn integers() {
        let d = parse_directive(b"05d", b"d").unwrap();
        assert_eq!(format_signed(&d.spec, -42), b"-0042");
        let d = parse_directive(b".3d", b"d").unwrap();
        assert_eq!(format_signed(&d.spec, 5), b"005");
        let d = parse_directive(b"#o", b"o").unwrap();
        assert_eq!(format_unsigned(&d.spec, 8), b"010");
        let d = parse_directive(b"#x", b"x").unwrap();
        assert_eq!(format_unsigned(&d.spec, 255), b"0xff");
        let d = parse_directive(b"8.3x", b"x").unwrap();
        assert_eq!(format_unsigned(&d.spec, 255), b"     0ff");
        let d = parse_directive(b"#.0o", b"o").unwrap();
        assert_eq!(format_unsigned(&d.spec, 0), b"0");
    }
}
