//! Numbers with GNU's multiplier suffixes (`xstrtoumax`): `512b`, `4K`, `10MB`, `2MiB`, as
//! taken by `head -c`, `tail -c`, `sort -S`, `split -b`, `truncate -s` and friends.

/// Why a size did not parse: GNU says "invalid …" for the first and adds "Value too large
/// for defined data type" for the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeError {
    Invalid,
    TooLarge,
}

/// The suffixes `head`/`tail` accept: `b` (512), `k`/`K`, `m`/`M`, `G`, `T`, `P`, `E`, `Z`,
/// `Y`, `R`, `Q` (powers of 1024), each optionally followed by `B` (powers of 1000) or `iB`.
pub const HEAD_SUFFIXES: &str = "bkKmMGTPEZYRQ0";

/// `--block-size=SIZE` of df and du: a size above 0 with [`HEAD_SUFFIXES`], else GNU's
/// `invalid --block-size argument 'SIZE'`.
pub fn block_size(text: &str) -> Result<u64, crate::UError> {
    match parse_size(text, HEAD_SUFFIXES) {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(crate::UError::new(1, format!("invalid --block-size argument {}", crate::io::quote(text.as_ref())))),
    }
}

/// Parses an unsigned decimal number (leading blanks allowed, as strtoumax does) followed by
/// at most one suffix from `valid` (a `0` in `valid` enables the `KB`/`KiB` forms).
pub fn parse_size(text: &str, valid: &str) -> Result<u64, SizeError> {
    let trimmed = text.trim_start_matches(|c: char| c == ' ' || ('\t'..='\r').contains(&c));
    let digits_end = trimmed.find(|c: char| !c.is_ascii_digit()).unwrap_or(trimmed.len());
    if digits_end == 0 {
        return Err(SizeError::Invalid);
    }
    let mut overflow = false;
    let mut value: u64 = 0;
    for d in trimmed[..digits_end].bytes() {
        match value.checked_mul(10).and_then(|v| v.checked_add(u64::from(d - b'0'))) {
            Some(v) => value = v,
            None => overflow = true,
        }
    }
    let suffix = &trimmed[digits_end..];
    if suffix.is_empty() {
        return if overflow { Err(SizeError::TooLarge) } else { Ok(value) };
    }
    let first = suffix.chars().next().unwrap_or(' ');
    if !valid.contains(first) {
        return Err(SizeError::Invalid);
    }
    let rest = &suffix[first.len_utf8()..];
    let (base, extra): (u64, usize) = if valid.contains('0') {
        match rest {
            "iB" => (1024, 2),
            "B" | "D" => (1000, 1),
            _ => (1024, 0),
        }
    } else {
        (1024, 0)
    };
    if rest.len() != extra {
        return Err(SizeError::Invalid);
    }
    let power: u32 = match first {
        'b' => return scale(value, 512, overflow),
        'c' => return scale(value, 1, overflow),
        'w' => return scale(value, 2, overflow),
        'B' => return scale(value, 1024, overflow),
        'k' | 'K' => 1,
        'm' | 'M' => 2,
        'g' | 'G' => 3,
        't' | 'T' => 4,
        'P' => 5,
        'E' => 6,
        'Z' => 7,
        'Y' => 8,
        'R' => 9,
        'Q' => 10,
        _ => return Err(SizeError::Invalid),
    };
    let mut factor: u64 = 1;
    let mut big = false;
    for _ in 0..power {
        match factor.checked_mul(base) {
            Some(f) => factor = f,
            None => big = true,
        }
    }
    if big {
        return if value == 0 && !overflow { Ok(0) } else { Err(SizeError::TooLarge) };
    }
    scale(value, factor, overflow)
}

fn scale(value: u64, factor: u64, overflow: bool) -> Result<u64, SizeError> {
    if overflow {
        return Err(SizeError::TooLarge);
    }
    value.checked_mul(factor).ok_or(SizeError::TooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes() {
        let p = |s| parse_size(s, HEAD_SUFFIXES);
        assert_eq!(p("1b"), Ok(512));
        assert_eq!(p("1K"), Ok(1024));
        assert_eq!(p("1kB"), Ok(1000));
        assert_eq!(p("1KiB"), Ok(1024));
        assert_eq!(p("2M"), Ok(2 << 20));
        assert_eq!(p(" 5"), Ok(5));
        assert_eq!(p("1c"), Err(SizeError::Invalid));
        assert_eq!(p("1Ki"), Err(SizeError::Invalid));
        assert_eq!(p(""), Err(SizeError::Invalid));
        assert_eq!(p("99999999999999999999999"), Err(SizeError::TooLarge));
        assert_eq!(p("1Q"), Err(SizeError::TooLarge));
    }
}
