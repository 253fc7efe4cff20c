//! Words: quoting (`'…'`, `"…"`, `\`, `$'…'`), backquotes, process substitution and
//! extglob groups. `$` expansions are in `dollar.rs`.

use std::rc::Rc;

use super::{is_meta, Parser};
use crate::ast::*;
use crate::bytes;
use crate::error::{ErrorKind, ParseError};

/// Text read as a whole with double-quote-like rules (no word splitting at blanks).
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Embedded {
    /// A here-document body: `\` only escapes `$`, `` ` ``, `\` and newline; `"` is plain.
    HereDoc,
    /// Arithmetic text with expansions: like a here-document, but `"` is removed.
    Arith,
}

impl<'a> Parser<'a> {
    /// Reads one word up to an unquoted metacharacter; `None` when there is none here.
    pub(super) fn read_word(&mut self) -> Result<Option<Word>, ParseError> {
        self.enter()?;
        let result = self.read_word_inner();
        self.leave();
        result
    }

    fn read_word_inner(&mut self) -> Result<Option<Word>, ParseError> {
        let mut parts = Vec::new();
        let mut literal: Vec<u8> = Vec::new();
        let start = self.pos;
        while let Some(c) = self.peek() {
            if matches!(c, b'<' | b'>') && self.peek_at(1) == Some(b'(') && self.pos == start {
                parts.push(self.parse_process_subst()?);
                continue;
            }
            if is_meta(c) {
                break;
            }
            match c {
                b'\\' | b'\'' | b'"' | b'$' | b'`' => {
                    flush_literal(&mut literal, &mut parts);
                    parts.push(self.read_word_part()?);
                }
                b'?' | b'*' | b'+' | b'@' | b'!' if self.peek_at(1) == Some(b'(') => self.read_extglob(&mut literal)?,
                _ => {
                    literal.push(c);
                    self.bump();
                }
            }
        }
        flush_literal(&mut literal, &mut parts);
        let parts = merge_literals(parts);
        if parts.is_empty() && self.pos == start {
            return Ok(None);
        }
        Ok(Some(Word { parts }))
    }

    /// One quoted or expanded part starting at `\`, `'`, `"`, `$` or `` ` ``.
    pub(super) fn read_word_part(&mut self) -> Result<WordPart, ParseError> {
        match self.peek() {
            Some(b'\\') => {
                self.bump();
                match self.peek() {
                    None => Ok(WordPart::Literal("\\".to_string())),
                    Some(b'\n') => {
                        self.bump();
                        Ok(WordPart::Literal(String::new()))
                    }
                    Some(_) => Ok(WordPart::Quoted(self.take_char())),
                }
            }
            Some(b'\'') => self.read_single_quoted().map(WordPart::Quoted),
            Some(b'"') => self.read_double_quoted().map(WordPart::DoubleQuoted),
            Some(b'$') => self.parse_dollar(false),
            Some(b'`') => self.parse_backquote(false),
            _ => Ok(WordPart::Literal(String::new())),
        }
    }

    /// One (possibly multi-byte) character as a string.
    pub(super) fn take_char(&mut self) -> String {
        let first = match self.peek() {
            Some(c) => c,
            None => return String::new(),
        };
        let len = match first {
            0xF0..=0xF7 => 4,
            0xE0..=0xEF => 3,
            0xC0..=0xDF => 2,
            _ => 1,
        };
        let end = (self.pos + len).min(self.src.len());
        let text = bytes::decode(&self.src[self.pos..end]);
        for _ in self.pos..end {
            self.bump();
        }
        text
    }

    fn read_single_quoted(&mut self) -> Result<String, ParseError> {
        let line = self.line;
        self.bump();
        let start = self.pos;
        loop {
            match self.peek() {
                None => return Err(self.error_at(ErrorKind::Unmatched('\''), line)),
                Some(b'\'') => break,
                Some(_) => {
                    self.bump();
                }
            }
        }
        let text = bytes::decode(&self.src[start..self.pos]);
        self.bump();
        Ok(text)
    }

    pub(super) fn read_double_quoted(&mut self) -> Result<Vec<WordPart>, ParseError> {
        self.enter()?;
        let line = self.line;
        self.bump();
        let mut parts = Vec::new();
        let mut literal = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.error_at(ErrorKind::Unmatched('"'), line)),
                Some(b'"') => {
                    self.bump();
                    break;
                }
                Some(b'\\') => self.quoted_backslash(&mut literal, b"$`\"\\"),
                Some(b'$') => {
                    flush_quoted(&mut literal, &mut parts);
                    parts.push(self.parse_dollar(true)?);
                }
                Some(b'`') => {
                    flush_quoted(&mut literal, &mut parts);
                    parts.push(self.parse_backquote(true)?);
                }
                Some(c) => {
                    literal.push(c);
                    self.bump();
                }
            }
        }
        flush_quoted(&mut literal, &mut parts);
        self.leave();
        Ok(parts)
    }

    /// `` `…` ``: the text up to the closing backquote with `\$`, `` \` ``, `\\` (and `\"`
    /// inside double quotes) unescaped, parsed as a program of its own.
    pub(super) fn parse_backquote(&mut self, in_dquote: bool) -> Result<WordPart, ParseError> {
        let line = self.line;
        self.bump();
        let mut text = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.error_at(ErrorKind::Unmatched('`'), line)),
                Some(b'`') => {
                    self.bump();
                    break;
                }
                Some(b'\\') => match self.peek_at(1) {
                    Some(c @ (b'$' | b'`' | b'\\')) => {
                        text.push(c);
                        self.bump();
                        self.bump();
                    }
                    Some(b'"') if in_dquote => {
                        text.push(b'"');
                        self.bump();
                        self.bump();
                    }
                    _ => {
                        text.push(b'\\');
                        self.bump();
                    }
                },
                Some(c) => {
                    text.push(c);
                    self.bump();
                }
            }
        }
        let text = String::from_utf8_lossy(&text).into_owned();
        let mut sub = self.sub_parser(&text);
        sub.line = line;
        let body = sub.parse_program()?;
        Ok(WordPart::CommandSubst { body: Rc::new(body), backquote: true })
    }

    /// `<(list)` or `>(list)`.
    fn parse_process_subst(&mut self) -> Result<WordPart, ParseError> {
        let output = self.peek() == Some(b'>');
        Ok(WordPart::ProcessSubst { body: self.parse_substituted_list()?, output })
    }

    /// An extglob group like `@(a|b)` is pattern text: read through the closing `)`.
    fn read_extglob(&mut self, literal: &mut Vec<u8>) -> Result<(), ParseError> {
        let mut depth = 0usize;
        loop {
            let c = match self.peek() {
                Some(c) => c,
                None => return Err(self.error(ErrorKind::Unmatched(')'))),
            };
            literal.push(c);
            self.bump();
            match c {
                b'\\' => {
                    if let Some(next) = self.bump() {
                        literal.push(next);
                    }
                }
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
    }

    /// A parser for text that belongs to this one (backquote bodies, here-document bodies,
    /// arithmetic text): same aliases, line numbers and nesting depth.
    pub(super) fn sub_parser(&self, text: &str) -> Parser<'a> {
        let mut sub = Parser::new(text);
        sub.aliases = self.aliases;
        sub.line = self.line;
        sub.depth = self.depth;
        sub
    }

    /// A backslash inside double-quote-like text: before a byte of `escapes` it quotes that
    /// byte, before a newline both vanish (a line continuation), else it stays itself.
    fn quoted_backslash(&mut self, literal: &mut Vec<u8>, escapes: &[u8]) {
        match self.peek_at(1) {
            Some(next) if escapes.contains(&next) => {
                literal.push(next);
                self.bump();
                self.bump();
            }
            Some(b'\n') => {
                self.bump();
                self.bump();
            }
            _ => {
                literal.push(b'\\');
                self.bump();
            }
        }
    }

    /// Reads all remaining input as one double-quote-like text.
    pub(crate) fn read_embedded(&mut self, mode: Embedded) -> Result<Vec<WordPart>, ParseError> {
        let mut parts = Vec::new();
        let mut literal = Vec::new();
        while let Some(c) = self.peek() {
            match c {
                b'\\' => self.quoted_backslash(&mut literal, if mode == Embedded::Arith { b"$`\\\"" } else { b"$`\\" }),
                b'"' if mode == Embedded::Arith => {
                    self.bump();
                }
                b'$' => {
                    flush_quoted(&mut literal, &mut parts);
                    parts.push(self.parse_dollar(true)?);
                }
                b'`' => {
                    flush_quoted(&mut literal, &mut parts);
                    parts.push(self.parse_backquote(true)?);
                }
                _ => {
                    literal.push(c);
                    self.bump();
                }
            }
        }
        flush_quoted(&mut literal, &mut parts);
        Ok(parts)
    }
}

pub(super) fn flush_literal(literal: &mut Vec<u8>, parts: &mut Vec<WordPart>) {
    if !literal.is_empty() {
        parts.push(WordPart::Literal(bytes::decode(literal)));
        literal.clear();
    }
}

pub(super) fn flush_quoted(literal: &mut Vec<u8>, parts: &mut Vec<WordPart>) {
    if !literal.is_empty() {
        parts.push(WordPart::Quoted(bytes::decode(literal)));
        literal.clear();
    }
}

/// Processes the escapes of `$'…'` (the text between the quotes).
pub fn ansi_c_unescape(raw: &[u8]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' || i + 1 >= raw.len() {
            let len = utf8_len(c).min(raw.len() - i);
            out.push_str(&bytes::decode(&raw[i..i + len]));
            i += len;
            continue;
        }
        i += 1;
        let e = raw[i];
        i += 1;
        match e {
            b'a' => out.push('\x07'),
            b'b' => out.push('\x08'),
            b'e' | b'E' => out.push('\x1b'),
            b'f' => out.push('\x0c'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'v' => out.push('\x0b'),
            b'\\' => out.push('\\'),
            b'\'' => out.push('\''),
            b'"' => out.push('"'),
            b'?' => out.push('?'),
            b'0'..=b'7' => {
                let mut value = (e - b'0') as u32;
                let mut n = 1;
                while n < 3 && i < raw.len() && (b'0'..=b'7').contains(&raw[i]) {
                    value = value * 8 + (raw[i] - b'0') as u32;
                    i += 1;
                    n += 1;
                }
                if value & 0xff == 0 {
                    // A NUL ends the string, as in bash.
                    return bytes::normalize(out);
                }
                bytes::push_byte(&mut out, (value & 0xff) as u8);
            }
            b'x' => {
                let (value, used) = hex_value(&raw[i..], 2);
                if used == 0 {
                    out.push_str("\\x");
                } else {
                    i += used;
                    if value == 0 {
                        return bytes::normalize(out);
                    }
                    bytes::push_byte(&mut out, value as u8);
                }
            }
            b'u' | b'U' => {
                let (value, used) = hex_value(&raw[i..], if e == b'u' { 4 } else { 8 });
                if used == 0 {
                    out.push('\\');
                    out.push(e as char);
                } else {
                    i += used;
                    if value == 0 {
                        return bytes::normalize(out);
                    }
                    out.push(char::from_u32(value).unwrap_or('\u{FFFD}'));
                }
            }
            b'c' if i < raw.len() => {
                let control = raw[i];
                i += 1;
                let value = if control == b'?' { 0x7f } else { control.to_ascii_uppercase() & 0x1f };
                if value == 0 {
                    return bytes::normalize(out);
                }
                out.push(value as char);
            }
            _ => {
                out.push('\\');
                let len = utf8_len(e).min(raw.len() - i + 1);
                out.push_str(&bytes::decode(&raw[i - 1..i - 1 + len]));
                i += len - 1;
            }
        }
    }
    bytes::normalize(out)
}

pub(super) fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Up to `max` hex digits: (value, digits used).
pub(crate) fn hex_value(text: &[u8], max: usize) -> (u32, usize) {
    let mut value = 0u32;
    let mut used = 0;
    while used < max && used < text.len() {
        let digit = match (text[used] as char).to_digit(16) {
            Some(d) => d,
            None => break,
        };
        value = value.wrapping_mul(16).wrapping_add(digit);
        used += 1;
    }
    (value, used)
}

/// Joins adjacent literal parts (the regex reader produces them piecewise).
pub(super) fn merge_literals(parts: Vec<WordPart>) -> Vec<WordPart> {
    let mut out: Vec<WordPart> = Vec::with_capacity(parts.len());
    for part in parts {
        if matches!(&part, WordPart::Literal(text) if text.is_empty()) {
            continue;
        }
        if let (Some(WordPart::Literal(prev)), WordPart::Literal(next)) = (out.last_mut(), &part) {
            prev.push_str(next);
            continue;
        }
        out.push(part);
    }
    out
}
