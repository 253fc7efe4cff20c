//! awk regular expressions on top of the shared POSIX engine (`common::regex`, ERE flavour,
//! leftmost-longest). awk's dialect differs from plain ERE in its escapes, which this
//! module rewrites before compiling: `\n \t \/ \"` and octal/hex escapes are characters,
//! `\b` is a backspace and `\y` the word boundary (gawk), and a backslash inside a bracket
//! expression escapes the next character (`[\]/]`). Dynamic regexes (strings used as
//! patterns) are compiled once and cached.

use std::collections::HashMap;
use std::rc::Rc;

use common::regex::{Flags, Flavor, Regex};

/// Rewrites an awk regex into the POSIX ERE the shared engine parses.
pub fn translate(src: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(src.len() + 8);
    let mut i = 0;
    while i < src.len() {
        match src[i] {
            b'\\' if i + 1 < src.len() => {
                i += 1;
                let c = src[i];
                match c {
                    b'y' => out.extend_from_slice(b"\\b"),
                    b'B' | b'<' | b'>' | b'w' | b'W' | b's' | b'S' | b'`' | b'\'' => {
                        out.push(b'\\');
                        out.push(c);
                    }
                    _ => {
                        let (value, used) = escape_value(&src[i..]);
                        i += used - 1;
                        push_literal(&mut out, value);
                    }
                }
                i += 1;
            }
            b'[' => i = bracket(src, i, &mut out),
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The byte an escape stands for (the text after the backslash) and how many bytes it
/// used. Unknown escapes stand for the character itself, as gawk does.
fn escape_value(rest: &[u8]) -> (u8, usize) {
    super::lexer::escape_byte(rest).unwrap_or_else(|| (rest.first().copied().unwrap_or(b'\\'), 1))
}

/// A literal byte outside brackets, escaped if it is an ERE operator.
fn push_literal(out: &mut Vec<u8>, c: u8) {
    if b"\\^$.[]|()*+?{}".contains(&c) {
        out.push(b'\\');
    }
    out.push(c);
}

/// Rewrites the bracket expression starting at `src[start] == '['` into POSIX form
/// (where a backslash is literal and `]`, `^`, `-` are placed where they are literal).
/// Returns the index after it; an unterminated bracket is copied as-is for the engine to
/// report.
fn bracket(src: &[u8], start: usize, out: &mut Vec<u8>) -> usize {
    let mut i = start + 1;
    let negated = src.get(i) == Some(&b'^');
    if negated {
        i += 1;
    }
    let mut items: Vec<u8> = Vec::new();
    let (mut rbracket, mut hyphen, mut caret) = (false, false, false);
    let mut first = true;
    // The last single character added to `items` (for ranges), as (byte offset in items).
    let mut last_char: Option<usize> = None;
    loop {
        let c = match src.get(i) {
            Some(c) => *c,
            None => {
                out.extend_from_slice(&src[start..]);
                return src.len();
            }
        };
        if c == b']' && !first {
            i += 1;
            break;
        }
        first = false;
        if c == b'[' && matches!(src.get(i + 1), Some(b':') | Some(b'.') | Some(b'=')) {
            let kind = src[i + 1];
            if let Some(end) = src[i + 2..].windows(2).position(|w| w[0] == kind && w[1] == b']') {
                items.extend_from_slice(&src[i..i + 2 + end + 2]);
                i += 2 + end + 2;
                last_char = None;
                continue;
            }
        }
        // A range: the previous character, '-', and a following character (not ']').
        if c == b'-' && last_char.is_some() && src.get(i + 1).map_or(false, |n| *n != b']') {
            let (hi, used) = if src[i + 1] == b'\\' && i + 2 < src.len() {
                let (v, n) = escape_value(&src[i + 2..]);
                (vec![v], 1 + n)
            } else {
                let (_, len) = super::lexer::char_at(src, i + 1);
                (src[i + 1..i + 1 + len].to_vec(), len)
            };
            items.push(b'-');
            items.extend_from_slice(&hi);
            i += 1 + used;
            last_char = None;
            continue;
        }
        let (ch, used): (Vec<u8>, usize) = if c == b'\\' && i + 1 < src.len() {
            let (v, n) = escape_value(&src[i + 1..]);
            (vec![v], 1 + n)
        } else {
            let (_, len) = super::lexer::char_at(src, i);
            (src[i..i + len].to_vec(), len)
        };
        i += used;
        match ch.as_slice() {
            b"]" => rbracket = true,
            b"-" => hyphen = true,
            b"^" => caret = true,
            _ => {
                last_char = Some(items.len());
                items.extend_from_slice(&ch);
                continue;
            }
        }
        last_char = None;
    }
    let mut body = Vec::new();
    if rbracket {
        body.push(b']');
    }
    body.extend_from_slice(&items);
    if caret && (negated || !body.is_empty()) {
        body.push(b'^');
        caret = false;
    }
    if hyphen {
        body.push(b'-');
    }
    if caret {
        // Only `^` (and maybe `-`): a lone caret cannot lead a bracket expression.
        if hyphen {
            out.extend_from_slice(b"[-^]");
        } else {
            out.extend_from_slice(b"\\^");
        }
        return i;
    }
    if body.is_empty() {
        // `[]` can match nothing; `[^]` anything.
        out.extend_from_slice(if negated { b"(.|\n)" } else { b"[^\\x00-\\x{10FFFF}]" });
        return i;
    }
    out.push(b'[');
    if negated {
        out.push(b'^');
    }
    out.extend_from_slice(&body);
    out.push(b']');
    i
}

pub fn compile(src: &[u8], icase: bool) -> Result<Regex, String> {
    let pattern = translate(src);
    let flags = Flags { icase, ..Flags::default() };
    Regex::new(&pattern, Flavor::Extended, flags).map_err(|e| format!("{}: /{}/", e, String::from_utf8_lossy(src)))
}

/// The program's regex literals (compiled on first use) and a cache of dynamic ones.
pub struct Regexes {
    sources: Vec<Vec<u8>>,
    literals: [Vec<Option<Rc<Regex>>>; 2],
    cache: HashMap<(Vec<u8>, bool), Rc<Regex>>,
}

const CACHE_LIMIT: usize = 256;

impl Regexes {
    pub fn new(sources: Vec<Vec<u8>>) -> Regexes {
        let n = sources.len();
        Regexes { sources, literals: [vec![None; n], vec![None; n]], cache: HashMap::new() }
    }

    /// Compiles every literal up front so bad ones are reported before anything runs.
    pub fn check_literals(&mut self) -> Result<(), String> {
        for id in 0..self.sources.len() {
            self.literal(id, false)?;
        }
        Ok(())
    }

    pub fn literal(&mut self, id: usize, icase: bool) -> Result<Rc<Regex>, String> {
        let slot = &mut self.literals[icase as usize][id];
        if let Some(re) = slot {
            return Ok(re.clone());
        }
        let re = Rc::new(compile(&self.sources[id], icase)?);
        *slot = Some(re.clone());
        Ok(re)
    }

    pub fn dynamic(&mut self, pattern: &[u8], icase: bool) -> Result<Rc<Regex>, String> {
        if let Some(re) = self.cache.get(&(pattern.to_vec(), icase)) {
            return Ok(re.clone());
        }
        if self.cache.len() >= CACHE_LIMIT {
            self.cache.clear();
        }
        let re = Rc::new(compile(pattern, icase)?);
        self.cache.insert((pattern.to_vec(), icase), re.clone());
        Ok(re)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> String {
        String::from_utf8(translate(s.as_bytes())).unwrap()
    }

    #[test]
    fn escapes_and_brackets() {
        for (input, want) in [
            ("a\\/b", "a/b"),
            ("\\.", "\\."),
            ("\\y", "\\b"),
            ("a\\tb", "a\tb"),
            ("\\q", "q"),
            ("\\1", "\u{1}"),
            // Brackets.
            ("[\\]a]", "[]a]"),
            ("[a\\-z]", "[az-]"),
            ("[\\/]", "[/]"),
            ("[^\\^]", "[^^]"),
            ("[[:alpha:]_]", "[[:alpha:]_]"),
            ("[a-z0-9]", "[a-z0-9]"),
            ("[\\^]", "\\^"),
            ("[]]", "[]]"),
        ] {
            assert_eq!(t(input), want, "{}", input);
        }
    }

    #[test]
    fn matching() {
        let re = compile(b"a|ab", false).unwrap();
        assert_eq!(re.find_at(b"xabc", 0), Some((1, 3)));
        let re = compile(b"[\\/]x", false).unwrap();
        assert!(re.is_match(b"a/x"));
    }
}
