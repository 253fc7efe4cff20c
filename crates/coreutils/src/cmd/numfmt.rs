//! `numfmt`: reformats numbers in fields of each line (arguments, or standard input):
//! `--from`/`--to` none|si|iec|iec-i (|auto for --from), `--from-unit`/`--to-unit`,
//! `--round`, `--suffix`, `--padding`, `--format=%[0]['][-][N][.N]f`, `--field`, `-d`,
//! `--header`, `-z`, `--invalid`. GNU coreutils 9.1's behaviour: suffixes K M G T P E Z Y,
//! unscaled values up to 18 significant digits (printed exactly), status 2 for numbers
//! it cannot convert.

use std::ffi::OsString;

use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

use common::args::{bytes_os, os_bytes, Command, Parsed};
use common::cformat;
use common::io::quote;
use common::{Io, UError};

#[path = "numfmt/options.rs"]
mod options;

use options::{Invalid, Options, Round, Scale};

const CONVERSION_FAILED: i32 = 2;
const MAX_UNSCALED_DIGITS: i64 = 18;
const SUFFIXES: &[u8] = b"KMGTPEZY";

/// A parsed input number: exact decimal digits plus a binary or decimal power.
struct Number {
    negative: bool,
    /// All digits (integer and fraction) as one integer.
    digits: BigInt,
    /// Digits after the decimal point.
    fraction: u32,
    /// Suffix scaling: base^power.
    base: u32,
    power: u32,
}

/// Why a field could not be converted (the message, already worded).
struct Failure(String);

const NUMFMT: Command = Command::compact("numfmt", options::SPEC, options::HELP);

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut numbers: Vec<Vec<u8>> = Vec::new();
    let mut opts = Options::default();
    NUMFMT.options(&args, io, &mut |io, item| {
        match item {
            Parsed::Opt { id, value } => {
                if let Err(message) = opts.set(id, value.map(|v| os_bytes(&v).to_vec())) {
                    io.error(&message);
                    if message.starts_with("invalid argument") || message.starts_with("fields") || message.starts_with("invalid field") || message.starts_with("invalid decreasing") {
                        io.try_help();
                    }
                    return Err(UError::exit(1));
                }
            }
            Parsed::Operand(n) => numbers.push(os_bytes(&n).to_vec()),
        }
        Ok(())
    })?;
    if let Err(message) = opts.finish() {
        return Err(UError::new(1, message));
    }
    let mut all_valid = true;
    let mut out = Vec::new();
    if !numbers.is_empty() {
        for line in &numbers {
            match process_line(&opts, line, &mut out, io) {
                Ok(valid) => all_valid &= valid,
                Err(()) => {
                    let _ = io.out(&out);
                    return Ok(CONVERSION_FAILED);
                }
            }
            out.push(opts.line_delim);
            let _ = io.out(&out);
            out.clear();
        }
    } else {
        let mut header = opts.header;
        let mut line = Vec::new();
        loop {
            line.clear();
            match io.stdin.read_until(opts.line_delim, &mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    return Err(UError::new(1, format!("error reading input: {}", common::strerror(&e))));
                }
            }
            if header > 0 {
                header -= 1;
                let _ = io.out(&line);
                continue;
            }
            let newline = line.last() == Some(&opts.line_delim);
            if newline {
                line.pop();
            }
            match process_line(&opts, &line, &mut out, io) {
                Ok(valid) => all_valid &= valid,
                Err(()) => {
                    let _ = io.out(&out);
                    return Ok(CONVERSION_FAILED);
                }
            }
            if newline {
                out.push(opts.line_delim);
            }
            if io.out(&out).is_err() {
                return Ok(0);
            }
            out.clear();
        }
    }
    if !all_valid && matches!(opts.invalid, Invalid::Abort | Invalid::Fail) {
        return Ok(CONVERSION_FAILED);
    }
    Ok(0)
}

/// Converts the chosen fields of one line into `out`. Ok(false): some field failed but
/// processing goes on; Err: abort (the message is printed).
fn process_line(opts: &Options, line: &[u8], out: &mut Vec<u8>, io: &mut Io) -> Result<bool, ()> {
    let mut valid = true;
    let mut field = 0usize;
    let mut rest = line;
    loop {
        field += 1;
        let end = match opts.delimiter {
            Some(d) => rest.iter().position(|c| *c == d).unwrap_or(rest.len()),
            None => {
                let start = rest.iter().position(|c| !is_blank(*c)).unwrap_or(rest.len());
                start + rest[start..].iter().position(|c| is_blank(*c)).unwrap_or(rest.len() - start)
            }
        };
        let text = &rest[..end];
        if opts.includes(field) {
            match convert_field(opts, text, field) {
                Ok(bytes) => out.extend_from_slice(&bytes),
                Err(Failure(message)) => {
                    if opts.invalid != Invalid::Ignore {
                        let _ = io.out(out);
                        out.clear();
                        let _ = io.stdout.flush();
                        io.error(message);
                    }
                    if opts.invalid == Invalid::Abort {
                        return Err(());
                    }
                    valid = false;
                    out.extend_from_slice(text);
                }
            }
        } else {
            out.extend_from_slice(text);
        }
        if end >= rest.len() {
            break;
        }
        out.push(opts.delimiter.unwrap_or(b' '));
        rest = &rest[end + 1..];
    }
    Ok(valid)
}

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t' || c == b'\n'
}

fn convert_field(opts: &Options, text: &[u8], field: usize) -> Result<Vec<u8>, Failure> {
    let mut body = text;
    if let Some(suffix) = &opts.suffix {
        if body.len() > suffix.len() && body.ends_with(suffix) {
            body = &body[..body.len() - suffix.len()];
        }
    }
    let start = body.iter().position(|c| !(*c == b' ' || *c == b'\t')).unwrap_or(body.len());
    let padding = if opts.auto_padding() { if start > 0 || field > 1 { body.len() as i64 } else { 0 } } else { opts.padding };
    let number = parse_number(opts, &body[start..])?;
    let (value, precision) = to_value(opts, &number);
    let formatted = format_number(opts, &number, value, precision)?;
    let width = formatted.len() as i64;
    let mut out = opts.format_prefix.clone();
    if padding > 0 && width < padding {
        out.resize(out.len() + (padding - width) as usize, b' ');
    }
    out.extend_from_slice(&formatted);
    if padding < 0 && width < -padding {
        out.resize(out.len() + (-padding - width) as usize, b' ');
    }
    out.extend_from_slice(&opts.format_suffix);
    Ok(out)
}

/// `[-]DIGITS[.DIGITS][ ]*[SUFFIX[i]]`, with GNU's messages.
fn parse_number(opts: &Options, text: &[u8]) -> Result<Number, Failure> {
    let shown = || quote(&bytes_os(text));
    let mut i = 0;
    let negative = text.first() == Some(&b'-');
    if negative {
        i += 1;
    }
    let int_start = i;
    while i < text.len() && text[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = &text[int_start..i];
    if int_digits.is_empty() && text.get(i) != Some(&b'.') {
        return Err(Failure(format!("invalid number: {}", shown())));
    }
    let mut fraction: &[u8] = b"";
    if text.get(i) == Some(&b'.') {
        let start = i + 1;
        let mut j = start;
        while j < text.len() && text[j].is_ascii_digit() {
            j += 1;
        }
        if j == start {
            return Err(Failure(format!("invalid number: {}", shown())));
        }
        fraction = &text[start..j];
        i = j;
    }
    let significant = int_digits.iter().chain(fraction.iter()).skip_while(|c| **c == b'0').count();
    if significant > 33 {
        return Err(Failure(format!("value too large to be converted: {}", shown())));
    }
    let mut all = int_digits.to_vec();
    all.extend_from_slice(fraction);
    let digits = if all.is_empty() { BigInt::zero() } else { BigInt::parse_bytes(&all, 10).unwrap_or_default() };
    let mut number = Number { negative, digits, fraction: fraction.len() as u32, base: 1000, power: 0 };
    if i < text.len() {
        let mut j = i;
        while j < text.len() && (text[j] == b' ' || text[j] == b'\t') {
            j += 1;
        }
        let letter = text.get(j).copied().unwrap_or(0);
        if !SUFFIXES.contains(&letter) {
            return Err(Failure(format!("invalid suffix in input: {}", shown())));
        }
        if opts.from == Scale::None {
            return Err(Failure(format!("rejecting suffix in input: {} (consider using --from)", shown())));
        }
        number.power = SUFFIXES.iter().position(|c| *c == letter).map_or(0, |p| p as u32 + 1);
        j += 1;
        number.base = if matches!(opts.from, Scale::Iec | Scale::IecI) { 1024 } else { 1000 };
        if opts.from == Scale::Auto && text.get(j) == Some(&b'i') {
            number.base = 1024;
            j += 1;
        } else if opts.from == Scale::IecI {
            if text.get(j) == Some(&b'i') {
                j += 1;
            } else {
                return Err(Failure(format!("missing 'i' suffix in input: {} (e.g Ki/Mi/Gi)", shown())));
            }
        }
        if j < text.len() {
            return Err(Failure(format!("invalid suffix in input {}: {}", shown(), quote(&bytes_os(&text[j..])))));
        }
    }
    Ok(number)
}

/// The value in floating point (after suffix and unit scaling) and the input precision.
fn to_value(opts: &Options, n: &Number) -> (f64, u32) {
    let mut value = n.digits.to_f64().unwrap_or(f64::INFINITY) / 10f64.powi(n.fraction as i32);
    if n.negative {
        value = -value;
    }
    value *= (n.base as f64).powi(n.power as i32);
    if opts.from_unit != 1 || opts.to_unit != 1 {
        value = value * opts.from_unit as f64 / opts.to_unit as f64;
    }
    (value, if n.power > 0 { 0 } else { n.fraction })
}

/// The number of times `v` can be divided by `base` before it is below `base`.
fn scale_down(mut v: f64, base: f64) -> (f64, i32) {
    let mut power = 0;
    if v.is_finite() {
        while v.abs() >= base {
            v /= base;
            power += 1;
        }
    }
    (v, power)
}

fn round(v: f64, mode: Round) -> f64 {
    match mode {
        Round::Up => v.ceil(),
        Round::Down => v.floor(),
        Round::FromZero => {
            if v < 0.0 {
                v.floor()
            } else {
                v.ceil()
            }
        }
        Round::TowardsZero => v.trunc(),
        Round::Nearest => {
            if v < 0.0 {
                (v - 0.5).trunc()
            } else {
                (v + 0.5).trunc()
            }
        }
    }
}

/// `%Lg` as GNU shows a value in messages.
fn g(v: f64) -> String {
    let spec = cformat::Spec { conversion: b'g', ..cformat::Spec::default() };
    String::from_utf8_lossy(&cformat::format_float(&spec, v)).into_owned()
}

fn format_number(opts: &Options, n: &Number, value: f64, precision: u32) -> Result<Vec<u8>, Failure> {
    let used = opts.precision.unwrap_or(precision as i64);
    let (_, magnitude) = scale_down(value, 10.0);
    if opts.to == Scale::None && magnitude as i64 + used > MAX_UNSCALED_DIGITS {
        return Err(Failure(if used > 0 {
            format!("value/precision too large to be printed: '{}/{}' (consider using --to)", g(value), used)
        } else {
            format!("value too large to be printed: '{}' (consider using --to)", g(value))
        }));
    }
    if magnitude > 32 {
        return Err(Failure(format!("value too large to be printed: '{}' (cannot handle values > 999Q)", g(value))));
    }
    let mut spec = cformat::Spec { conversion: b'f', ..cformat::Spec::default() };
    if opts.zero_width > 0 {
        spec.zero = true;
        spec.width = Some(opts.zero_width);
    }
    if opts.to == Scale::None {
        spec.precision = Some(used as usize);
        let mut out = match exact_text(opts, n, used as u32) {
            Some(exact) => pad_zero(&spec, exact),
            None => {
                let scaled = round(value * 10f64.powi(used as i32), opts.round) / 10f64.powi(used as i32);
                cformat::format_float(&spec, scaled)
            }
        };
        if let Some(suffix) = &opts.suffix {
            out.extend_from_slice(suffix);
        }
        return Ok(out);
    }
    let base = if opts.to == Scale::Si { 1000.0 } else { 1024.0 };
    let (mut v, mut power) = scale_down(value, base);
    let adjust = match opts.precision {
        Some(p) => (power as i64 * 3).min(p),
        None => {
            if v.abs() < 10.0 {
                1
            } else {
                0
            }
        }
    };
    v = round(v * 10f64.powi(adjust as i32), opts.round) / 10f64.powi(adjust as i32);
    if v.abs() >= base {
        v /= base;
        power += 1;
    }
    let show_point = v != 0.0 && v.abs() < 10.0 && power > 0;
    spec.precision = Some(opts.precision.unwrap_or(show_point as i64) as usize);
    let mut out = cformat::format_float(&spec, v);
    if power > 0 {
        out.push(SUFFIXES.get(power as usize - 1).copied().unwrap_or(b'?'));
        if opts.to == Scale::IecI {
            out.push(b'i');
        }
    }
    if let Some(suffix) = &opts.suffix {
        out.extend_from_slice(suffix);
    }
    Ok(out)
}

/// The unscaled output computed exactly from the input digits (long double holds 18
/// digits exactly; f64 does not), when no unit division is involved.
fn exact_text(opts: &Options, n: &Number, precision: u32) -> Option<Vec<u8>> {
    if opts.to_unit != 1 {
        return None;
    }
    let mut mantissa = n.digits.clone() * BigInt::from(n.base).pow(n.power) * BigInt::from(opts.from_unit);
    let mut scale = n.fraction;
    if precision >= scale {
        mantissa *= BigInt::from(10u32).pow(precision - scale);
    } else {
        let divisor = BigInt::from(10u32).pow(scale - precision);
        let quotient = &mantissa / &divisor;
        let remainder = &mantissa % &divisor;
        let up = match opts.round {
            _ if remainder.is_zero() => false,
            Round::Up => !n.negative,
            Round::Down => n.negative,
            Round::FromZero => true,
            Round::TowardsZero => false,
            Round::Nearest => remainder * 2u32 >= divisor,
        };
        mantissa = if up { quotient + 1u32 } else { quotient };
    }
    scale = precision;
    let digits = mantissa.abs().to_string();
    let digits = if digits.len() <= scale as usize { format!("{}{}", "0".repeat(scale as usize + 1 - digits.len()), digits) } else { digits };
    let (int_part, frac_part) = digits.split_at(digits.len() - scale as usize);
    let mut text = String::new();
    if n.negative && !mantissa.is_zero() {
        text.push('-');
    }
    text.push_str(int_part);
    if scale > 0 {
        text.push('.');
        text.push_str(frac_part);
    }
    Some(text.into_bytes())
}

/// Zero padding (`%0Nf`) for the exact path: zeros after the sign up to the width.
fn pad_zero(spec: &cformat::Spec, text: Vec<u8>) -> Vec<u8> {
    let width = spec.width.unwrap_or(0);
    if !spec.zero || text.len() >= width {
        return text;
    }
    let sign = if text.first() == Some(&b'-') { 1 } else { 0 };
    let mut out = text[..sign].to_vec();
    out.resize(sign + width - text.len(), b'0');
    out.extend_from_slice(&text[sign..]);
    out
}
