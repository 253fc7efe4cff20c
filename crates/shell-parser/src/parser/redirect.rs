//! Redirections and here-documents. A here-document's body follows the line that names
//! it, so the redirection is built first with an empty body that is filled in when the
//! parser consumes that line's newline.

use std::cell::RefCell;
use std::rc::Rc;

use super::words::Embedded;
use super::{is_meta, passes, Parser};
use crate::ast::*;
use crate::bytes;
use crate::error::ParseError;

impl<'a> Parser<'a> {
    /// A redirection at the current position, or `None` (position unchanged).
    pub(super) fn try_parse_redirect(&mut self) -> Result<Option<Redirect>, ParseError> {
        let start = self.pos;
        let mut fd = None;
        let digits = self.src[self.pos..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && matches!(self.peek_at(digits), Some(b'<' | b'>')) {
            let number = self.text(self.pos, self.pos + digits).parse().unwrap_or(u32::MAX);
            fd = Some(RedirFd::Number(number));
            self.pos += digits;
        } else if self.peek() == Some(b'{') {
            let rest = &self.src[self.pos + 1..];
            let name_len = rest.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
            if name_len > 0
                && rest.get(name_len) == Some(&b'}')
                && matches!(rest.get(name_len + 1), Some(b'<' | b'>'))
                && super::is_name(&String::from_utf8_lossy(&rest[..name_len]))
            {
                fd = Some(RedirFd::Var(self.text(self.pos + 1, self.pos + 1 + name_len)));
                self.pos += name_len + 2;
            }
        }
        if fd.is_none() && matches!(self.peek(), Some(b'<' | b'>')) && self.peek_at(1) == Some(b'(') {
            return Ok(None);
        }
        const OPS: &[(&str, RedirOp)] = &[
            ("&>>", RedirOp::AppendBoth),
            ("&>", RedirOp::OutputBoth),
            ("<<<", RedirOp::HereString),
            ("<<-", RedirOp::HereDoc),
            ("<<", RedirOp::HereDoc),
            ("<&", RedirOp::DupInput),
            ("<>", RedirOp::ReadWrite),
            ("<", RedirOp::Input),
            (">>", RedirOp::Append),
            (">&", RedirOp::DupOutput),
            (">|", RedirOp::Clobber),
            (">", RedirOp::Output),
        ];
        let found = OPS.iter().find(|(text, _)| self.starts_with(text.as_bytes()));
        let (text, op) = match found {
            Some(&(text, op)) if !(fd.is_some() && text.starts_with('&')) => (text, op),
            _ => {
                self.pos = start;
                return Ok(None);
            }
        };
        self.pos += text.len();
        self.skip_blanks();
        if op == RedirOp::HereDoc {
            let doc = self.read_heredoc_delimiter(text == "<<-")?;
            return Ok(Some(Redirect { fd, op, target: RedirTarget::HereDoc(doc) }));
        }
        match self.read_word()? {
            Some(word) => Ok(Some(Redirect { fd, op, target: RedirTarget::Word(passes::tilde_pass(word, false)) })),
            None => Err(self.unexpected_token()),
        }
    }

    /// The delimiter word after `<<`: quote removal only, no expansion; quoted at all means
    /// the body is literal.
    fn read_heredoc_delimiter(&mut self, strip_tabs: bool) -> Result<Rc<HereDoc>, ParseError> {
        let mut delimiter = Vec::new();
        let mut quoted = false;
        while let Some(c) = self.peek() {
            if is_meta(c) {
                break;
            }
            match c {
                b'\\' => {
                    quoted = true;
                    self.bump();
                    if let Some(next) = self.bump() {
                        delimiter.push(next);
                    }
                }
                b'\'' | b'"' => {
                    quoted = true;
                    self.bump();
                    loop {
                        match self.bump() {
                            None => return Err(self.error(crate::error::ErrorKind::Unmatched(c as char))),
                            Some(q) if q == c => break,
                            Some(b'\\') if c == b'"' && matches!(self.peek(), Some(b'"' | b'\\' | b'$' | b'`')) => {
                                if let Some(next) = self.bump() {
                                    delimiter.push(next);
                                }
                            }
                            Some(other) => delimiter.push(other),
                        }
                    }
                }
                b'$' if matches!(self.peek_at(1), Some(b'\'' | b'"')) => {
                    self.bump();
                }
                _ => {
                    delimiter.push(c);
                    self.bump();
                }
            }
        }
        if delimiter.is_empty() && !quoted {
            return Err(self.unexpected_token());
        }
        let doc = Rc::new(HereDoc {
            delimiter: bytes::decode(&delimiter),
            quoted,
            strip_tabs,
            body: RefCell::new(Word::default()),
        });
        self.heredocs.push(doc.clone());
        Ok(doc)
    }

    /// Reads the bodies of the here-documents named on the line just ended.
    pub(super) fn read_heredoc_bodies(&mut self) -> Result<(), ParseError> {
        let pending = std::mem::take(&mut self.heredocs);
        for doc in pending {
            let body_line = self.line;
            let mut body = Vec::new();
            loop {
                if self.pos >= self.src.len() {
                    // End of input before the delimiter: bash warns and uses what it has.
                    break;
                }
                let line_end = self.src[self.pos..].iter().position(|&c| c == b'\n').map_or(self.src.len(), |i| self.pos + i);
                let mut line_start = self.pos;
                if doc.strip_tabs {
                    while line_start < line_end && self.src[line_start] == b'\t' {
                        line_start += 1;
                    }
                }
                let line = &self.src[line_start..line_end];
                let is_delimiter = line == doc.delimiter.as_bytes();
                if !is_delimiter {
                    body.extend_from_slice(line);
                    if line_end < self.src.len() {
                        body.push(b'\n');
                    }
                }
                while self.pos < line_end {
                    self.bump();
                }
                self.bump();
                if is_delimiter {
                    break;
                }
            }
            let word = if doc.quoted {
                Word { parts: vec![WordPart::Quoted(bytes::decode(&body))] }
            } else {
                let text = bytes::decode(&body);
                let mut sub = self.sub_parser(&text);
                sub.line = body_line;
                Word { parts: sub.read_embedded(Embedded::HereDoc)? }
            };
            *doc.body.borrow_mut() = word;
        }
        Ok(())
    }
}
