//! Time intervals as `sleep` and `timeout` take them: a floating-point number (decimal or
//! hexadecimal, `inf`) with an optional unit suffix `s`, `m`, `h` or `d`.

/// Seconds in `text`, or None when it is not a valid non-negative interval.
pub fn parse_duration(text: &str) -> Option<f64> {
    let (number, scale) = match text.as_bytes().last() {
        Some(b's') => (&text[..text.len() - 1], 1.0),
        Some(b'm') => (&text[..text.len() - 1], 60.0),
        Some(b'h') => (&text[..text.len() - 1], 3600.0),
        Some(b'd') => (&text[..text.len() - 1], 86400.0),
        _ => (text, 1.0),
    };
    let value = parse_c_double(number.trim_start())?;
    if value.is_nan() || value < 0.0 {
        return None;
    }
    Some(value * scale)
}

/// A whole string as C's strtod reads it: decimal, `0x` hexadecimal with a `p` exponent,
/// `inf`/`infinity`/`nan`, with an optional sign. None unless everything is consumed.
pub fn parse_c_double(text: &str) -> Option<f64> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = body.to_ascii_lowercase();
    let value = if lower == "inf" || lower == "infinity" {
        f64::INFINITY
    } else if lower == "nan" {
        f64::NAN
    } else if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex_float(hex)?
    } else {
        let bytes = body.as_bytes();
        if bytes.is_empty() || !bytes.iter().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-')) || !bytes.iter().any(|c| c.is_ascii_digit()) {
            return None;
        }
        if !(bytes[0].is_ascii_digit() || bytes[0] == b'.') {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    Some(if negative { -value } else { value })
}

fn parse_hex_float(hex: &str) -> Option<f64> {
    let (mantissa, exponent) = match hex.split_once('p') {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (hex, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut value = 0.0f64;
    for c in int_part.chars() {
        value = value * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac_part.chars() {
        value += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    Some(value * 2f64.powi(exponent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_forms() {
        assert_eq!(parse_duration("1.5"), Some(1.5));
        assert_eq!(parse_duration("2m"), Some(120.0));
        assert_eq!(parse_duration("0x1p-2"), Some(0.25));
        assert_eq!(parse_duration(".5s"), Some(0.5));
        assert_eq!(parse_duration("inf"), Some(f64::INFINITY));
        assert_eq!(parse_duration("1x"), None);
        assert_eq!(parse_duration("-1"), None);
        assert_eq!(parse_duration("0.1 "), None);
        assert_eq!(parse_duration("s"), None);
    }
}
