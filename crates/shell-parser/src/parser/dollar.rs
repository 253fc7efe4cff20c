//! `$` expansions: `$name`, `$1`, `$?`, `${…}` with every operator, `$(…)`, `$((…))`,
//! `$[…]`, `$'…'` and `$"…"`.

use std::rc::Rc;

use super::words::{ansi_c_unescape, flush_literal};
use super::{passes, Parser};
use crate::ast::*;
use crate::error::{ErrorKind, ParseError};

impl<'a> Parser<'a> {
    /// At a `$`: the expansion it starts, or a literal `$` when nothing follows that could
    /// be expanded.
    pub(super) fn parse_dollar(&mut self, in_dquote: bool) -> Result<WordPart, ParseError> {
        let literal_dollar = |parser: &mut Parser| {
            parser.bump();
            Ok(if in_dquote { WordPart::Quoted("$".to_string()) } else { WordPart::Literal("$".to_string()) })
        };
        match self.peek_at(1) {
            Some(b'\'') if !in_dquote => {
                self.bump();
                self.bump();
                let start = self.pos;
                loop {
                    match self.peek() {
                        None => return Err(self.error(ErrorKind::Unmatched('\''))),
                        Some(b'\\') => {
                            self.bump();
                            self.bump();
                        }
                        Some(b'\'') => break,
                        Some(_) => {
                            self.bump();
                        }
                    }
                }
                let text = ansi_c_unescape(&self.src[start..self.pos]);
                self.bump();
                Ok(WordPart::AnsiQuoted(text))
            }
            Some(b'"') if !in_dquote => {
                self.bump();
                self.read_double_quoted().map(WordPart::DoubleQuoted)
            }
            Some(b'(') => {
                if self.peek_at(2) == Some(b'(') {
                    if let Some(end) = self.find_arith_end(self.pos + 3) {
                        let text = self.text(self.pos + 3, end);
                        while self.pos < end + 2 {
                            self.bump();
                        }
                        return Ok(WordPart::Arith(Box::new(self.arith_from_text(&text)?), text));
                    }
                }
                self.parse_command_subst()
            }
            Some(b'[') => {
                let open = self.pos + 1;
                match crate::arith::matching_bracket(&self.src, open) {
                    Some(close) => {
                        let text = self.text(open + 1, close);
                        while self.pos <= close {
                            self.bump();
                        }
                        Ok(WordPart::Arith(Box::new(self.arith_from_text(&text)?), text))
                    }
                    None => literal_dollar(self),
                }
            }
            Some(b'{') => self.parse_brace_param(in_dquote),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                self.bump();
                let start = self.pos;
                while self.peek().map_or(false, |c| c.is_ascii_alphanumeric() || c == b'_') {
                    self.bump();
                }
                let name = self.text(start, self.pos);
                Ok(simple_param(Param::Var { name, index: None }))
            }
            Some(c) if c.is_ascii_digit() => {
                self.bump();
                self.bump();
                Ok(simple_param(Param::Positional((c - b'0') as u32)))
            }
            Some(c @ (b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!')) => {
                self.bump();
                self.bump();
                Ok(simple_param(Param::Special(c as char)))
            }
            _ => literal_dollar(self),
        }
    }

    fn parse_command_subst(&mut self) -> Result<WordPart, ParseError> {
        Ok(WordPart::CommandSubst { body: self.parse_substituted_list()?, backquote: false })
    }

    /// The list of `$(list)`, `<(list)` or `>(list)`: after the two-byte opener, up to the
    /// `)` that closes it.
    pub(super) fn parse_substituted_list(&mut self) -> Result<Rc<List>, ParseError> {
        self.bump();
        self.bump();
        let body = self.parse_compound_list(true)?;
        self.skip_blanks();
        match self.peek() {
            Some(b')') => {
                self.bump();
                Ok(Rc::new(body))
            }
            None => Err(self.error(ErrorKind::Unmatched(')'))),
            Some(_) => Err(self.unexpected_token()),
        }
    }

    /// Whether a parameter name starts at `at` (after `${#` or `${!`).
    fn param_starts_at(&self, at: usize) -> bool {
        match self.src.get(at) {
            Some(&c) => c.is_ascii_alphanumeric() || matches!(c, b'_' | b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!'),
            None => false,
        }
    }

    pub(super) fn parse_brace_param(&mut self, in_dquote: bool) -> Result<WordPart, ParseError> {
        self.enter()?;
        let result = self.parse_brace_param_inner(in_dquote);
        self.leave();
        result
    }

    fn parse_brace_param_inner(&mut self, in_dquote: bool) -> Result<WordPart, ParseError> {
        let start = self.pos;
        self.bump();
        self.bump();
        let mut length = false;
        let mut indirect = false;
        if self.peek() == Some(b'#') && self.peek_at(1) != Some(b'}') && self.param_starts_at(self.pos + 1) {
            // `${#-}` and `${#?}` are lengths; `${#:-x}` is `$#` with a default.
            length = true;
            self.bump();
        } else if self.peek() == Some(b'!') && self.peek_at(1) != Some(b'}') && self.param_starts_at(self.pos + 1) {
            indirect = true;
            self.bump();
        }
        let param = match self.read_param()? {
            Some(param) => param,
            None => return self.bad_substitution(start),
        };
        if length {
            if self.peek() != Some(b'}') {
                return self.bad_substitution(start);
            }
            self.bump();
            return Ok(param_part(param, ParamOp::Length, false));
        }
        if indirect {
            match (&param, self.peek(), self.peek_at(1)) {
                (Param::Var { index: None, .. }, Some(c @ (b'*' | b'@')), Some(b'}')) => {
                    self.bump();
                    self.bump();
                    return Ok(param_part(param, ParamOp::PrefixNames { star: c == b'*' }, false));
                }
                (Param::Var { index: Some(index @ (Subscript::At | Subscript::Star)), .. }, Some(b'}'), _) => {
                    let star = *index == Subscript::Star;
                    self.bump();
                    return Ok(param_part(param, ParamOp::Keys { star }, false));
                }
                _ => {}
            }
        }
        let op = match self.parse_param_op(in_dquote)? {
            Some(op) => op,
            None => return self.bad_substitution(start),
        };
        if self.peek() != Some(b'}') {
            return self.bad_substitution(start);
        }
        self.bump();
        Ok(param_part(param, op, indirect))
    }

    /// Skips to the matching `}` and records the text for a run-time "bad substitution".
    fn bad_substitution(&mut self, start: usize) -> Result<WordPart, ParseError> {
        let mut depth = 0usize;
        let newlines = self.src[start..self.pos].iter().filter(|&&c| c == b'\n').count() as u32;
        self.line -= newlines;
        self.pos = start;
        loop {
            match self.peek() {
                None => return Err(self.error(ErrorKind::Unmatched('}'))),
                Some(b'{') => depth += 1,
                Some(b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        break;
                    }
                }
                Some(b'\\') => {
                    self.bump();
                }
                _ => {}
            }
            self.bump();
        }
        Ok(WordPart::BadSubst(self.text(start, self.pos)))
    }

    fn read_param(&mut self) -> Result<Option<Param>, ParseError> {
        let c = match self.peek() {
            Some(c) => c,
            None => return Err(self.error(ErrorKind::Unmatched('}'))),
        };
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = self.pos;
            while self.peek().map_or(false, |c| c.is_ascii_alphanumeric() || c == b'_') {
                self.bump();
            }
            let name = self.text(start, self.pos);
            let index = if self.peek() == Some(b'[') { Some(self.read_subscript()?) } else { None };
            return Ok(Some(Param::Var { name, index }));
        }
        if c.is_ascii_digit() {
            let start = self.pos;
            while self.peek().map_or(false, |c| c.is_ascii_digit()) {
                self.bump();
            }
            let number = self.text(start, self.pos).parse().unwrap_or(u32::MAX);
            return Ok(Some(Param::Positional(number)));
        }
        if matches!(c, b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') {
            self.bump();
            return Ok(Some(Param::Special(c as char)));
        }
        Ok(None)
    }

    /// `[@]`, `[*]` or `[expr]` after a variable name.
    pub(super) fn read_subscript(&mut self) -> Result<Subscript, ParseError> {
        if self.starts_with(b"[@]") {
            self.pos += 3;
            return Ok(Subscript::At);
        }
        if self.starts_with(b"[*]") {
            self.pos += 3;
            return Ok(Subscript::Star);
        }
        self.bump();
        let mut parts = Vec::new();
        let mut literal = Vec::new();
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => return Err(self.error(ErrorKind::Unmatched(']'))),
                Some(b']') if depth == 0 => {
                    self.bump();
                    break;
                }
                Some(c @ (b'[' | b']')) => {
                    if c == b'[' {
                        depth += 1;
                    } else {
                        depth -= 1;
                    }
                    literal.push(c);
                    self.bump();
                }
                Some(b'\\' | b'\'' | b'"' | b'$' | b'`') => {
                    flush_literal(&mut literal, &mut parts);
                    parts.push(self.read_word_part()?);
                }
                Some(c) => {
                    literal.push(c);
                    self.bump();
                }
            }
        }
        flush_literal(&mut literal, &mut parts);
        Ok(Subscript::Index(Word { parts: super::words::merge_literals(parts) }))
    }

    /// The operator after the parameter name; `None` when it is not one bash knows.
    fn parse_param_op(&mut self, in_dquote: bool) -> Result<Option<ParamOp>, ParseError> {
        let c = match self.peek() {
            Some(c) => c,
            None => return Err(self.error(ErrorKind::Unmatched('}'))),
        };
        let op = match c {
            b'}' => ParamOp::None,
            b':' => match self.peek_at(1) {
                Some(k @ (b'-' | b'=' | b'?' | b'+')) => {
                    self.bump();
                    self.bump();
                    let word = self.read_param_word(in_dquote, in_dquote, false, false)?;
                    default_op(k, true, default_word_tilde(word, in_dquote))
                }
                _ => {
                    self.bump();
                    let offset = self.read_arith_until(true)?;
                    let length = if self.peek() == Some(b':') {
                        self.bump();
                        Some(self.read_arith_until(false)?)
                    } else {
                        None
                    };
                    ParamOp::Substring { offset, length }
                }
            },
            b'-' | b'=' | b'?' | b'+' => {
                self.bump();
                let word = self.read_param_word(in_dquote, in_dquote, false, false)?;
                default_op(c, false, default_word_tilde(word, in_dquote))
            }
            b'#' | b'%' => {
                self.bump();
                let longest = self.peek() == Some(c);
                if longest {
                    self.bump();
                }
                // A pattern's leading `~` expands even inside double quotes, as in bash.
                let pattern = passes::tilde_pass(self.read_param_word(in_dquote, false, false, true)?, false);
                if c == b'#' {
                    ParamOp::RemovePrefix { longest, pattern }
                } else {
                    ParamOp::RemoveSuffix { longest, pattern }
                }
            }
            b'/' => {
                self.bump();
                let mode = match self.peek() {
                    Some(b'/') => ReplaceMode::All,
                    Some(b'#') => ReplaceMode::Prefix,
                    Some(b'%') => ReplaceMode::Suffix,
                    _ => ReplaceMode::First,
                };
                if mode != ReplaceMode::First {
                    self.bump();
                }
                let pattern = passes::tilde_pass(self.read_param_word(in_dquote, false, true, true)?, false);
                let replacement = if self.peek() == Some(b'/') {
                    self.bump();
                    Some(passes::tilde_pass(self.read_replacement_word(in_dquote)?, false))
                } else {
                    None
                };
                ParamOp::Replace { mode, pattern, replacement }
            }
            b'^' | b',' | b'~' => {
                self.bump();
                let all = self.peek() == Some(c);
                if all {
                    self.bump();
                }
                let mode = match c {
                    b'^' => CaseMode::Upper,
                    b',' => CaseMode::Lower,
                    _ => CaseMode::Toggle,
                };
                let pattern = if self.peek() == Some(b'}') { None } else { Some(self.read_param_word(in_dquote, false, false, true)?) };
                ParamOp::Case { mode, all, pattern }
            }
            b'@' => match self.peek_at(1) {
                Some(t @ (b'Q' | b'E' | b'P' | b'A' | b'K' | b'a' | b'k' | b'u' | b'U' | b'L')) if self.peek_at(2) == Some(b'}') => {
                    self.bump();
                    self.bump();
                    ParamOp::Transform(t as char)
                }
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        Ok(Some(op))
    }

    /// The word inside `${x…word}` up to the closing `}` (or `/` for a replacement
    /// pattern). In double quotes, single quotes are plain characters for the `-=?+`
    /// operators (`sq_literal`), and a backslash quotes any character in patterns and
    /// replacements (`pattern`), as in bash.
    fn read_param_word(&mut self, in_dquote: bool, sq_literal: bool, stop_at_slash: bool, pattern: bool) -> Result<Word, ParseError> {
        let mut parts = Vec::new();
        let mut literal = Vec::new();
        let mut depth = 0usize;
        loop {
            let c = match self.peek() {
                Some(c) => c,
                None => return Err(self.error(ErrorKind::Unmatched('}'))),
            };
            match c {
                b'}' if depth == 0 => break,
                b'/' if stop_at_slash && depth == 0 => break,
                b'{' | b'}' => {
                    if c == b'{' {
                        depth += 1;
                    } else {
                        depth -= 1;
                    }
                    literal.push(c);
                    self.bump();
                }
                b'\\' if in_dquote => match self.peek_at(1) {
                    // `\/` escapes the pattern's delimiter even inside double quotes.
                    Some(b'/') if stop_at_slash => {
                        flush_literal(&mut literal, &mut parts);
                        parts.push(WordPart::Quoted("/".to_string()));
                        self.bump();
                        self.bump();
                    }
                    Some(next @ (b'$' | b'`' | b'"' | b'\\' | b'}')) => {
                        flush_literal(&mut literal, &mut parts);
                        parts.push(WordPart::Quoted((next as char).to_string()));
                        self.bump();
                        self.bump();
                    }
                    Some(b'\n') => {
                        self.bump();
                        self.bump();
                    }
                    Some(_) if pattern => {
                        // `"${x//\./,}"`: the backslash quotes the character.
                        flush_literal(&mut literal, &mut parts);
                        self.bump();
                        let start = self.pos;
                        let width = super::words::utf8_len(self.src[start]).min(self.src.len() - start);
                        self.pos += width;
                        parts.push(WordPart::Quoted(String::from_utf8_lossy(&self.src[start..start + width]).into_owned()));
                    }
                    _ => {
                        flush_literal(&mut literal, &mut parts);
                        parts.push(WordPart::Quoted("\\".to_string()));
                        self.bump();
                    }
                },
                b'\'' if sq_literal => {
                    literal.push(c);
                    self.bump();
                }
                b'$' => {
                    flush_literal(&mut literal, &mut parts);
                    // bash 5.2 decodes `$'…'` (and takes `$"…"`) inside `${…}` even between
                    // double quotes.
                    let quoted = matches!(self.peek_at(1), Some(b'\'' | b'"'));
                    parts.push(self.parse_dollar(in_dquote && !quoted)?);
                }
                b'`' => {
                    flush_literal(&mut literal, &mut parts);
                    parts.push(self.parse_backquote(in_dquote)?);
                }
                b'\\' | b'\'' | b'"' => {
                    flush_literal(&mut literal, &mut parts);
                    parts.push(self.read_word_part()?);
                }
                _ => {
                    literal.push(c);
                    self.bump();
                }
            }
        }
        flush_literal(&mut literal, &mut parts);
        Ok(Word { parts: super::words::merge_literals(parts) })
    }

    /// The replacement of `${x/p/r}`: a backslash quotes the next character even inside
    /// double quotes (`\&` is a literal ampersand, not the match).
    fn read_replacement_word(&mut self, in_dquote: bool) -> Result<Word, ParseError> {
        self.read_param_word(in_dquote, false, false, true)
    }

    /// The offset or length of `${x:offset:length}`, up to `:` (when `stop_at_colon`) or
    /// `}` outside brackets.
    fn read_arith_until(&mut self, stop_at_colon: bool) -> Result<Arith, ParseError> {
        let start = self.pos;
        let mut depth = 0usize;
        let mut ternary = 0usize;
        loop {
            match self.peek() {
                None => return Err(self.error(ErrorKind::Unmatched('}'))),
                Some(b'}') if depth == 0 => break,
                Some(b':') if depth == 0 && stop_at_colon && ternary == 0 => break,
                Some(b':') if depth == 0 && ternary > 0 => ternary -= 1,
                Some(b'?') if depth == 0 => ternary += 1,
                Some(b'(' | b'[' | b'{') => depth += 1,
                Some(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
                Some(b'\\') => {
                    self.bump();
                }
                _ => {}
            }
            self.bump();
        }
        let text = self.text(start, self.pos);
        self.arith_from_text(&text)
    }
}

/// The word of `${x-word}` and friends gets tilde expansion when it is not quoted.
fn default_word_tilde(word: Word, in_dquote: bool) -> Word {
    if in_dquote {
        word
    } else {
        passes::tilde_pass(word, false)
    }
}

fn default_op(kind: u8, colon: bool, word: Word) -> ParamOp {
    match kind {
        b'-' => ParamOp::Default { colon, word },
        b'=' => ParamOp::Assign { colon, word },
        b'?' => ParamOp::Error { colon, word },
        _ => ParamOp::Alternate { colon, word },
    }
}

fn simple_param(param: Param) -> WordPart {
    WordPart::Param(Box::new(ParamExpansion { param, op: ParamOp::None, indirect: false, short: true }))
}

fn param_part(param: Param, op: ParamOp, indirect: bool) -> WordPart {
    WordPart::Param(Box::new(ParamExpansion { param, op, indirect, short: false }))
}
