//! od's output types (`-t` strings) and how one line of each is laid out: field widths and
//! the padding GNU spreads over the fields so that several types line up in columns.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Named,
    Char,
    Signed,
    Unsigned,
    Octal,
    Hex,
    Float,
}

#[derive(Clone, Debug)]
pub struct Spec {
    pub kind: Kind,
    pub size: usize,
    field_width: usize,
    pad_width: usize,
    trailer: bool,
}

const OCT_DIGITS: [usize; 9] = [0, 3, 6, 8, 11, 14, 16, 19, 22];
const SIGNED_DEC_DIGITS: [usize; 9] = [1, 4, 6, 8, 11, 13, 16, 18, 20];
const UNSIGNED_DEC_DIGITS: [usize; 9] = [0, 3, 5, 8, 10, 13, 15, 17, 20];

/// The size after a `-t` type letter at `text[*i..]` (moving `*i` past it): a size letter
/// of `letters`, a byte count that must be one of theirs, or `default` without either.
/// The error is GNU's `this system doesn't provide a N-byte <what> type`.
fn type_size(text: &str, start: usize, i: &mut usize, letters: &[(u8, usize)], default: usize, what: &str) -> Result<usize, String> {
    let bytes = text.as_bytes();
    if let Some(&(_, size)) = letters.iter().find(|(letter, _)| bytes.get(*i) == Some(letter)) {
        *i += 1;
        return Ok(size);
    }
    let digits = bytes[*i..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return Ok(default);
    }
    let n: usize = text[*i..*i + digits].parse().unwrap_or(usize::MAX);
    *i += digits;
    if !letters.iter().any(|(_, size)| *size == n) {
        return Err(format!("invalid type string '{}';\nthis system doesn't provide a {}-byte {} type", &text[start..], n, what));
    }
    Ok(n)
}

/// Parses a `-t` argument (several types may be concatenated, e.g. `x1z` or `oC`).
pub fn parse_type(text: &str) -> Result<Vec<Spec>, String> {
    let bytes = text.as_bytes();
    let mut specs = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let c = bytes[i];
        i += 1;
        let (kind, size) = match c {
            b'a' => (Kind::Named, 1),
            b'c' => (Kind::Char, 1),
            b'd' | b'o' | b'u' | b'x' => {
                let kind = match c {
                    b'd' => Kind::Signed,
                    b'o' => Kind::Octal,
                    b'u' => Kind::Unsigned,
                    _ => Kind::Hex,
                };
                let letters = [(b'C', 1), (b'S', 2), (b'I', 4), (b'L', 8)];
                let size = type_size(text, start, &mut i, &letters, 4, "integral")?;
                (kind, size)
            }
            b'f' => {
                let letters = [(b'F', 4), (b'D', 8), (b'L', 16)];
                let size = type_size(text, start, &mut i, &letters, 8, "floating point")?;
                if size == 16 {
                    return Err("option not supported in the sandbox: long double (-t fL)".to_string());
                }
                (Kind::Float, size)
            }
            _ => {
                return Err(format!("invalid character '{}' in type string '{}'", c as char, text));
            }
        };
        let trailer = bytes.get(i) == Some(&b'z');
        if trailer {
            i += 1;
        }
        let field_width = match kind {
            Kind::Named | Kind::Char => 3,
            Kind::Octal => OCT_DIGITS[size],
            Kind::Hex => size * 2,
            Kind::Signed => SIGNED_DEC_DIGITS[size],
            Kind::Unsigned => UNSIGNED_DEC_DIGITS[size],
            Kind::Float => {
                if size == 4 {
                    15
                } else {
                    24
                }
            }
        };
        specs.push(Spec { kind, size, field_width, pad_width: 0, trailer });
    }
    Ok(specs)
}

/// Gives every type the same line width (the widest one's), as GNU does.
pub fn layout(specs: &mut [Spec], width: usize) {
    let line_width = specs.iter().map(|s| (s.field_width + 1) * (width / s.size)).max().unwrap_or(0);
    for s in specs.iter_mut() {
        s.pad_width = line_width - s.field_width * (width / s.size);
    }
}

const NAMES: [&str; 33] = [
    "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt", "ff", "cr", "so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc", "fs", "gs", "rs", "us", "sp",
];

/// Appends one type's fields for `data` (at most `width` bytes) to `out`.
pub fn format_line(spec: &Spec, data: &[u8], width: usize, big_endian: bool, out: &mut Vec<u8>) {
    let fields = width / spec.size;
    let used = (data.len() + spec.size - 1) / spec.size;
    let blank = fields - used;
    let mut padded = data.to_vec();
    padded.resize(used * spec.size, 0);
    let pad = spec.pad_width;
    let mut pad_remaining = pad;
    for (index, chunk) in padded.chunks(spec.size).enumerate() {
        let i = fields - index;
        let next_pad = pad * (i - 1) / fields;
        let adjusted = pad_remaining - next_pad + spec.field_width;
        pad_remaining = next_pad;
        let text = field(spec, chunk, big_endian);
        for _ in text.len()..adjusted {
            out.push(b' ');
        }
        out.extend_from_slice(text.as_bytes());
    }
    if spec.trailer {
        let blank_width = blank * spec.field_width + pad_remaining;
        out.extend(std::iter::repeat(b' ').take(blank_width));
        out.extend_from_slice(b"  >");
        out.extend(data.iter().map(|b| if (0x20..0x7f).contains(b) { *b } else { b'.' }));
        out.push(b'<');
    }
}

fn field(spec: &Spec, chunk: &[u8], big_endian: bool) -> String {
    let mut value = 0u64;
    if big_endian {
        for b in chunk {
            value = value << 8 | *b as u64;
        }
    } else {
        for b in chunk.iter().rev() {
            value = value << 8 | *b as u64;
        }
    }
    match spec.kind {
        Kind::Named => {
            let b = (value & 0x7f) as usize;
            if b <= 32 {
                NAMES[b].to_string()
            } else if b == 127 {
                "del".to_string()
            } else {
                (b as u8 as char).to_string()
            }
        }
        Kind::Char => {
            let b = value as u8;
            match b {
                0 => "\\0".to_string(),
                7 => "\\a".to_string(),
                8 => "\\b".to_string(),
                12 => "\\f".to_string(),
                10 => "\\n".to_string(),
                13 => "\\r".to_string(),
                9 => "\\t".to_string(),
                11 => "\\v".to_string(),
                0x20..=0x7e => (b as char).to_string(),
                _ => format!("{:03o}", b),
            }
        }
        Kind::Octal => format!("{:0w$o}", value, w = spec.field_width),
        Kind::Hex => format!("{:0w$x}", value, w = spec.field_width),
        Kind::Unsigned => value.to_string(),
        Kind::Signed => {
            let shift = 64 - 8 * spec.size as u32;
            (((value << shift) as i64) >> shift).to_string()
        }
        Kind::Float => {
            if spec.size == 4 {
                float_text(f32::from_bits(value as u32) as f64, true)
            } else {
                float_text(f64::from_bits(value), false)
            }
        }
    }
}

/// gnulib's ftoastr: the shortest `%g` (from FLT_DIG/DBL_DIG digits up, or from 1 for
/// subnormals) that reads back as the same value.
pub fn float_text(x: f64, single: bool) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let (min_normal, dig, max) = if single { (f32::MIN_POSITIVE as f64, 6, 9) } else { (f64::MIN_POSITIVE, 15, 17) };
    let start = if x.abs() < min_normal { 1 } else { dig };
    let mut text = String::new();
    for precision in start..=max {
        text = format_g(x, precision);
        let back_ok = if single { text.parse::<f32>().map(|v| v as f64 == x).unwrap_or(false) } else { text.parse::<f64>().map(|v| v == x).unwrap_or(false) };
        if back_ok {
            break;
        }
    }
    text
}

/// C's `%.{precision}g`.
pub fn format_g(x: f64, precision: usize) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let sci = format!("{:.*e}", precision - 1, x);
    let (mantissa, exponent) = match sci.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
        None => (sci.clone(), 0),
    };
    if exponent < -4 || exponent >= precision as i32 {
        let mantissa = strip_zeros(&mantissa);
        format!("{}e{}{:02}", mantissa, if exponent < 0 { '-' } else { '+' }, exponent.abs())
    } else {
        let decimals = (precision as i32 - 1 - exponent).max(0) as usize;
        strip_zeros(&format!("{:.*}", decimals, x)).to_string()
    }
}

fn strip_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_floats() {
        assert_eq!(float_text(1.0, false), "1");
        assert_eq!(float_text(f64::from_bits(255), false), "1.26e-321");
        assert_eq!(float_text(f32::from_bits(0x6c6c6568) as f64, true), "1.1431415e+27");
        assert_eq!(format_g(0.0001, 6), "0.0001");
        assert_eq!(format_g(123456789.0, 6), "1.23457e+08");
    }
}
