//! `seq [-w] [-s SEP] [-f FORMAT] [FIRST [INCREMENT]] LAST`: GNU seq. Non-negative
//! integer sequences are produced by incrementing decimal strings (any size, fast);
//! other integer sequences exactly with i128; fractional ones in floating point with
//! GNU's default format (`%.PRECf` from the operands' decimals, `%g` otherwise) and its
//! rule for printing a last value that rounding pushed just past LAST.

use std::ffi::OsString;

use common::args::{bytes_os, os_bytes, Order, Parsed};
use common::cformat::{self, Spec};
use common::cnum;
use common::io::quote;
use common::{Command, Io, UError};

const SPEC: &str = "format,f: separator,s: equal-width,w";

const SEQ: Command = Command { usage_status: 1, order: Order::RequireOrder, ..Command::compact("seq", SPEC, HELP) };

/// A command-line number with the width and precision it would print with.
#[derive(Clone, Copy)]
struct Operand {
    value: f64,
    width: usize,
    /// Digits after the point; None when not expressible as fixed point.
    precision: Option<usize>,
}

/// A user format split around its one conversion (`%%` already reduced to `%`).
struct Format {
    prefix: Vec<u8>,
    spec: Spec,
    suffix: Vec<u8>,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    // Options end at the first operand; `-1` or `-.5` is an operand, not an option.
    let mut split = args.len();
    let mut i = 1;
    while i < args.len() {
        let a = os_bytes(&args[i]);
        if a == b"--" {
            split = i + 1;
            break;
        }
        if a.len() < 2 || a[0] != b'-' || a[1] == b'.' || a[1].is_ascii_digit() {
            split = i;
            break;
        }
        if a == b"-f" || a == b"-s" || (a.len() > 3 && (b"--format".starts_with(a) || b"--separator".starts_with(a))) {
            i += 1;
        }
        i += 1;
    }
    let split = split.min(args.len());
    let mut format: Option<Vec<u8>> = None;
    let mut separator = b"\n".to_vec();
    let mut equal_width = false;
    let mut operands: Vec<Vec<u8>> = Vec::new();
    SEQ.options_after_name(&args[1..split], io, &mut |_, p| {
        match p {
            Parsed::Opt { id: "format", value } => format = value.map(|v| os_bytes(&v).to_vec()),
            Parsed::Opt { id: "separator", value } => separator = value.map(|v| os_bytes(&v).to_vec()).unwrap_or_default(),
            Parsed::Opt { id: "equal-width", .. } => equal_width = true,
            Parsed::Opt { .. } => {}
            Parsed::Operand(o) => operands.push(os_bytes(&o).to_vec()),
        }
        Ok(())
    })?;
    operands.extend(args[split..].iter().map(|a| os_bytes(a).to_vec()));
    if operands.is_empty() {
        return Err(UError::usage(1, "missing operand"));
    }
    if operands.len() > 3 {
        return Err(UError::usage(1, format!("extra operand {}", quote(&bytes_os(&operands[3])))));
    }
    let user_format = match &format {
        Some(f) => match parse_format(f) {
            Ok(parsed) => Some(parsed),
            Err(message) => {
                return Err(UError::new(1, message));
            }
        },
        None => None,
    };
    if user_format.is_some() && equal_width {
        return Err(UError::usage(1, "format string may not be specified when printing equal width strings"));
    }
    let mut scanned = Vec::new();
    for (n, text) in operands.iter().enumerate() {
        match scan(text) {
            Ok(op) => {
                if n == 1 && operands.len() == 3 && op.value == 0.0 {
                    return Err(UError::usage(1, format!("invalid Zero increment value: {}", quote(&bytes_os(text)))));
                }
                scanned.push(op)
            }
            Err(message) => {
                return Err(UError::usage(1, message));
            }
        }
    }
    let one = Operand { value: 1.0, width: 1, precision: Some(0) };
    let (first, step, last) = match scanned.len() {
        1 => (one, one, scanned[0]),
        2 => (scanned[0], one, scanned[1]),
        _ => (scanned[0], scanned[1], scanned[2]),
    };
    let mut out = Output { io, buffer: Vec::with_capacity(common::io::BUFFER_SIZE) };
    let integers = first.precision == Some(0) && step.precision == Some(0) && last.precision == Some(0);
    if integers && user_format.is_none() && !equal_width && first.value.is_finite() && first.value >= 0.0 && last.value >= 0.0 && step.value > 0.0 && step.value <= 200.0 {
        let start = format!("{:.0}", first.value);
        let end = if last.value.is_finite() { Some(format!("{:.0}", last.value)) } else { None };
        let start = if scanned.len() > 1 && all_digits(&operands[0]) { String::from_utf8_lossy(&operands[0]).into_owned() } else { start };
        let end = match (&end, scanned.len()) {
            (Some(_), n) if all_digits(&operands[n - 1]) => Some(String::from_utf8_lossy(&operands[n - 1]).into_owned()),
            _ => end,
        };
        return Ok(out.fast(&start, end.as_deref(), step.value as u32, &separator));
    }
    if integers && user_format.is_none() && [first.value, step.value, last.value].iter().all(|v| v.is_finite() && v.abs() < 1e30) {
        let width = if equal_width { equal_width_of(first, step, last).0 } else { 0 };
        return Ok(out.integers(first.value as i128, step.value as i128, last.value as i128, width, &separator));
    }
    let format = match user_format {
        Some(f) => f,
        None => default_format(first, step, last, equal_width),
    };
    Ok(out.floats(&format, first.value, step.value, last.value, &separator))
}

struct Output<'a, 'io> {
    io: &'a mut Io<'io>,
    buffer: Vec<u8>,
}

impl<'a, 'io> Output<'a, 'io> {
    /// Appends bytes; false when the reader went away (stop quietly).
    fn push(&mut self, bytes: &[u8]) -> bool {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= common::io::BUFFER_SIZE {
            return self.flush();
        }
        true
    }

    fn flush(&mut self) -> bool {
        let ok = self.io.out(&self.buffer).is_ok();
        self.buffer.clear();
        ok
    }

    fn finish(&mut self, printed: bool) -> i32 {
        if printed {
            self.push(b"\n");
        }
        self.flush();
        0
    }

    /// Non-negative integers as decimal strings, incremented in place.
    fn fast(&mut self, start: &str, end: Option<&str>, step: u32, separator: &[u8]) -> i32 {
        let mut current: Vec<u8> = trim_zeros(start.as_bytes()).to_vec();
        let end: Option<Vec<u8>> = end.map(|e| trim_zeros(e.as_bytes()).to_vec());
        if let Some(e) = &end {
            if compare_digits(&current, e) == std::cmp::Ordering::Greater {
                return 0;
            }
        }
        let mut first = true;
        loop {
            if !first && !self.push(separator) {
                return 0;
            }
            first = false;
            if !self.push(&current) {
                return 0;
            }
            for _ in 0..step {
                increment(&mut current);
            }
            if let Some(e) = &end {
                if compare_digits(&current, e) == std::cmp::Ordering::Greater {
                    break;
                }
            }
        }
        self.finish(true)
    }

    fn integers(&mut self, first: i128, step: i128, last: i128, width: usize, separator: &[u8]) -> i32 {
        if (step > 0 && first > last) || (step < 0 && first < last) {
            return 0;
        }
        let mut x = first;
        let mut printed = false;
        loop {
            if printed && !self.push(separator) {
                return 0;
            }
            let text = if x < 0 { format!("-{:0w$}", -x, w = width.saturating_sub(1)) } else { format!("{:0w$}", x, w = width) };
            if !self.push(text.as_bytes()) {
                return 0;
            }
            printed = true;
            x += step;
            if (step > 0 && x > last) || (step < 0 && x < last) {
                break;
            }
        }
        self.finish(printed)
    }

    fn floats(&mut self, format: &Format, first: f64, step: f64, last: f64, separator: &[u8]) -> i32 {
        let out_of_range = |x: f64| if step < 0.0 { x < last } else { last < x };
        if out_of_range(first) {
            return 0;
        }
        let render = |x: f64| cformat::format_float(&format.spec, x);
        let mut x = first;
        let mut i: f64 = 1.0;
        loop {
            let mut line = format.prefix.clone();
            line.extend_from_slice(&render(x));
            line.extend_from_slice(&format.suffix);
            if !self.push(&line) {
                return 0;
            }
            let previous = x;
            x = first + i * step;
            i += 1.0;
            if out_of_range(x) {
                // Print a value just past LAST when it prints as LAST and differs from
                // the previous one (rounding in the accumulation).
                let text = render(x);
                let equal = cnum::strtod(&text).value == last && cnum::strtod(&text).used == text.len();
                if !(equal && render(previous) != text) {
                    break;
                }
            }
            if !self.push(separator) {
                return 0;
            }
        }
        self.finish(true)
    }
}

fn all_digits(text: &[u8]) -> bool {
    !text.is_empty() && text.iter().all(|c| c.is_ascii_digit())
}

fn trim_zeros(digits: &[u8]) -> &[u8] {
    let start = digits.iter().position(|c| *c != b'0').unwrap_or(digits.len().saturating_sub(1));
    &digits[start..]
}

fn compare_digits(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn increment(digits: &mut Vec<u8>) {
    for d in digits.iter_mut().rev() {
        if *d < b'9' {
            *d += 1;
            return;
        }
        *d = b'0';
    }
    digits.insert(0, b'1');
}

/// An operand with GNU's width and precision rules (scan_arg).
fn scan(text: &[u8]) -> Result<Operand, String> {
    let scanned = cnum::strtod(text);
    if scanned.used == 0 || scanned.used != text.len() {
        return Err(format!("invalid floating point argument: {}", quote(&bytes_os(text))));
    }
    if scanned.value.is_nan() {
        return Err(format!("invalid {} argument: {}", quote(&bytes_os(b"not-a-number")), quote(&bytes_os(text))));
    }
    let start = text.iter().position(|c| !(c.is_ascii_whitespace() || *c == b'+')).unwrap_or(text.len());
    let arg = &text[start..];
    let point = arg.iter().position(|c| *c == b'.');
    let mut precision = if point.is_none() && !arg.contains(&b'p') { Some(0) } else { None };
    let mut width = 0usize;
    if !arg.iter().any(|c| *c == b'x' || *c == b'X') && scanned.value.is_finite() {
        let mut fraction_len = 0usize;
        let mut w = arg.len() as i64;
        if let Some(p) = point {
            fraction_len = arg[p + 1..].iter().position(|c| *c == b'e' || *c == b'E').unwrap_or(arg.len() - p - 1);
            precision = Some(fraction_len);
            w += if fraction_len == 0 {
                -1
            } else if p == 0 || !arg[p - 1].is_ascii_digit() {
                1
            } else {
                0
            };
        }
        if let Some(e) = arg.iter().position(|c| *c == b'e' || *c == b'E') {
            let mut exponent: i64 = cnum::strtoimax(&arg[e + 1..]).value.max(-i64::MAX);
            let prec = precision.unwrap_or(0) as i64;
            let new_prec = if exponent < 0 { prec - exponent } else { prec - prec.min(exponent) };
            precision = Some(new_prec.max(0) as usize);
            w -= (arg.len() - e) as i64;
            if exponent < 0 {
                match point {
                    Some(p) if e == p + 1 => w += 1,
                    Some(_) => {}
                    None => w += 1,
                }
                exponent = -exponent;
            } else {
                if point.is_some() && new_prec == 0 && fraction_len > 0 {
                    w -= 1;
                }
                exponent -= (fraction_len as i64).min(exponent);
            }
            w += exponent;
        }
        width = w.max(0) as usize;
    }
    Ok(Operand { value: scanned.value, width, precision })
}

/// (width, precision) for -w.
fn equal_width_of(first: Operand, step: Operand, last: Operand) -> (usize, usize) {
    let prec = first.precision.unwrap_or(0).max(step.precision.unwrap_or(0));
    let last_prec = last.precision.unwrap_or(0);
    let mut first_width = first.width + (prec - first.precision.unwrap_or(0));
    let mut last_width = (last.width + prec).saturating_sub(last_prec);
    if last_prec > 0 && prec == 0 {
        last_width = last_width.saturating_sub(1);
    }
    if last_prec == 0 && prec > 0 {
        last_width += 1;
    }
    if first.precision == Some(0) && prec > 0 {
        first_width += 1;
    }
    (first_width.max(last_width), prec)
}

fn default_format(first: Operand, step: Operand, last: Operand, equal_width: bool) -> Format {
    let mut spec = Spec { conversion: b'g', ..Spec::default() };
    if let (Some(a), Some(b), Some(_)) = (first.precision, step.precision, last.precision) {
        spec.conversion = b'f';
        spec.precision = Some(a.max(b));
        if equal_width {
            let (width, prec) = equal_width_of(first, step, last);
            spec.zero = true;
            spec.width = Some(width);
            spec.precision = Some(prec);
        }
    }
    Format { prefix: Vec::new(), spec, suffix: Vec::new() }
}

/// Checks a -f format as GNU does and splits it.
fn parse_format(format: &[u8]) -> Result<Format, String> {
    let shown = quote(&bytes_os(format));
    let mut prefix = Vec::new();
    let mut i = 0;
    loop {
        if i >= format.len() {
            return Err(format!("format {} has no % directive", shown));
        }
        if format[i] == b'%' {
            if format.get(i + 1) == Some(&b'%') {
                prefix.push(b'%');
                i += 2;
                continue;
            }
            break;
        }
        prefix.push(format[i]);
        i += 1;
    }
    let rest = &format[i + 1..];
    let mut j = 0;
    while j < rest.len() && b"-+#0 '".contains(&rest[j]) {
        j += 1;
    }
    while j < rest.len() && rest[j].is_ascii_digit() {
        j += 1;
    }
    if rest.get(j) == Some(&b'.') {
        j += 1;
        while j < rest.len() && rest[j].is_ascii_digit() {
            j += 1;
        }
    }
    let body_end = j;
    if rest.get(j) == Some(&b'L') {
        j += 1;
    }
    let conversion = match rest.get(j) {
        None => return Err(format!("format {} ends in %", shown)),
        Some(c) if b"efgaEFGA".contains(c) => *c,
        Some(c) => return Err(format!("format {} has unknown %{} directive", shown, *c as char)),
    };
    let mut directive = rest[..body_end].to_vec();
    directive.push(conversion);
    let spec = match cformat::parse_directive(&directive, b"efgaEFGA") {
        Some(d) => d.spec,
        None => return Err(format!("format {} has unknown %{} directive", shown, conversion as char)),
    };
    let mut suffix = Vec::new();
    let mut k = j + 1;
    while k < rest.len() {
        if rest[k] == b'%' {
            if rest.get(k + 1) == Some(&b'%') {
                suffix.push(b'%');
                k += 2;
                continue;
            }
            return Err(format!("format {} has too many % directives", shown));
        }
        suffix.push(rest[k]);
        k += 1;
    }
    Ok(Format { prefix, spec, suffix })
}

const HELP: &str = "Usage: {name} [OPTION]... LAST\n  or:  {name} [OPTION]... FIRST LAST\n  or:  {name} [OPTION]... FIRST INCREMENT LAST\nPrint numbers from FIRST to LAST, in steps of INCREMENT.\n\nMandatory arguments to long options are mandatory for short options too.\n  -f, --format=FORMAT      use printf style floating-point FORMAT\n  -s, --separator=STRING   use STRING to separate numbers (default: \\n)\n  -w, --equal-width        equalize width by padding with leading zeroes\n{standard}";
