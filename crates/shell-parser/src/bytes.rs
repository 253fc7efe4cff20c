//! Shell data is bytes, but Rust strings are UTF-8. Bytes that are not valid UTF-8 (from
//! `$'\xff'`, `printf '\377'`, binary files read with `read`) are kept losslessly by
//! mapping each one to a private-use code point (U+10FF80..U+10FFFF) and back on output.

const ESCAPE_BASE: u32 = 0x10_FF00;

/// Bytes to a string, keeping invalid UTF-8 bytes as escape code points.
pub fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => decode_slow(bytes),
    }
}

fn decode_slow(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                out.push_str(text);
                return out;
            }
            Err(error) => {
                let valid = error.valid_up_to();
                // from_utf8 just said this prefix is valid.
                out.push_str(std::str::from_utf8(&bytes[..valid]).unwrap_or(""));
                let bad = error.error_len().unwrap_or(bytes.len() - valid);
                for &byte in &bytes[valid..valid + bad] {
                    out.push(escape_byte(byte));
                }
                bytes = &bytes[valid + bad..];
            }
        }
    }
}

/// The escape code point standing for a raw byte.
pub fn escape_byte(byte: u8) -> char {
    char::from_u32(ESCAPE_BASE + byte as u32).unwrap_or('\u{FFFD}')
}

/// A string to bytes, turning escape code points back into the raw bytes they stand for.
pub fn encode(text: &str) -> std::borrow::Cow<'_, [u8]> {
    if !text.chars().any(is_escape) {
        return std::borrow::Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        if is_escape(c) {
            out.push((c as u32 - ESCAPE_BASE) as u8);
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    std::borrow::Cow::Owned(out)
}

fn is_escape(c: char) -> bool {
    (ESCAPE_BASE + 0x80..=ESCAPE_BASE + 0xFF).contains(&(c as u32))
}

/// Pushes a byte produced by escape processing (`\xHH`, octal) onto a string: ASCII as is,
/// anything else as an escape (callers fix up valid multi-byte sequences with
/// [`normalize`]).
pub fn push_byte(out: &mut String, byte: u8) {
    if byte < 0x80 {
        out.push(byte as char);
    } else {
        out.push(escape_byte(byte));
    }
}

/// Re-decodes a string built byte by byte, so that escaped bytes forming valid UTF-8
/// (`$'\xc3\xa9'`) become the characters they encode.
pub fn normalize(text: String) -> String {
    if !text.chars().any(is_escape) {
        return text;
    }
    decode(&encode(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_invalid_bytes() {
        let bytes = [b'a', 0xff, b'b', 0xc3, 0xa9, 0x80];
        let text = decode(&bytes);
        assert_eq!(text.chars().count(), 5);
        assert_eq!(&*encode(&text), &bytes[..]);
    }

    #[test]
    fn normalizes_escaped_utf8() {
        let mut s = String::new();
        push_byte(&mut s, 0xc3);
        push_byte(&mut s, 0xa9);
        assert_eq!(normalize(s), "é");
    }
}
