//! The conditional command `[[ ]]`: its own tokens (words, operators, parentheses),
//! `||` over `&&` over `!` and terms, and the regex word after `=~`, with bash's syntax
//! errors.

use super::words::merge_literals;
use super::{is_meta, passes, Parser};
use crate::ast::*;
use crate::error::{ErrorKind, ParseError};

impl<'a> Parser<'a> {
    pub(super) fn parse_cond(&mut self) -> Result<CompoundCommand, ParseError> {
        let line = self.line;
        self.expect_reserved("[[")?;
        let (expr, next) = self.cond_or()?;
        match next {
            CondToken::End => Ok(CompoundCommand::Cond(CondCommand { expr, line })),
            CondToken::Eof => Err(self.cond_fail(line, "unexpected EOF while looking for `]]'".to_string())),
            other => Err(self.cond_fail(
                line,
                match other.text() {
                    Some(text) if !matches!(other, CondToken::Word(_)) => format!("syntax error in conditional expression: unexpected token `{}'", text),
                    _ => "syntax error in conditional expression".to_string(),
                },
            )),
        }
    }

    /// The next token inside `[[ ]]` (bash's `read_token` in conditional mode). Newlines
    /// are tokens: only some places skip them.
    fn cond_token(&mut self) -> Result<CondToken, ParseError> {
        self.skip_blanks();
        self.cond_token_line = self.line;
        if self.pos >= self.src.len() && !self.eof_newline_given && self.src.last().map_or(false, |&c| c != b'\n') {
            // bash's reader ends an unterminated last line with a newline, then EOF.
            self.eof_newline_given = true;
            self.line += 1;
            return Ok(CondToken::Newline);
        }
        if self.eat_reserved("]]") {
            return Ok(CondToken::End);
        }
        let two = (self.peek(), self.peek_at(1));
        let token = match two {
            (None, _) => CondToken::Eof,
            (Some(b'\n'), _) => CondToken::Newline,
            (Some(b'&'), Some(b'&')) => CondToken::AndAnd,
            (Some(b'|'), Some(b'|')) => CondToken::OrOr,
            (Some(b'('), _) => CondToken::Open,
            (Some(b')'), _) => CondToken::Close,
            (Some(c @ (b'<' | b'>')), next) if next != Some(b'(') => CondToken::Other((c as char).to_string()),
            (Some(c), _) if is_meta(c) => {
                let text = self.peek_token_text().unwrap_or_default();
                self.pos += text.len();
                return Ok(CondToken::Other(text));
            }
            _ => {
                return match self.read_word()? {
                    Some(word) => Ok(CondToken::Word(passes::tilde_pass(word, false))),
                    None => Ok(CondToken::Other(self.peek_token_text().unwrap_or_default())),
                };
            }
        };
        let width = match token {
            CondToken::AndAnd | CondToken::OrOr => 2,
            CondToken::Eof => 0,
            _ => 1,
        };
        for _ in 0..width {
            self.bump();
        }
        Ok(token)
    }

    /// The next token after any newlines (bash's `cond_skip_newlines`).
    fn cond_token_skipping_newlines(&mut self) -> Result<CondToken, ParseError> {
        loop {
            match self.cond_token()? {
                CondToken::Newline => continue,
                token => return Ok(token),
            }
        }
    }

    /// A conditional-expression error with bash's message, at `line`.
    fn cond_fail(&self, line: u32, message: String) -> ParseError {
        let mut error = self.error(ErrorKind::Conditional(vec![(line, message)]));
        error.line = line;
        error
    }

    /// `term || term ...`, and the token after it.
    fn cond_or(&mut self) -> Result<(CondExpr, CondToken), ParseError> {
        self.enter()?;
        let (left, next) = self.cond_and()?;
        let result = if next == CondToken::OrOr {
            let (right, after) = self.cond_or()?;
            (CondExpr::Or(Box::new(left), Box::new(right)), after)
        } else {
            (left, next)
        };
        self.leave();
        Ok(result)
    }

    fn cond_and(&mut self) -> Result<(CondExpr, CondToken), ParseError> {
        let (left, next) = self.cond_term()?;
        if next == CondToken::AndAnd {
            let (right, after) = self.cond_and()?;
            return Ok((CondExpr::And(Box::new(left), Box::new(right)), after));
        }
        Ok((left, next))
    }

    /// One term (bash's `cond_term`), with the messages bash gives for each malformed one;
    /// a term that is missing altogether (`[[ ]]`, `[[ ! ]]`) is an error without one.
    fn cond_term(&mut self) -> Result<(CondExpr, CondToken), ParseError> {
        let line = self.line;
        match self.cond_token_skipping_newlines()? {
            CondToken::End => Err(self.error(ErrorKind::Conditional(Vec::new()))),
            CondToken::Open => {
                self.enter()?;
                let inner = self.cond_or();
                self.leave();
                let (inner, next) = match inner {
                    Ok((inner, CondToken::Close)) => (inner, CondToken::Close),
                    Ok((_, next)) => {
                        let message = match next.text() {
                            Some(text) if !matches!(next, CondToken::Word(_)) => format!("unexpected token `{}', expected `)'", text),
                            _ => "expected `)'".to_string(),
                        };
                        return Err(self.cond_fail(line, message));
                    }
                    Err(mut error) => {
                        // bash reports the inner error, then the missing `)`.
                        if let ErrorKind::Conditional(messages) = &mut error.kind {
                            messages.push((line, "expected `)'".to_string()));
                        }
                        return Err(error);
                    }
                };
                let _ = next;
                Ok((inner, self.cond_token_skipping_newlines()?))
            }
            CondToken::Word(word) if word.as_unquoted_literal() == Some("!") => {
                self.enter()?;
                let inner = self.cond_term();
                self.leave();
                let (inner, next) = inner?;
                Ok((CondExpr::Not(Box::new(inner)), next))
            }
            CondToken::Word(word) if word.as_unquoted_literal().map_or(false, is_unary_cond_op) => {
                let op = word.as_unquoted_literal().unwrap_or_default().to_string();
                match self.cond_token()? {
                    CondToken::Word(operand) => Ok((CondExpr::Unary(op, operand), self.cond_token_skipping_newlines()?)),
                    other => Err(self.cond_fail(self.cond_token_line, argument_message(&other, "unary"))),
                }
            }
            CondToken::Word(first) => self.cond_binary(first),
            other => {
                let text = other.text().unwrap_or_default();
                Err(self.cond_fail(self.cond_token_line, format!("unexpected token `{}' in conditional command", text)))
            }
        }
    }

    /// After a term's first word: its operator and second word, or the word alone.
    fn cond_binary(&mut self, first: Word) -> Result<(CondExpr, CondToken), ParseError> {
        let op = match self.cond_token()? {
            CondToken::Word(op) if op.as_unquoted_literal().map_or(false, is_binary_cond_op) => op.as_unquoted_literal().unwrap_or_default().to_string(),
            CondToken::Other(op) if op == "<" || op == ">" => op,
            // `[[ word ]]` is `[[ -n word ]]`, as for test.
            next @ (CondToken::End | CondToken::AndAnd | CondToken::OrOr | CondToken::Close) => return Ok((CondExpr::Word(first), next)),
            CondToken::Word(_) | CondToken::Eof => return Err(self.cond_fail(self.cond_token_line, "conditional binary operator expected".to_string())),
            other => {
                let text = other.text().unwrap_or_default();
                return Err(self.cond_fail(self.cond_token_line, format!("unexpected token `{}', conditional binary operator expected", text)));
            }
        };
        let second = if op == "=~" {
            self.skip_blanks();
            if self.at_reserved("]]") || matches!(self.peek(), None | Some(b'\n')) {
                let next = self.cond_token()?;
                return Err(self.cond_fail(self.cond_token_line, argument_message(&next, "binary")));
            }
            self.cond_regex_word()?
        } else {
            match self.cond_token()? {
                CondToken::Word(word) => word,
                other => return Err(self.cond_fail(self.cond_token_line, argument_message(&other, "binary"))),
            }
        };
        let expr = match op.as_str() {
            "=~" => CondExpr::Regex(first, second),
            "==" | "=" | "!=" => CondExpr::Pattern { subject: first, pattern: second, negated: op == "!=" },
            _ => CondExpr::Binary(first, op, second),
        };
        Ok((expr, self.cond_token_skipping_newlines()?))
    }

    /// The right side of `=~`: up to a blank outside parentheses, so `(a|b)` and `x{2}`
    /// need no quoting.
    fn cond_regex_word(&mut self) -> Result<Word, ParseError> {
        let mut parts = Vec::new();
        let mut depth = 0usize;
        let mut literal = Vec::new();
        loop {
            let c = match self.peek() {
                Some(c) => c,
                None => break,
            };
            if depth == 0 && matches!(c, b' ' | b'\t' | b'\n') {
                break;
            }
            if depth == 0 && (c == b'&' && self.peek_at(1) == Some(b'&') || c == b'|' && self.peek_at(1) == Some(b'|')) {
                break;
            }
            match c {
                b'(' => {
                    depth += 1;
                    literal.push(c);
                    self.bump();
                }
                b')' if depth > 0 => {
                    depth -= 1;
                    literal.push(c);
                    self.bump();
                }
                b')' => break,
                b'|' | b'<' | b'>' | b';' | b'&' if depth > 0 || c == b'|' => {
                    literal.push(c);
                    self.bump();
                }
                _ if is_meta(c) => break,
                b'\\' | b'\'' | b'"' | b'$' | b'`' => {
                    if !literal.is_empty() {
                        parts.push(WordPart::Literal(String::from_utf8_lossy(&literal).into_owned()));
                        literal.clear();
                    }
                    parts.push(self.read_word_part()?);
                }
                _ => {
                    literal.push(c);
                    self.bump();
                }
            }
        }
        if !literal.is_empty() {
            parts.push(WordPart::Literal(String::from_utf8_lossy(&literal).into_owned()));
        }
        if parts.is_empty() {
            let next = self.cond_token()?;
            return Err(self.cond_fail(self.cond_token_line, argument_message(&next, "binary")));
        }
        Ok(Word { parts: merge_literals(parts) })
    }
}

/// A token inside `[[ ]]`.
#[derive(Debug, Clone, PartialEq)]
enum CondToken {
    /// `]]`
    End,
    AndAnd,
    OrOr,
    Open,
    Close,
    Newline,
    Eof,
    Word(Word),
    /// Any other operator (`;`, `|`, `<`, `>` ...), as written.
    Other(String),
}

impl CondToken {
    /// How bash names the token in a message (none for a word).
    fn text(&self) -> Option<String> {
        Some(match self {
            CondToken::End => "]]".to_string(),
            CondToken::AndAnd => "&&".to_string(),
            CondToken::OrOr => "||".to_string(),
            CondToken::Open => "(".to_string(),
            CondToken::Close => ")".to_string(),
            CondToken::Newline => "newline".to_string(),
            CondToken::Eof => "EOF".to_string(),
            CondToken::Other(text) => text.clone(),
            CondToken::Word(_) => return None,
        })
    }
}

/// "unexpected argument `X' to conditional unary|binary operator".
fn argument_message(token: &CondToken, kind: &str) -> String {
    match token {
        CondToken::Word(_) => format!("unexpected argument to conditional {} operator", kind),
        other => format!("unexpected argument `{}' to conditional {} operator", other.text().unwrap_or_default(), kind),
    }
}

fn is_binary_cond_op(op: &str) -> bool {
    matches!(op, "==" | "=" | "!=" | "=~" | "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" | "-nt" | "-ot" | "-ef")
}

fn is_unary_cond_op(op: &str) -> bool {
    matches!(
        op,
        "-a" | "-b" | "-c" | "-d" | "-e" | "-f" | "-g" | "-h" | "-k" | "-p" | "-r" | "-s" | "-t" | "-u" | "-w" | "-x" | "-G"
            | "-L" | "-N" | "-O" | "-S" | "-z" | "-n" | "-o" | "-v" | "-R"
    )
}
