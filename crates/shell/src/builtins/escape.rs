//! Backslash escapes of printf's format, of `%b` arguments and of `echo -e` (bash's
//! `tescape`): `\a \b \e \E \f \n \r \t \v \\`, octal, `\xHH`, `\uHHHH`, `\UHHHHHHHH`, and
//! in arguments `\c` (stop all output). An escape bash does not know keeps its backslash.

/// Where the escape is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// printf's format: `\NNN` (any three octal digits), `\' \" \?` lose the backslash.
    Format,
    /// A `%b` argument: also `\0NNN` (a 0 and three more digits) and `\c`.
    Argument,
    /// `echo -e`: as `%b`, but octal only as `\0NNN`.
    Echo,
}

pub struct Expanded {
    /// Bytes used after the backslash.
    pub used: usize,
    /// `\c`: nothing more is printed.
    pub stop: bool,
}

/// Expands the escape whose text follows a backslash (`after`), appending its bytes to
/// `out`; warnings (a `\x` without digits) are pushed to `warnings`.
pub fn expand(after: &[u8], out: &mut Vec<u8>, mode: Mode, warnings: &mut Vec<String>) -> Expanded {
    let done = |used: usize| Expanded { used, stop: false };
    let c = match after.first() {
        Some(&c) => c,
        None => {
            out.push(b'\\');
            return done(0);
        }
    };
    let simple = match c {
        b'a' => Some(0x07),
        b'b' => Some(0x08),
        b'e' | b'E' => Some(0x1b),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(0x0b),
        b'\\' => Some(b'\\'),
        b'\'' | b'"' | b'?' if mode == Mode::Format => Some(c),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return done(1);
    }
    match c {
        b'0'..=b'7' if mode != Mode::Echo || c == b'0' => {
            let mut value = (c - b'0') as u32;
            // After a leading 0 an argument takes three more digits, a format two.
            let more = if c == b'0' && mode != Mode::Format { 3 } else { 2 };
            let mut used = 1;
            while used <= more && after.get(used).map_or(false, |d| (b'0'..=b'7').contains(d)) {
                value = value * 8 + (after[used] - b'0') as u32;
                used += 1;
            }
            out.push((value & 0xff) as u8);
            done(used)
        }
        b'x' => match hex(&after[1..], 2) {
            (_, 0) => {
                warnings.push("missing hex digit for \\x".to_string());
                out.push(b'\\');
                done(0)
            }
            (value, used) => {
                out.push(value as u8);
                done(1 + used)
            }
        },
        b'u' | b'U' => match hex(&after[1..], if c == b'u' { 4 } else { 8 }) {
            (_, 0) => {
                warnings.push(format!("missing unicode digit for \\{}", c as char));
                out.push(b'\\');
                done(0)
            }
            (value, used) => {
                utf8(value, out);
                done(1 + used)
            }
        },
        b'c' if mode != Mode::Format => Expanded { used: 1, stop: true },
        _ => {
            out.push(b'\\');
            done(0)
        }
    }
}

/// Expands every escape of `text` onto `out`; true when `\c` stopped it.
pub fn expand_all(text: &[u8], out: &mut Vec<u8>, mode: Mode, warnings: &mut Vec<String>) -> bool {
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'\\' {
            out.push(text[i]);
            i += 1;
            continue;
        }
        let expanded = expand(&text[i + 1..], out, mode, warnings);
        if expanded.stop {
            return true;
        }
        i += 1 + expanded.used;
    }
    false
}

fn hex(text: &[u8], max: usize) -> (u32, usize) {
    let mut value = 0u32;
    let mut used = 0;
    while used < max {
        match text.get(used).and_then(|&c| (c as char).to_digit(16)) {
            Some(d) => value = value * 16 + d,
            None => break,
        }
        used += 1;
    }
    (value, used)
}

/// UTF-8 of any value up to 31 bits, surrogates included, as bash's u32cconv writes it.
fn utf8(value: u32, out: &mut Vec<u8>) {
    if value < 0x80 {
        out.push(value as u8);
        return;
    }
    let (count, lead) = match value {
        0..=0x7ff => (1, 0xc0),
        0x800..=0xffff => (2, 0xe0),
        0x1_0000..=0x1f_ffff => (3, 0xf0),
        0x20_0000..=0x3ff_ffff => (4, 0xf8),
        _ => (5, 0xfc),
    };
    out.push(lead | (value >> (6 * count)) as u8);
    for k in (0..count).rev() {
        out.push(0x80 | ((value >> (6 * k)) & 0x3f) as u8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str, mode: Mode) -> (Vec<u8>, bool) {
        let mut out = Vec::new();
        let stopped = expand_all(text.as_bytes(), &mut out, mode, &mut Vec::new());
        (out, stopped)
    }

    #[test]
    fn octal_by_mode() {
        assert_eq!(all("\\101\\0101", Mode::Format).0, b"A\x081");
        assert_eq!(all("\\101|\\0101|\\01012|\\400|\\18", Mode::Argument).0, b"A|A|A2|\0|\x018");
        assert_eq!(all("\\101|\\0101", Mode::Echo).0, b"\\101|A");
    }

    #[test]
    fn others() {
        assert_eq!(all("\\x41\\x4g\\x", Mode::Format).0, b"A\x04g\\x");
        assert_eq!(all("\\u00e9\\U0001F600", Mode::Argument).0, "é😀".as_bytes());
        assert_eq!(all("\\uD800", Mode::Argument).0, b"\xed\xa0\x80");
        assert_eq!(all("\\'\\z\\c", Mode::Format).0, b"'\\z\\c");
        assert_eq!(all("\\'a\\cb", Mode::Argument), (b"\\'a".to_vec(), true));
    }
}
