//! The `s` and `y` commands' syntax: the replacement with its group references and case
//! conversions, the flags, and `y`'s two character lists.

use common::regex::Flags;

use super::super::script::{CaseOp, Kind, Piece, Subst};
use super::{convert_escape, PResult, Parser};

impl<'a> Parser<'a> {
    pub(super) fn substitute(&mut self) -> PResult<Kind> {
        let delim = match self.next() {
            Some(b'\n') | Some(b'\\') | None => return Err(self.err("unterminated `s' command")),
            Some(d) => d,
        };
        let pattern = match self.delimited(delim, true) {
            Some(p) => p,
            None => return Err(self.err("unterminated `s' command")),
        };
        let replacement = match self.replacement(delim) {
            Some(r) => r,
            None => return Err(self.err("unterminated `s' command")),
        };
        let mut flags = Flags::default();
        let mut subst = Subst { regex: None, replacement, global: false, occurrence: 1, print: false, eval: false, write: None, needs_groups: false };
        let mut have_number = false;
        loop {
            match self.peek() {
                Some(b'g') => {
                    if subst.global {
                        self.pos += 1;
                        return Err(self.err("multiple `g' options to `s' command"));
                    }
                    subst.global = true;
                }
                Some(b'p') => {
                    if subst.print {
                        self.pos += 1;
                        return Err(self.err("multiple `p' options to `s' command"));
                    }
                    subst.print = true;
                }
                Some(b'i') | Some(b'I') => flags.icase = true,
                Some(b'm') | Some(b'M') => flags.newline = true,
                Some(b'e') => subst.eval = true,
                Some(b'0'..=b'9') => {
                    if have_number {
                        self.pos += 1;
                        return Err(self.err("multiple number options to `s' command"));
                    }
                    let n = self.number().unwrap_or(0);
                    if n == 0 {
                        return Err(self.err("number option to `s' command may not be zero"));
                    }
                    subst.occurrence = n as usize;
                    have_number = true;
                    continue;
                }
                Some(b'w') => {
                    self.pos += 1;
                    let name = self.filename()?;
                    subst.write = Some(self.write_file(name));
                    break;
                }
                Some(b' ') | Some(b'\t') | Some(b';') | Some(b'\n') | Some(b'}') | Some(b'#') | None => break,
                Some(_) => {
                    self.pos += 1;
                    return Err(self.err("unknown option to `s'"));
                }
            }
            self.pos += 1;
        }
        if subst.write.is_none() {
            self.end_of_command()?;
        }
        subst.regex = self.compile(&pattern, flags)?;
        if let Some(re) = &subst.regex {
            for piece in &subst.replacement {
                if let Piece::Group(n) = piece {
                    if *n > re.groups() {
                        return Err(self.err(&format!("invalid reference \\{} on `s' command's RHS", n)));
                    }
                }
            }
        }
        subst.needs_groups = subst.replacement.iter().any(|p| matches!(p, Piece::Group(n) if *n > 0) || matches!(p, Piece::Case(_)));
        Ok(Kind::Subst(Box::new(subst)))
    }

    fn replacement(&mut self, delim: u8) -> Option<Vec<Piece>> {
        let mut pieces = Vec::new();
        let mut literal = Vec::new();
        let flush = |literal: &mut Vec<u8>, pieces: &mut Vec<Piece>| {
            if !literal.is_empty() {
                pieces.push(Piece::Literal(std::mem::take(literal)));
            }
        };
        loop {
            let c = self.next()?;
            if c == delim {
                flush(&mut literal, &mut pieces);
                return Some(pieces);
            }
            match c {
                b'&' => {
                    flush(&mut literal, &mut pieces);
                    pieces.push(Piece::Group(0));
                }
                b'\\' => {
                    let e = self.next()?;
                    let case = match e {
                        b'L' => Some(CaseOp::Lower),
                        b'U' => Some(CaseOp::Upper),
                        b'l' => Some(CaseOp::LowerOne),
                        b'u' => Some(CaseOp::UpperOne),
                        b'E' => Some(CaseOp::End),
                        _ => None,
                    };
                    if let Some(op) = case {
                        flush(&mut literal, &mut pieces);
                        pieces.push(Piece::Case(op));
                    } else if e.is_ascii_digit() {
                        flush(&mut literal, &mut pieces);
                        pieces.push(Piece::Group((e - b'0') as usize));
                    } else if e == b'\n' {
                        literal.push(b'\n');
                    } else if e == delim {
                        literal.push(e);
                    } else {
                        match self.numeric_escape(e) {
                            Some(b) => literal.push(b),
                            None => literal.push(convert_escape(e).unwrap_or(e)),
                        }
                    }
                }
                b'\n' => {
                    // A newline only continues the replacement after a backslash.
                    return None;
                }
                _ => literal.push(c),
            }
        }
    }

    pub(super) fn translate(&mut self) -> PResult<Kind> {
        let delim = match self.next() {
            Some(b'\n') | Some(b'\\') | None => return Err(self.err("unterminated `y' command")),
            Some(d) => d,
        };
        let mut parts = Vec::new();
        for _ in 0..2 {
            let mut chars: Vec<Vec<u8>> = Vec::new();
            loop {
                let c = match self.next() {
                    Some(c) => c,
                    None => return Err(self.err("unterminated `y' command")),
                };
                if c == delim {
                    break;
                }
                let mut ch = vec![c];
                if c == b'\\' {
                    let e = match self.next() {
                        Some(e) => e,
                        None => return Err(self.err("unterminated `y' command")),
                    };
                    ch = vec![if e == delim || e == b'\\' { e } else { convert_escape(e).unwrap_or(e) }];
                } else if c >= 0xc0 {
                    // Keep a UTF-8 character whole.
                    while matches!(self.peek(), Some(b) if b & 0xc0 == 0x80) {
                        ch.push(self.next().unwrap_or(0));
                    }
                }
                chars.push(ch);
            }
            parts.push(chars);
        }
        let to = parts.pop().unwrap_or_default();
        let from = parts.pop().unwrap_or_default();
        if from.len() != to.len() {
            return Err(self.err("strings for `y' command are different lengths"));
        }
        self.end_of_command()?;
        Ok(Kind::Translate(from.into_iter().zip(to).collect()))
    }
}
