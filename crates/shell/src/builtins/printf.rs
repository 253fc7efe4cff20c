//! `printf [-v var] format [arguments]`: C-style conversions (`d i o u x X e E f F g G
//! c s b q %`, `%(fmt)T`), flags, `*` widths; the format is reused while arguments
//! remain.

use super::{done, fail, write_out};
use crate::exec::Flow;
use crate::shell::Shell;
use shell_parser::bytes;

pub fn printf(shell: &mut Shell, args: &[String]) -> Flow {
    let mut index = 1;
    let mut target = None;
    if args.get(1).map(String::as_str) == Some("-v") {
        match args.get(2) {
            Some(name) => {
                target = Some(name.clone());
                index = 3;
            }
            None => return fail(shell, "printf", "-v: option requires an argument", 2),
        }
    } else if let Some(rest) = args.get(1).and_then(|a| a.strip_prefix("-v")) {
        if !rest.is_empty() {
            target = Some(rest.to_string());
            index = 2;
        }
    }
    if args.get(index).map(String::as_str) == Some("--") {
        index += 1;
    }
    let format = match args.get(index) {
        Some(format) => format.clone(),
        None => return fail(shell, "printf", "usage: printf [-v var] format [arguments]", 2),
    };
    let operands = &args[index + 1..];
    let mut formatter = Formatter { shell, errors: false, stop: false, consumed: 0, operands };
    let mut out = String::new();
    loop {
        let before = formatter.consumed;
        formatter.format_once(&format, &mut out);
        if formatter.stop || formatter.consumed >= operands.len() || formatter.consumed == before {
            break;
        }
    }
    let status = if formatter.errors { 1 } else { 0 };
    match target {
        Some(name) => {
            if let Err(error) = shell.assign_named(&name, out) {
                return fail(shell, "printf", &error.message(), 1);
            }
            done(shell, status)
        }
        None => {
            let ok = write_out(shell, "printf", &crate::text::to_bytes(&out));
            done(shell, if ok { status } else { 1 })
        }
    }
}

struct Formatter<'a, 's> {
    shell: &'s mut Shell,
    errors: bool,
    stop: bool,
    consumed: usize,
    operands: &'a [String],
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<usize>,
    precision: Option<usize>,
}

impl<'a, 's> Formatter<'a, 's> {
    fn next_arg(&mut self) -> Option<String> {
        let arg = self.operands.get(self.consumed).cloned();
        if arg.is_some() {
            self.consumed += 1;
        }
        arg
    }

    fn format_once(&mut self, format: &str, out: &mut String) {
        let chars: Vec<char> = format.chars().collect();
        let mut i = 0;
        while i < chars.len() && !self.stop {
            let c = chars[i];
            if c == '\\' {
                let (text, used) = format_escape(&chars[i..]);
                out.push_str(&text);
                i += used;
                continue;
            }
            if c != '%' {
                out.push(c);
                i += 1;
                continue;
            }
            i += 1;
            if chars.get(i) == Some(&'%') {
                out.push('%');
                i += 1;
                continue;
            }
            let mut spec = Spec::default();
            while let Some(&flag) = chars.get(i) {
                match flag {
                    '-' => spec.left = true,
                    '+' => spec.plus = true,
                    ' ' => spec.space = true,
                    '#' => spec.alt = true,
                    '0' => spec.zero = true,
                    '\'' => {}
                    _ => break,
                }
                i += 1;
            }
            if chars.get(i) == Some(&'*') {
                i += 1;
                let value = self.number_arg();
                if value < 0 {
                    spec.left = true;
                }
                spec.width = Some(value.unsigned_abs() as usize);
            } else {
                let start = i;
                while chars.get(i).map_or(false, |c| c.is_ascii_digit()) {
                    i += 1;
                }
                if i > start {
                    spec.width = chars[start..i].iter().collect::<String>().parse().ok();
                }
            }
            if chars.get(i) == Some(&'.') {
                i += 1;
                if chars.get(i) == Some(&'*') {
                    i += 1;
                    let value = self.number_arg();
                    spec.precision = if value < 0 { None } else { Some(value as usize) };
                } else {
                    let start = i;
                    while chars.get(i).map_or(false, |c| c.is_ascii_digit()) {
                        i += 1;
                    }
                    spec.precision = Some(chars[start..i].iter().collect::<String>().parse().unwrap_or(0));
                }
            }
            while matches!(chars.get(i), Some('l') | Some('h') | Some('L') | Some('j') | Some('z') | Some('t')) {
                i += 1;
            }
            let conversion = match chars.get(i) {
                Some(&c) => c,
                None => {
                    out.push('%');
                    break;
                }
            };
            i += 1;
            if conversion == '(' {
                let close = (i..chars.len()).find(|&j| chars[j] == ')');
                match close {
                    Some(close) if chars.get(close + 1) == Some(&'T') => {
                        let time_format: String = chars[i..close].iter().collect();
                        i = close + 2;
                        let when = self.time_arg();
                        let text = crate::timefmt::strftime(&time_format, when);
                        out.push_str(&pad(&text, &spec, false));
                    }
                    _ => {
                        self.shell.report("printf: `(': invalid format character");
                        self.errors = true;
                        self.stop = true;
                    }
                }
                continue;
            }
            self.convert(conversion, &spec, out);
        }
    }

    fn number_arg(&mut self) -> i64 {
        match self.next_arg() {
            Some(arg) => self.parse_integer(&arg),
            None => 0,
        }
    }

    fn time_arg(&mut self) -> i64 {
        let now = (self.shell.host.now_ns() / 1_000_000_000) as i64;
        match self.next_arg() {
            Some(arg) if !arg.is_empty() => match self.parse_integer(&arg) {
                -1 => now,
                -2 => now - (self.shell.host.monotonic_ns().wrapping_sub(self.shell.start_ns) / 1_000_000_000) as i64,
                n => n,
            },
            _ => now,
        }
    }

    /// An integer argument as printf reads it: decimal, 0x, octal, or `'c` (the
    /// character's code). Invalid text is reported and counts as what parsed.
    fn parse_integer(&mut self, arg: &str) -> i64 {
        let trimmed = arg.trim_start();
        if let Some(rest) = trimmed.strip_prefix('\'').or_else(|| trimmed.strip_prefix('"')) {
            return rest.chars().next().map_or(0, |c| c as i64);
        }
        match parse_c_integer(trimmed) {
            Some((value, rest)) if rest.is_empty() => value,
            Some((value, _)) => {
                self.shell.report(&format!("printf: {}: invalid number", arg));
                self.errors = true;
                value
            }
            None => {
                if !trimmed.is_empty() {
                    self.shell.report(&format!("printf: {}: invalid number", arg));
                    self.errors = true;
                }
                0
            }
        }
    }

    fn parse_float(&mut self, arg: &str) -> f64 {
        let trimmed = arg.trim();
        if let Some(rest) = trimmed.strip_prefix('\'').or_else(|| trimmed.strip_prefix('"')) {
            return rest.chars().next().map_or(0.0, |c| c as u32 as f64);
        }
        if let Ok(value) = trimmed.parse::<f64>() {
            return value;
        }
        if let Some((value, rest)) = parse_c_integer(trimmed) {
            if rest.is_empty() {
                return value as f64;
            }
        }
        if !trimmed.is_empty() {
            self.shell.report(&format!("printf: {}: invalid number", arg));
            self.errors = true;
        }
        0.0
    }

    fn convert(&mut self, conversion: char, spec: &Spec, out: &mut String) {
        match conversion {
            's' => {
                let mut text = self.next_arg().unwrap_or_default();
                if let Some(precision) = spec.precision {
                    text = truncate_bytes(&text, precision);
                }
                out.push_str(&pad(&text, spec, false));
            }
            'b' => {
                let arg = self.next_arg().unwrap_or_default();
                let (mut text, stop) = super::echo::unescape(&arg, false);
                if let Some(precision) = spec.precision {
                    text = truncate_bytes(&text, precision);
                }
                out.push_str(&pad(&text, spec, false));
                if stop {
                    self.stop = true;
                }
            }
            'q' | 'Q' => {
                let arg = self.next_arg().unwrap_or_default();
                out.push_str(&pad(&crate::text::printf_quote(&arg), spec, false));
            }
            'c' => {
                let arg = self.next_arg().unwrap_or_default();
                let text: String = arg.chars().next().map(|c| c.to_string()).unwrap_or_default();
                out.push_str(&pad(&text, spec, false));
            }
            'd' | 'i' => {
                let value = match self.next_arg() {
                    Some(arg) => self.parse_integer(&arg),
                    None => 0,
                };
                let digits = value.unsigned_abs().to_string();
                let sign = if value < 0 {
                    "-"
                } else if spec.plus {
                    "+"
                } else if spec.space {
                    " "
                } else {
                    ""
                };
                out.push_str(&integer_field(sign, &digits, "", spec));
            }
            'u' | 'o' | 'x' | 'X' => {
                let value = match self.next_arg() {
                    Some(arg) => self.parse_integer(&arg),
                    None => 0,
                } as u64;
                let (digits, prefix) = match conversion {
                    'u' => (value.to_string(), ""),
                    'o' => (format!("{:o}", value), if spec.alt && value != 0 { "0" } else { "" }),
                    'x' => (format!("{:x}", value), if spec.alt && value != 0 { "0x" } else { "" }),
                    _ => (format!("{:X}", value), if spec.alt && value != 0 { "0X" } else { "" }),
                };
                out.push_str(&integer_field("", &digits, prefix, spec));
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A' => {
                let value = match self.next_arg() {
                    Some(arg) => self.parse_float(&arg),
                    None => 0.0,
                };
                let text = crate::builtins::printf::format_float(value, conversion, spec.precision, spec.alt);
                let (sign, body) = match text.strip_prefix('-') {
                    Some(body) => ("-", body.to_string()),
                    None if spec.plus => ("+", text),
                    None if spec.space => (" ", text),
                    None => ("", text),
                };
                let finite = value.is_finite();
                let mut local = Spec { left: spec.left, zero: spec.zero && finite, width: spec.width, ..Spec::default() };
                local.precision = None;
                out.push_str(&integer_field(sign, &body, "", &local));
            }
            other => {
                self.shell.report(&format!("printf: `{}': invalid format character", other));
                self.errors = true;
                self.stop = true;
            }
        }
    }
}

/// Pads to the field width (left-justified with `-`). Widths count bytes, as C's printf
/// (and bash's) do.
fn pad(text: &str, spec: &Spec, _numeric: bool) -> String {
    let width = spec.width.unwrap_or(0);
    let len = crate::text::to_bytes(text).len();
    if len >= width {
        return text.to_string();
    }
    let fill = " ".repeat(width - len);
    if spec.left {
        format!("{}{}", text, fill)
    } else {
        format!("{}{}", fill, text)
    }
}

/// The first `n` bytes of a string (possibly splitting a character, as C does).
fn truncate_bytes(text: &str, n: usize) -> String {
    let bytes = crate::text::to_bytes(text);
    if bytes.len() <= n {
        return text.to_string();
    }
    crate::text::from_bytes(&bytes[..n])
}

/// A number with sign, prefix, precision (minimum digits) and zero or space padding.
fn integer_field(sign: &str, digits: &str, prefix: &str, spec: &Spec) -> String {
    let mut digits = digits.to_string();
    if let Some(precision) = spec.precision {
        if precision == 0 && digits == "0" {
            digits.clear();
        }
        while digits.len() < precision {
            digits.insert(0, '0');
        }
    }
    let width = spec.width.unwrap_or(0);
    let len = sign.len() + prefix.len() + digits.chars().count();
    if len >= width {
        return format!("{}{}{}", sign, prefix, digits);
    }
    let fill = width - len;
    if spec.left {
        format!("{}{}{}{}", sign, prefix, digits, " ".repeat(fill))
    } else if spec.zero && spec.precision.is_none() {
        format!("{}{}{}{}", sign, prefix, "0".repeat(fill), digits)
    } else {
        format!("{}{}{}{}", " ".repeat(fill), sign, prefix, digits)
    }
}

/// `0x1f`, `017`, `-42`, `+7`: the value and the unparsed rest.
fn parse_c_integer(text: &str) -> Option<(i64, &str)> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (radix, digits) = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        (16, hex)
    } else if body.starts_with('0') && body.len() > 1 {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let end = digits.find(|c: char| !c.is_digit(radix)).unwrap_or(digits.len());
    if end == 0 {
        return if radix == 8 { Some((0, &body[1..])) } else { None };
    }
    let mut value: i64 = 0;
    for c in digits[..end].chars() {
        value = value.wrapping_mul(radix as i64).wrapping_add(c.to_digit(radix).unwrap_or(0) as i64);
    }
    Some((if negative { value.wrapping_neg() } else { value }, &digits[end..]))
}

/// C's `%e %f %g` (and `%a`, approximated with `%e`).
pub fn format_float(value: f64, conversion: char, precision: Option<usize>, alt: bool) -> String {
    let upper = conversion.is_ascii_uppercase();
    if value.is_nan() {
        return if upper { "NAN".into() } else { "nan".into() };
    }
    if value.is_infinite() {
        let text = if value < 0.0 { "-inf" } else { "inf" };
        return if upper { text.to_uppercase() } else { text.to_string() };
    }
    let precision = precision.unwrap_or(6);
    let text = match conversion.to_ascii_lowercase() {
        'f' => {
            let text = format!("{:.*}", precision, value);
            if alt && precision == 0 {
                format!("{}.", text)
            } else {
                text
            }
        }
        'e' | 'a' => exponent_form(value, precision),
        _ => {
            let p = if precision == 0 { 1 } else { precision };
            let exponent = if value == 0.0 { 0 } else { exponent_of(value, p) };
            let mut text = if exponent < -4 || exponent >= p as i32 {
                exponent_form(value, p - 1)
            } else {
                format!("{:.*}", (p as i32 - 1 - exponent).max(0) as usize, value)
            };
            if !alt {
                text = strip_zeros(&text);
            }
            text
        }
    };
    if upper {
        text.to_uppercase()
    } else {
        text
    }
}

/// The decimal exponent of `value` after rounding to `precision` significant digits.
fn exponent_of(value: f64, precision: usize) -> i32 {
    let text = format!("{:.*e}", precision.saturating_sub(1), value);
    text.split('e').nth(1).and_then(|e| e.parse().ok()).unwrap_or(0)
}

fn exponent_form(value: f64, precision: usize) -> String {
    let text = format!("{:.*e}", precision, value);
    let (mantissa, exponent) = match text.split_once('e') {
        Some(parts) => parts,
        None => return text,
    };
    let exponent: i32 = exponent.parse().unwrap_or(0);
    format!("{}e{}{:02}", mantissa, if exponent < 0 { '-' } else { '+' }, exponent.abs())
}

fn strip_zeros(text: &str) -> String {
    let (mantissa, exponent) = match text.find('e') {
        Some(pos) => (&text[..pos], &text[pos..]),
        None => (text, ""),
    };
    let mantissa = if mantissa.contains('.') { mantissa.trim_end_matches('0').trim_end_matches('.') } else { mantissa };
    format!("{}{}", mantissa, exponent)
}

/// A backslash escape in a printf format: its text and how many characters it used.
fn format_escape(chars: &[char]) -> (String, usize) {
    if chars.len() < 2 {
        return ("\\".to_string(), 1);
    }
    let digits = |max: usize, test: fn(&char) -> bool| chars[2..].iter().take(max).take_while(|c| test(c)).count();
    let used = match chars[1] {
        '0'..='7' => 2 + digits(2, |c| ('0'..='7').contains(c)),
        'x' => 2 + digits(2, |c| c.is_ascii_hexdigit()),
        'u' => 2 + digits(4, |c| c.is_ascii_hexdigit()),
        'U' => 2 + digits(8, |c| c.is_ascii_hexdigit()),
        _ => 2,
    };
    let piece: String = chars[..used].iter().collect();
    let (text, _) = super::echo::unescape(&piece, true);
    (bytes::normalize(text), used)
}

#[cfg(test)]
mod tests {
    use super::format_float;

    #[test]
    fn floats_like_c() {
        assert_eq!(format_float(3.14159, 'f', Some(2), false), "3.14");
        assert_eq!(format_float(12345.678, 'e', None, false), "1.234568e+04");
        assert_eq!(format_float(0.0001, 'g', None, false), "0.0001");
        assert_eq!(format_float(1234567.0, 'g', None, false), "1.23457e+06");
        assert_eq!(format_float(100.0, 'g', None, false), "100");
        assert_eq!(format_float(0.5, 'g', None, false), "0.5");
    }
}
