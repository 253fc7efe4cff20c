//! A recursive-descent parser for bash, working directly on the source bytes (bash's
//! tokenization depends on context: reserved words only in command position, `[[ ]]`
//! operators, case patterns, here-documents read after the line that names them).
//!
//! Input is consumed one complete command (a line, with everything it continues onto) at a
//! time with [`Parser::next_command`], as bash does: aliases defined by one line apply to
//! the next, and a syntax error on line 5 comes after lines 1–4 have run.
//!
//! Every loop consumes input or ends, and nesting is bounded, so arbitrary input never
//! hangs or overflows the stack.

mod assign;
mod commands;
mod compound;
mod cond;
mod dollar;
mod passes;
mod redirect;
mod words;

pub(crate) use words::Embedded;
pub use passes::tilde_pass;
pub use words::ansi_c_unescape;

use std::rc::Rc;

use crate::ast::*;
use crate::error::{ErrorKind, ParseError};

/// Looks up an alias by name (the shell's alias table), for alias expansion at parse time.
pub type AliasLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Nesting bound: deeper input is a syntax error rather than a stack overflow.
const MAX_DEPTH: u32 = 150;

/// How many alias substitutions one command may trigger (guards against `alias a='a a'`
/// style growth; recursion on the same name is already prevented).
const MAX_ALIAS_EXPANSIONS: u32 = 1000;

const RESERVED: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "select", "function", "in",
    "time", "{", "}", "!", "[[", "]]", "coproc",
];

pub struct Parser<'a> {
    src: Vec<u8>,
    pos: usize,
    line: u32,
    heredocs: Vec<Rc<HereDoc>>,
    aliases: Option<AliasLookup<'a>>,
    depth: u32,
    /// Aliases being expanded and where their text ends (no recursion into the same name).
    active_aliases: Vec<(String, usize)>,
    alias_expansions: u32,
    /// The previous alias ended in a blank: the word starting at or after this position
    /// (past the alias's text) is checked for aliases too.
    alias_next_word: Option<usize>,
    /// Where the last `[[ ]]` token started (bash names that line in its messages).
    cond_token_line: u32,
    /// The newline bash's reader supplies after an unterminated last line was given.
    eof_newline_given: bool,
}

impl<'a> Parser<'a> {
    pub fn new(source: &str) -> Parser<'a> {
        Parser {
            src: source.as_bytes().to_vec(),
            pos: 0,
            line: 1,
            heredocs: Vec::new(),
            aliases: None,
            depth: 0,
            active_aliases: Vec::new(),
            alias_expansions: 0,
            cond_token_line: 1,
            eof_newline_given: false,
            alias_next_word: None,
        }
    }

    /// A parser that expands aliases through `lookup` (bash's `expand_aliases`).
    pub fn with_aliases(source: &str, lookup: AliasLookup<'a>) -> Parser<'a> {
        let mut parser = Parser::new(source);
        parser.aliases = Some(lookup);
        parser
    }

    /// Numbers lines from `line` (for code that starts inside a larger file).
    pub fn set_line(&mut self, line: u32) {
        self.line = line;
    }

    pub fn line(&self) -> u32 {
        self.line
    }

    /// The next complete command (a line's worth), or `None` at the end of the input.
    pub fn next_command(&mut self) -> Result<Option<List>, ParseError> {
        self.alias_expansions = 0;
        loop {
            self.skip_blanks();
            self.skip_comment();
            match self.peek() {
                None => {
                    self.read_heredoc_bodies()?;
                    return Ok(None);
                }
                Some(b'\n') => {
                    self.bump();
                    self.read_heredoc_bodies()?;
                }
                Some(_) => break,
            }
        }
        let list = self.parse_line_list()?;
        self.skip_blanks();
        self.skip_comment();
        match self.peek() {
            None => self.read_heredoc_bodies()?,
            Some(b'\n') => {
                self.bump();
                self.read_heredoc_bodies()?;
            }
            Some(_) => return Err(self.unexpected_token()),
        }
        Ok(Some(list))
    }

    /// Parses the whole input as one list (for `$( )` bodies given as text, tests and
    /// restoring functions).
    pub fn parse_program(&mut self) -> Result<List, ParseError> {
        let mut list = List::default();
        while let Some(command) = self.next_command()? {
            list.items.extend(command.items);
        }
        Ok(list)
    }

    // ---- character level -------------------------------------------------------------

    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.src.get(self.pos + offset).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        if c == b'\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn starts_with(&self, text: &[u8]) -> bool {
        self.src[self.pos..].starts_with(text)
    }

    fn eat(&mut self, text: &[u8]) -> bool {
        if self.starts_with(text) {
            for _ in 0..text.len() {
                self.bump();
            }
            true
        } else {
            false
        }
    }

    fn text(&self, start: usize, end: usize) -> String {
        String::from_utf8_lossy(&self.src[start..end]).into_owned()
    }

    /// Skips spaces, tabs and backslash-newline continuations.
    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(b' ') | Some(b'\t') => {
                    self.bump();
                }
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => {
                    self.bump();
                    self.bump();
                }
                _ => return,
            }
        }
    }

    fn skip_comment(&mut self) {
        if self.peek() == Some(b'#') {
            while let Some(c) = self.peek() {
                if c == b'\n' {
                    break;
                }
                self.bump();
            }
        }
    }

    /// Skips blanks, comments and newlines (reading here-document bodies at each newline).
    fn skip_linebreaks(&mut self) -> Result<(), ParseError> {
        loop {
            self.skip_blanks();
            self.skip_comment();
            if self.peek() == Some(b'\n') {
                self.bump();
                self.read_heredoc_bodies()?;
            } else {
                return Ok(());
            }
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(ErrorKind::TooDeep));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ---- errors ------------------------------------------------------------------------

    /// An error reported at `line` (where an unterminated quote started).
    fn error_at(&self, kind: ErrorKind, line: u32) -> ParseError {
        let mut error = self.error(kind);
        error.line = line;
        error
    }

    fn error(&self, kind: ErrorKind) -> ParseError {
        if kind == ErrorKind::UnexpectedEof && self.pos >= self.src.len() && self.src.last() != Some(&b'\n') {
            // Bash counts an unterminated last line as a line before the end.
            let mut error = self.error_inner(kind);
            error.line += 1;
            return error;
        }
        self.error_inner(kind)
    }

    fn error_inner(&self, kind: ErrorKind) -> ParseError {
        let start = self.src[..self.pos.min(self.src.len())].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
        let end = self.src[start..].iter().position(|&c| c == b'\n').map_or(self.src.len(), |i| start + i);
        ParseError { line: self.line, kind, source_line: self.text(start, end) }
    }

    /// `syntax error near unexpected token` naming what comes next (or end of file).
    fn unexpected_token(&self) -> ParseError {
        match self.peek_token_text() {
            Some(token) => self.error(ErrorKind::UnexpectedToken(token)),
            None => self.error(ErrorKind::UnexpectedEof),
        }
    }

    fn peek_token_text(&self) -> Option<String> {
        let rest = &self.src[self.pos..];
        if rest.is_empty() {
            return None;
        }
        const OPS: &[&str] = &[
            ";;&", ";;", ";&", "&&", "||", "|&", "&>>", "&>", "<<<", "<<-", "<<", ">>", "<&", ">&", "<>", ">|", ";", "&",
            "|", "(", ")", "<", ">",
        ];
        for op in OPS {
            if rest.starts_with(op.as_bytes()) {
                return Some(op.to_string());
            }
        }
        if rest[0] == b'\n' {
            return Some("newline".to_string());
        }
        let end = rest.iter().position(|&c| is_meta(c)).unwrap_or(rest.len()).max(1);
        Some(String::from_utf8_lossy(&rest[..end]).into_owned())
    }

    // ---- reserved words and aliases -----------------------------------------------------

    /// The reserved word at the current position, if the next token is one.
    fn peek_reserved(&self) -> Option<&'static str> {
        let rest = &self.src[self.pos..];
        let end = rest.iter().position(|&c| is_meta(c) || matches!(c, b'\'' | b'"' | b'\\' | b'$' | b'`')).unwrap_or(rest.len());
        if end < rest.len() && !is_meta(rest[end]) {
            return None;
        }
        let word = &rest[..end];
        RESERVED.iter().copied().find(|r| r.as_bytes() == word)
    }

    fn at_reserved(&self, word: &str) -> bool {
        self.peek_reserved() == Some(word)
    }

    fn eat_reserved(&mut self, word: &str) -> bool {
        if self.at_reserved(word) {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    fn expect_reserved(&mut self, word: &str) -> Result<(), ParseError> {
        self.skip_blanks();
        if self.eat_reserved(word) {
            Ok(())
        } else {
            Err(self.unexpected_token())
        }
    }

    /// Replaces an alias name at the current position by its value, when aliases are on
    /// and the next word is an unquoted alias name not already being expanded.
    fn expand_alias(&mut self) {
        let lookup = match self.aliases {
            Some(lookup) => lookup,
            None => return,
        };
        while let Some(&(_, end)) = self.active_aliases.last() {
            if self.pos >= end {
                self.active_aliases.pop();
            } else {
                break;
            }
        }
        if self.alias_expansions >= MAX_ALIAS_EXPANSIONS {
            return;
        }
        let rest = &self.src[self.pos..];
        let end = rest.iter().position(|&c| is_meta(c)).unwrap_or(rest.len());
        let word = &rest[..end];
        if word.is_empty() || word.iter().any(|c| matches!(c, b'\'' | b'"' | b'\\' | b'$' | b'`' | b'=')) {
            return;
        }
        let name = String::from_utf8_lossy(word).into_owned();
        if self.active_aliases.iter().any(|(active, _)| *active == name) {
            return;
        }
        let value = match lookup(&name) {
            Some(value) => value,
            None => return,
        };
        self.alias_expansions += 1;
        let start = self.pos;
        self.alias_next_word = if value.ends_with(' ') || value.ends_with('\t') { Some(start + value.len()) } else { None };
        self.src.splice(start..start + end, value.bytes());
        let new_end = start + value.len();
        for (_, active_end) in self.active_aliases.iter_mut() {
            *active_end = (*active_end + value.len()).saturating_sub(end);
        }
        self.active_aliases.push((name, new_end));
    }
}

/// Bash's metacharacters: they end a word when unquoted.
pub(crate) fn is_meta(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>')
}

/// A valid variable name.
pub fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests;
