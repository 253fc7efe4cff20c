//! The sed parser's lower layer: line numbers, addresses (`N`, `first~step`, `$`,
//! `/re/I`, `\cREc`), and text delimited by a command's delimiter, with GNU's escapes and
//! bracket expressions, compiled into regexes. Commands are parsed in parse.rs; `s` and `y`
//! in parse_subst.rs.

use std::rc::Rc;

use common::regex::{Flags, Flavor, Regex};

use super::super::script::{Addr, SedRegex};
use super::{convert_escape, PResult, Parser};

impl<'a> Parser<'a> {
    pub(super) fn number(&mut self) -> Option<u64> {
        let start = self.pos;
        let mut n: u64 = 0;
        while let Some(d) = self.peek().filter(u8::is_ascii_digit) {
            n = n.saturating_mul(10).saturating_add((d - b'0') as u64);
            self.pos += 1;
        }
        if self.pos > start {
            Some(n)
        } else {
            None
        }
    }

    pub(super) fn address(&mut self) -> PResult<Option<Addr>> {
        match self.peek() {
            Some(b'0'..=b'9') => {
                let n = self.number().unwrap_or(0);
                if self.peek() == Some(b'~') {
                    self.pos += 1;
                    let step = self.number().unwrap_or(0);
                    return Ok(Some(Addr::Step(n, step)));
                }
                Ok(Some(if n == 0 { Addr::Zero } else { Addr::Line(n) }))
            }
            Some(b'$') => {
                self.pos += 1;
                Ok(Some(Addr::Last))
            }
            Some(b'/') | Some(b'\\') => {
                if self.next() == Some(b'\\') {
                    if self.peek().is_none() || self.peek() == Some(b'\n') {
                        return Err(self.err("unexpected end of file"));
                    }
                }
                let delim = self.s[self.pos - 1];
                let delim = if delim == b'\\' { self.next().unwrap_or(b'/') } else { delim };
                let text = match self.delimited(delim, true) {
                    Some(t) => t,
                    None => return Err(self.err("unterminated address regex")),
                };
                let mut flags = Flags::default();
                loop {
                    match self.peek() {
                        Some(b'I') => flags.icase = true,
                        Some(b'M') => flags.newline = true,
                        _ => break,
                    }
                    self.pos += 1;
                }
                Ok(Some(Addr::Regex(self.compile(&text, flags)?)))
            }
            _ => Ok(None),
        }
    }

    pub(super) fn compile(&self, text: &[u8], flags: Flags) -> PResult<SedRegex> {
        if text.is_empty() {
            return Ok(None);
        }
        let flavor = if self.opts.extended { Flavor::Extended } else { Flavor::Basic };
        match Regex::new(text, flavor, flags) {
            Ok(re) => Ok(Some(Rc::new(re))),
            Err(e) => Err(self.err(&e.to_string())),
        }
    }

    /// Text up to an unescaped `delim` (consumed), with sed's escapes converted: `\delim`
    /// → delim, `\n` → newline, `\t` etc. Regexes skip over bracket expressions.
    pub(super) fn delimited(&mut self, delim: u8, regex: bool) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        loop {
            let c = self.next()?;
            if c == delim {
                return Some(out);
            }
            if c == b'\n' && regex {
                return None;
            }
            if c == b'[' && regex {
                out.push(c);
                self.bracket(&mut out, delim)?;
                continue;
            }
            if c != b'\\' {
                out.push(c);
                continue;
            }
            let e = self.next()?;
            if e == delim {
                out.push(e);
            } else if e == b'\n' {
                out.push(b'\n');
            } else if let Some(b) = self.numeric_escape(e) {
                // As in GNU sed 4.9, the character then has its regex meaning (`\x2e` is `.`).
                out.push(b);
            } else {
                match convert_escape(e) {
                    Some(b) => out.push(b),
                    None => {
                        out.push(b'\\');
                        out.push(e);
                    }
                }
            }
        }
    }

    /// GNU's escapes by code after a backslash: `\xHH`, `\oNNN`, `\dNNN`, `\cX`.
    pub(super) fn numeric_escape(&mut self, e: u8) -> Option<u8> {
        let (radix, max) = match e {
            b'x' => (16, 2),
            b'o' => (8, 3),
            b'd' => (10, 3),
            b'c' => {
                let c = self.peek()?;
                self.pos += 1;
                return Some(c.to_ascii_uppercase() ^ 0x40);
            }
            _ => return None,
        };
        let start = self.pos;
        let mut value: u32 = 0;
        while self.pos - start < max {
            match self.peek().and_then(|c| (c as char).to_digit(radix)) {
                Some(d) => {
                    value = value * radix + d;
                    self.pos += 1;
                }
                None => break,
            }
        }
        if self.pos == start {
            return None;
        }
        Some(value as u8)
    }

    /// Copies a bracket expression's body (after `[`) through its `]`.
    fn bracket(&mut self, out: &mut Vec<u8>, delim: u8) -> Option<()> {
        let start = self.pos;
        if self.peek() == Some(b'^') {
            out.push(b'^');
            self.pos += 1;
        }
        if self.peek() == Some(b']') {
            out.push(b']');
            self.pos += 1;
        }
        loop {
            let c = self.next()?;
            if c == b'\n' {
                self.pos = start;
                return Some(());
            }
            if c == b'[' && matches!(self.peek(), Some(b':') | Some(b'=') | Some(b'.')) {
                let kind = self.next()?;
                out.push(c);
                out.push(kind);
                loop {
                    let d = self.next()?;
                    out.push(d);
                    if d == kind && self.peek() == Some(b']') {
                        out.push(b']');
                        self.pos += 1;
                        break;
                    }
                }
                continue;
            }
            if c == b'\\' && self.peek() == Some(b'n') {
                self.pos += 1;
                out.push(b'\n');
                continue;
            }
            if c == b'\\' && self.peek() == Some(delim) && delim != b']' {
                continue;
            }
            out.push(c);
            if c == b']' {
                return Some(());
            }
        }
    }
}
