//! printf's numeric arguments, read as bash reads them: `common::cnum`'s `strtoimax`,
//! `strtoumax` and `strtod`, or `'c` / `"c` for a character's code. Text after the number
//! makes it invalid (the value read so far still counts); an integer past its type's range
//! saturates with a warning.

use common::cnum::{self, Scanned};

/// A number read from an argument, and what was wrong with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Parsed<T> {
    Ok(T),
    /// Not (entirely) a number: "invalid number", status 1.
    Invalid(T),
    /// Outside the type's range: a warning, status unchanged.
    OutOfRange(T),
}

/// The code of the character after a leading quote (its first byte when it is not UTF-8),
/// when the argument starts with one.
fn char_code(arg: &[u8]) -> Option<u64> {
    let rest = match arg.first() {
        Some(b'\'' | b'"') => &arg[1..],
        _ => return None,
    };
    let text = match std::str::from_utf8(&rest[..rest.len().min(4)]) {
        Ok(text) => text,
        Err(error) => std::str::from_utf8(&rest[..error.valid_up_to()]).unwrap_or(""),
    };
    Some(match text.chars().next() {
        Some(c) => c as u64,
        None => rest.first().copied().unwrap_or(0) as u64,
    })
}

fn classify<T>(arg: &[u8], scanned: Scanned<T>) -> Parsed<T> {
    if scanned.used < arg.len() {
        Parsed::Invalid(scanned.value)
    } else if scanned.overflow {
        Parsed::OutOfRange(scanned.value)
    } else {
        Parsed::Ok(scanned.value)
    }
}

/// `%d %i`.
pub fn signed_arg(arg: &[u8]) -> Parsed<i64> {
    match char_code(arg) {
        Some(code) => Parsed::Ok(code as i64),
        None => classify(arg, cnum::strtoimax(arg)),
    }
}

/// `%o %u %x %X` (a negative number wraps around).
pub fn unsigned_arg(arg: &[u8]) -> Parsed<u64> {
    match char_code(arg) {
        Some(code) => Parsed::Ok(code),
        None => classify(arg, cnum::strtoumax(arg)),
    }
}

/// `%e %f %g %a`. A double's overflow is not reported: bash reads a long double, which
/// holds such values (see docs/compat.md).
pub fn float_arg(arg: &[u8]) -> Parsed<f64> {
    match char_code(arg) {
        Some(code) => Parsed::Ok(code as f64),
        None => classify(arg, Scanned { overflow: false, ..cnum::strtod(arg) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_like_bash() {
        assert_eq!(signed_arg(b"42"), Parsed::Ok(42));
        assert_eq!(signed_arg(b" -0x1f"), Parsed::Ok(-31));
        assert_eq!(signed_arg(b""), Parsed::Ok(0));
        assert_eq!(signed_arg(b" "), Parsed::Invalid(0));
        assert_eq!(signed_arg(b"5 "), Parsed::Invalid(5));
        assert_eq!(signed_arg(b"0x"), Parsed::Invalid(0));
        assert_eq!(signed_arg(b"'A"), Parsed::Ok(65));
        assert_eq!(signed_arg("'é".as_bytes()), Parsed::Ok(233));
        assert_eq!(signed_arg(b"18446744073709551615"), Parsed::OutOfRange(i64::MAX));
        assert_eq!(signed_arg(b"-9223372036854775809"), Parsed::OutOfRange(i64::MIN));
        assert_eq!(unsigned_arg(b"-9223372036854775809"), Parsed::Ok(9223372036854775807));
        assert_eq!(unsigned_arg(b"18446744073709551616"), Parsed::OutOfRange(u64::MAX));
    }

    #[test]
    fn floats_like_bash() {
        assert_eq!(float_arg(b"1.5x"), Parsed::Invalid(1.5));
        assert_eq!(float_arg(b"0x10"), Parsed::Ok(16.0));
        assert_eq!(float_arg(b"1e400"), Parsed::Ok(f64::INFINITY));
        assert_eq!(float_arg(b"."), Parsed::Invalid(0.0));
    }
}
