//! Text helpers shared by builtins and expansions: bytes at the I/O boundary, collation,
//! and the quoting styles bash uses when it prints values back as shell input.

use std::borrow::Cow;
use std::cmp::Ordering;

pub use shell_parser::bytes::decode as from_bytes;

/// A string as the bytes it stands for (see `shell_parser::bytes`).
pub fn to_bytes(text: &str) -> Cow<'_, [u8]> {
    shell_parser::bytes::encode(text)
}

/// Sort order for names, glob results and `set` output: byte order, as in the C and
/// C.UTF-8 locales the sandbox runs in.
pub fn collate(a: &str, b: &str) -> Ordering {
    a.as_bytes().cmp(b.as_bytes())
}

/// Characters that make a word need quoting to be read back (bash's
/// `sh_contains_shell_metas`).
pub fn needs_quoting(s: &str) -> bool {
    let bytes = s.as_bytes();
    bytes.iter().enumerate().any(|(i, &c)| match c {
        b' ' | b'\t' | b'\n' | b'\'' | b'"' | b'\\' | b'|' | b'&' | b';' | b'(' | b')' | b'<' | b'>' | b'!' | b'{'
        | b'}' | b'*' | b'[' | b'?' | b']' | b'^' | b'$' | b'`' => true,
        b'~' => i == 0 || bytes[i - 1] == b'=' || bytes[i - 1] == b':',
        b'#' => i == 0,
        _ => false,
    })
}

/// `'...'` with `'\''` for embedded quotes (`${x@Q}`, `set -x`, `alias`, `trap -p`).
pub fn single_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// `"..."` escaping `"`, `\`, `$` and `` ` `` (`declare -p` values).
pub fn double_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Whether `$'...'` quoting is needed: the string has non-printable characters.
pub fn needs_ansi_c(s: &str) -> bool {
    s.chars().any(|c| c.is_control() || is_raw_byte(c))
}

fn is_raw_byte(c: char) -> bool {
    (0x10_FF80..=0x10_FFFF).contains(&(c as u32))
}

/// `$'...'` with C escapes (bash's `ansic_quote`).
pub fn ansi_c_quote(s: &str) -> String {
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x1b' => out.push_str("\\E"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if is_raw_byte(c) => out.push_str(&format!("\\{:03o}", c as u32 - 0x10_FF00)),
            c if c.is_control() => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `printf %q`: backslashes before special characters, `$'...'` for control characters,
/// `''` for the empty string.
pub fn printf_quote(s: &str) -> String {
    if s.is_empty() {
        return "''".to_string();
    }
    if needs_ansi_c(s) {
        return ansi_c_quote(s);
    }
    let mut out = String::with_capacity(s.len() * 2);
    let mut previous: Option<char> = None;
    for (i, c) in s.chars().enumerate() {
        match c {
            ' ' | '\t' | '\n' | '\'' | '"' | '\\' | '|' | '&' | ';' | '(' | ')' | '<' | '>' | '!' | '{' | '}' | '*'
            | '[' | '?' | ']' | '^' | '$' | '`' | ',' => out.push('\\'),
            '~' if i == 0 || previous == Some('=') || previous == Some(':') => out.push('\\'),
            '#' if i == 0 => out.push('\\'),
            _ => {}
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

/// How `set -x` shows a word.
pub fn xtrace_quote(s: &str) -> String {
    if s.is_empty() {
        "''".to_string()
    } else if needs_quoting(s) {
        single_quote(s)
    } else {
        s.to_string()
    }
}

/// How `declare -p` shows a value.
pub fn declare_quote(s: &str) -> String {
    if needs_ansi_c(s) {
        ansi_c_quote(s)
    } else {
        double_quote(s)
    }
}

/// The number of characters (bash counts characters in a UTF-8 locale).
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_q_matches_bash() {
        assert_eq!(printf_quote("a b"), "a\\ b");
        assert_eq!(printf_quote("it's"), "it\\'s");
        assert_eq!(printf_quote(""), "''");
        assert_eq!(printf_quote("x\ty"), "$'x\\ty'");
        assert_eq!(printf_quote("~a"), "\\~a");
        assert_eq!(printf_quote("a#"), "a#");
    }

    #[test]
    fn single_quote_escapes_quotes() {
        assert_eq!(single_quote("it's"), "'it'\\''s'");
    }
}
