//! printf/sprintf formatting as gawk does it: every C conversion (`d i o x X u c s e E f F
//! g G a A %`), flags `- + space # 0`, `*` widths and precisions, `%N$` positions. Widths
//! and precisions of `%s`/`%c` count characters (UTF-8), not bytes. Floating-point digits
//! come from common::cformat (as printf's, seq's and numfmt's do), which also reads each
//! directive and formats the integers that fit in 64 bits; this file adds awk's argument
//! handling, `%N$`, character widths, integers beyond 64 bits and `%a` of a double (gawk's,
//! not the long double of GNU printf).

use common::cformat::{self, sign_prefix, Amount, Spec};

use super::lexer::char_at;
use super::value::{nan_inf_text, Value};

/// Widths and precisions are capped so a typo cannot ask for gigabytes of padding.
const MAX_WIDTH: usize = 1 << 26;

const LENGTH_MODIFIERS: &[u8] = b"hlLjzt";

/// Formats `fmt` with `args` into `out`. Errors (not enough arguments) are gawk's fatal
/// messages.
pub fn sprintf(out: &mut Vec<u8>, fmt: &[u8], args: &[Value], convfmt: &[u8]) -> Result<(), String> {
    let mut next_arg = 0;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            let run = fmt[i..].iter().position(|b| *b == b'%').unwrap_or(fmt.len() - i);
            out.extend_from_slice(&fmt[i..i + run]);
            i += run;
            continue;
        }
        let start = i;
        i += 1;
        if i >= fmt.len() {
            out.push(b'%');
            break;
        }
        if fmt[i] == b'%' {
            out.push(b'%');
            i += 1;
            continue;
        }
        // %N$: an explicit argument position.
        let digits = fmt[i..].iter().take_while(|d| d.is_ascii_digit()).count();
        if digits > 0 && fmt.get(i + digits) == Some(&b'$') {
            let n: usize = std::str::from_utf8(&fmt[i..i + digits]).ok().and_then(|t| t.parse().ok()).unwrap_or(0);
            if n == 0 {
                return Err("fatal: positional specifier `$' must be positive".to_string());
            }
            next_arg = n - 1;
            i += digits + 1;
        }
        let directive = match cformat::parse_directive(&fmt[i..], &cformat::ANY_CONVERSION) {
            Some(d) => d,
            None => {
                out.extend_from_slice(&fmt[start..]);
                break;
            }
        };
        let mut spec = directive.spec;
        let conv_at = i + directive.length - 1;
        // One length modifier is accepted and ignored (gawk prints `%lld` as it is).
        let modifiers = fmt[..conv_at].iter().rev().take_while(|c| LENGTH_MODIFIERS.contains(c)).count();
        if modifiers > 1 {
            let second = conv_at - modifiers + 1;
            let end = fmt[second..].iter().position(|c| c.is_ascii_alphabetic() && !LENGTH_MODIFIERS.contains(c)).map_or(fmt.len(), |p| second + p + 1);
            out.extend_from_slice(&fmt[start..end]);
            i = end;
            continue;
        }
        spec.width = match directive.width {
            Amount::Star => {
                let w = take_arg(args, &mut next_arg)?.to_num();
                if w < 0.0 {
                    spec.minus = true;
                }
                Some(w.abs().min(MAX_WIDTH as f64) as usize)
            }
            _ => spec.width.map(|w| w.min(MAX_WIDTH)),
        };
        spec.precision = match directive.precision {
            Amount::Star => {
                let p = take_arg(args, &mut next_arg)?.to_num();
                if p < 0.0 {
                    None
                } else {
                    Some(p.min(MAX_WIDTH as f64) as usize)
                }
            }
            _ => spec.precision.map(|p| p.min(MAX_WIDTH)),
        };
        let conv = fmt[conv_at];
        i = conv_at;
        i += 1;
        match conv {
            b'd' | b'i' => {
                let v = take_arg(args, &mut next_arg)?.to_num();
                format_signed(out, v, &spec);
            }
            b'o' | b'x' | b'X' | b'u' => {
                let v = take_arg(args, &mut next_arg)?.to_num();
                format_unsigned(out, v, conv, &spec);
            }
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' | b'a' | b'A' => {
                let v = take_arg(args, &mut next_arg)?.to_num();
                format_float(out, v, conv, &spec);
            }
            b'c' => {
                let arg = take_arg(args, &mut next_arg)?;
                let mut text = Vec::new();
                if arg.is_numeric() {
                    push_char_code(&mut text, arg.to_num());
                } else {
                    let s = arg.to_str(convfmt);
                    let (_, len) = char_at(&s, 0);
                    if len == 0 {
                        text.push(0);
                    } else {
                        text.extend_from_slice(&s[..len]);
                    }
                }
                pad(out, &text, 1, &spec, false);
            }
            b's' => {
                let arg = take_arg(args, &mut next_arg)?;
                let s = arg.to_str(convfmt);
                let (text, chars) = match spec.precision {
                    Some(p) => truncate_chars(&s, p),
                    None => (&s[..], count_chars(&s)),
                };
                pad(out, text, chars, &spec, false);
            }
            b'%' => out.push(b'%'),
            _ => out.extend_from_slice(&fmt[start..i]),
        }
    }
    Ok(())
}

fn take_arg<'v>(args: &'v [Value], next: &mut usize) -> Result<&'v Value, String> {
    match args.get(*next) {
        Some(v) => {
            *next += 1;
            Ok(v)
        }
        None => Err("fatal: not enough arguments to satisfy format string".to_string()),
    }
}

pub fn count_chars(s: &[u8]) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    let mut n = 0;
    let mut i = 0;
    while i < s.len() {
        i += char_at(s, i).1;
        n += 1;
    }
    n
}

fn truncate_chars(s: &[u8], max: usize) -> (&[u8], usize) {
    let mut i = 0;
    let mut n = 0;
    while i < s.len() && n < max {
        i += char_at(s, i).1;
        n += 1;
    }
    (&s[..i], n)
}

/// The character for `%c` with a number: ASCII as a byte, others UTF-8 encoded.
fn push_char_code(out: &mut Vec<u8>, v: f64) {
    let code = if v.is_finite() && v >= 0.0 { v as u64 } else { 0 };
    if code < 128 {
        out.push(code as u8);
        return;
    }
    match char::from_u32(code as u32).filter(|_| code <= u32::MAX as u64) {
        Some(c) => {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        None => out.push(code as u8),
    }
}

/// Pads `text` (`chars` characters wide) to the width. `numeric_zero`: zero padding goes
/// after the sign/prefix, which the caller passed separately.
fn pad(out: &mut Vec<u8>, text: &[u8], chars: usize, spec: &Spec, _numeric: bool) {
    let fill = spec.width.unwrap_or(0).saturating_sub(chars);
    if !spec.minus {
        out.extend(std::iter::repeat(b' ').take(fill));
    }
    out.extend_from_slice(text);
    if spec.minus {
        out.extend(std::iter::repeat(b' ').take(fill));
    }
}

/// Writes `prefix` (sign, 0x) and `digits` padded to the width: zeros between them with
/// the `0` flag, spaces otherwise.
fn pad_number(out: &mut Vec<u8>, prefix: &[u8], digits: &[u8], spec: &Spec, zero_allowed: bool) {
    let len = prefix.len() + digits.len();
    let fill = spec.width.unwrap_or(0).saturating_sub(len);
    if spec.minus {
        out.extend_from_slice(prefix);
        out.extend_from_slice(digits);
        out.extend(std::iter::repeat(b' ').take(fill));
    } else if spec.zero && zero_allowed {
        out.extend_from_slice(prefix);
        out.extend(std::iter::repeat(b'0').take(fill));
        out.extend_from_slice(digits);
    } else {
        out.extend(std::iter::repeat(b' ').take(fill));
        out.extend_from_slice(prefix);
        out.extend_from_slice(digits);
    }
}

/// `%d`: the integer part, through cformat when it fits in 64 bits; beyond, gawk prints
/// every digit of the double (`%d` of 1e30 is 1000000000000000019884624838656).
fn format_signed(out: &mut Vec<u8>, v: f64, spec: &Spec) {
    if !v.is_finite() {
        out.extend_from_slice(nan_inf_text(v).as_bytes());
        return;
    }
    let t = v.trunc();
    if t.abs() < 9.2e18 {
        out.extend_from_slice(&cformat::format_signed(spec, t as i64));
        return;
    }
    let mut digits = format!("{:.0}", t.abs()).into_bytes();
    if let Some(p) = spec.precision.filter(|p| *p > digits.len()) {
        digits.splice(0..0, std::iter::repeat(b'0').take(p - digits.len()));
    }
    pad_number(out, sign_prefix(spec, t < 0.0), &digits, spec, spec.precision.is_none());
}

/// `%o %x %X %u` through cformat; negative values wrap as C's cast does.
fn format_unsigned(out: &mut Vec<u8>, v: f64, conv: u8, spec: &Spec) {
    if !v.is_finite() {
        out.extend_from_slice(nan_inf_text(v).as_bytes());
        return;
    }
    let t = v.trunc();
    if t < 0.0 && t < -9.2e18 || t >= 1.8e19 {
        // Out of range for an unsigned conversion: gawk falls back to a float format.
        let mut g = *spec;
        g.precision = None;
        format_float(out, v, b'g', &g);
        return;
    }
    let u = if t < 0.0 { (t as i64) as u64 } else { t as u64 };
    out.extend_from_slice(&cformat::format_unsigned(&Spec { conversion: conv, ..*spec }, u));
}

fn format_float(out: &mut Vec<u8>, v: f64, conv: u8, spec: &Spec) {
    if !v.is_finite() {
        out.extend_from_slice(nan_inf_text(v).as_bytes());
        return;
    }
    let negative = v.is_sign_negative();
    let a = v.abs();
    let precision = spec.precision.unwrap_or(6);
    let mut body = match conv | 0x20 {
        b'f' => cformat::fixed(a, precision, spec.hash),
        b'e' => cformat::exponential(a, precision, spec.hash),
        b'g' => cformat::general(a, precision, spec.hash),
        _ => cformat::hex_double(a, spec.precision),
    }
    .into_bytes();
    if conv.is_ascii_uppercase() {
        body.make_ascii_uppercase();
    }
    let prefix = sign_prefix(spec, negative);
    pad_number(out, prefix, &body, spec, true);
}

/// `%.{precision}g` without going through the format parser (OFMT/CONVFMT's default).
pub fn format_g(out: &mut Vec<u8>, v: f64, precision: usize, alt: bool, upper: bool) {
    if !v.is_finite() {
        out.extend_from_slice(nan_inf_text(v).as_bytes());
        return;
    }
    if v.is_sign_negative() && v != 0.0 {
        out.push(b'-');
    }
    let start = out.len();
    out.extend_from_slice(cformat::general(v.abs(), precision.max(1), alt).as_bytes());
    if upper {
        out[start..].make_ascii_uppercase();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[Value]) -> String {
        let mut out = Vec::new();
        sprintf(&mut out, fmt.as_bytes(), args, b"%.6g").unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn conversions() {
        let n = |v: f64| Value::Num(v);
        assert_eq!(f("%d|%5.2f|%e|%g|%G", &[n(42.9), n(3.14159), n(12345.678), n(0.0001234), n(1e20)]), "42| 3.14|1.234568e+04|0.0001234|1E+20");
        assert_eq!(f("%x %o %u %c", &[n(255.0), n(8.0), n(-1.0), n(65.0)]), "ff 10 18446744073709551615 A");
        assert_eq!(f("%.3d|%-+5d|% d|%#o|%#x|%08.3f|%-08d|%+.2e", &[n(5.0), n(3.0), n(4.0), n(8.0), n(255.0), n(-3.14159), n(7.0), n(12345.0)]), "005|+3   | 4|010|0xff|-003.142|7       |+1.23e+04");
        assert_eq!(f("%5s|%-5s|%.2s", &[Value::from_str("éé".as_bytes()), Value::from_str("é".as_bytes()), Value::from_str("ééé".as_bytes())]), "   éé|é    |éé");
        assert_eq!(f("%*d|%-*d|%.*f", &[n(4.0), n(7.0), n(3.0), n(1.0), n(2.0), n(3.14159)]), "   7|1  |3.14");
        assert_eq!(f("%g %g %g %#g", &[n(100000.0), n(1e6), n(0.5), n(1.0)]), "100000 1e+06 0.5 1.00000");
        assert_eq!(f("%d %i", &[n(1e30), n(-3.9)]), "1000000000000000019884624838656 -3");
        assert_eq!(f("%2$s %1$s", &[Value::from_str(b"a"), Value::from_str(b"b")]), "b a");
    }
}
