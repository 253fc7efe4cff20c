//! Assignments: `name=value`, `name+=value`, `name[sub]=value` and array literals
//! `name=(a b [k]=v)`.

use super::{passes, Parser};
use crate::ast::*;
use crate::error::{ErrorKind, ParseError};

impl<'a> Parser<'a> {
    /// Parses an assignment; the caller checked [`Parser::looks_like_assignment`].
    pub(super) fn parse_assignment(&mut self) -> Result<Assignment, ParseError> {
        let start = self.pos;
        while self.peek().map_or(false, |c| c.is_ascii_alphanumeric() || c == b'_') {
            self.bump();
        }
        let name = self.text(start, self.pos);
        let subscript = if self.peek() == Some(b'[') {
            Some(match self.read_subscript()? {
                Subscript::Index(word) => word,
                Subscript::At => Word::literal("@"),
                Subscript::Star => Word::literal("*"),
            })
        } else {
            None
        };
        let append = self.eat(b"+");
        self.eat(b"=");
        let value = if self.peek() == Some(b'(') && subscript.is_none() {
            AssignValue::Array(self.parse_array_literal()?)
        } else {
            let word = self.read_word()?.unwrap_or_default();
            AssignValue::Scalar(passes::tilde_pass(word, true))
        };
        Ok(Assignment { name, subscript, append, value })
    }

    fn parse_array_literal(&mut self) -> Result<Vec<ArrayElement>, ParseError> {
        self.enter()?;
        self.bump();
        let mut elements = Vec::new();
        loop {
            self.skip_linebreaks()?;
            match self.peek() {
                None => return Err(self.error(ErrorKind::Unmatched(')'))),
                Some(b')') => {
                    self.bump();
                    break;
                }
                Some(b'[') if self.keyed_element_ahead() => {
                    let key = match self.read_subscript()? {
                        Subscript::Index(word) => word,
                        Subscript::At => Word::literal("@"),
                        Subscript::Star => Word::literal("*"),
                    };
                    let append = self.eat(b"+");
                    self.eat(b"=");
                    let value = self.read_word()?.unwrap_or_default();
                    elements.push(ArrayElement::Keyed { key, value: passes::tilde_pass(value, true), append });
                }
                _ => match self.read_word()? {
                    Some(word) => elements.push(ArrayElement::Plain(passes::brace_pass(passes::tilde_pass(word, false)))),
                    None => return Err(self.unexpected_token()),
                },
            }
        }
        self.leave();
        Ok(elements)
    }

    /// `[key]=` or `[key]+=` at the current position (a quoted `]` is part of the key).
    fn keyed_element_ahead(&self) -> bool {
        match crate::arith::matching_bracket(&self.src, self.pos) {
            Some(close) => {
                let after = &self.src[close + 1..];
                after.starts_with(b"=") || after.starts_with(b"+=")
            }
            None => false,
        }
    }
}
