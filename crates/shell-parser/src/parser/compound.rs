//! Compound commands: `if`, loops, `case`, groups, `(( ))` and function definitions
//! (`[[ ]]` has its own grammar, in cond.rs).

use std::rc::Rc;

use super::{is_meta, passes, Parser};
use crate::arith::parse_arith;
use crate::ast::*;
use crate::error::{ErrorKind, ParseError};

impl<'a> Parser<'a> {
    pub(super) fn parse_if(&mut self) -> Result<CompoundCommand, ParseError> {
        let line = self.line;
        self.expect_reserved("if")?;
        let mut branches = Vec::new();
        let mut else_body = None;
        loop {
            let cond = self.parse_compound_list(false)?;
            self.expect_reserved("then")?;
            let body = self.parse_compound_list(false)?;
            branches.push((cond, body));
            self.skip_blanks();
            if self.eat_reserved("elif") {
                continue;
            }
            if self.eat_reserved("else") {
                else_body = Some(self.parse_compound_list(false)?);
                self.expect_reserved("fi")?;
                break;
            }
            self.expect_reserved("fi")?;
            break;
        }
        Ok(CompoundCommand::If(IfCommand { branches, else_body, line }))
    }

    pub(super) fn parse_while(&mut self, until: bool) -> Result<CompoundCommand, ParseError> {
        let line = self.line;
        self.expect_reserved(if until { "until" } else { "while" })?;
        let cond = self.parse_compound_list(false)?;
        let body = self.parse_do_group()?;
        Ok(CompoundCommand::While(WhileCommand { until, cond, body, line }))
    }

    /// `do list done` (or `{ list }`, which bash accepts for `for` and `select`).
    fn parse_do_group(&mut self) -> Result<List, ParseError> {
        self.skip_blanks();
        if self.eat_reserved("{") {
            let body = self.parse_compound_list(false)?;
            self.expect_reserved("}")?;
            return Ok(body);
        }
        self.expect_reserved("do")?;
        let body = self.parse_compound_list(false)?;
        self.expect_reserved("done")?;
        Ok(body)
    }

    pub(super) fn parse_for(&mut self, select: bool) -> Result<CompoundCommand, ParseError> {
        let line = self.line;
        self.expect_reserved(if select { "select" } else { "for" })?;
        self.skip_blanks();
        if !select && self.starts_with(b"((") {
            return self.parse_arith_for(line);
        }
        // The name as written: bash checks it when the loop runs (status 1, not a syntax
        // error), so `for 1x in ...` or `for "x" in ...` parse.
        let start = self.pos;
        let var = match self.read_word()? {
            Some(_) => self.text(start, self.pos),
            None => return Err(self.unexpected_token()),
        };
        self.skip_linebreaks()?;
        let mut words = None;
        if self.eat_reserved("in") {
            let mut list = Vec::new();
            loop {
                self.skip_blanks();
                match self.peek() {
                    Some(b';') => {
                        self.bump();
                        break;
                    }
                    Some(b'\n') => break,
                    None => return Err(self.error(ErrorKind::UnexpectedEof)),
                    Some(b'#') => {
                        self.skip_comment();
                        continue;
                    }
                    Some(c) if is_meta(c) => return Err(self.unexpected_token()),
                    _ => {}
                }
                match self.read_word()? {
                    Some(word) => list.push(passes::brace_pass(passes::tilde_pass(word, false))),
                    None => return Err(self.unexpected_token()),
                }
            }
            words = Some(list);
        } else if self.peek() == Some(b';') {
            self.bump();
        }
        self.skip_linebreaks()?;
        let body = self.parse_do_group()?;
        let command = ForCommand { var, words, body, line };
        Ok(if select { CompoundCommand::Select(command) } else { CompoundCommand::For(command) })
    }

    fn parse_arith_for(&mut self, line: u32) -> Result<CompoundCommand, ParseError> {
        let start = self.pos + 2;
        let end = match self.find_arith_end(start) {
            Some(end) => end,
            None => return Err(self.error(ErrorKind::Unmatched(')'))),
        };
        let text = self.text(start, end);
        while self.pos < end + 2 {
            self.bump();
        }
        let mut sections = split_top_level(&text, b';');
        if sections.len() != 3 {
            return Err(self.error(ErrorKind::Message("syntax error: arithmetic expression required".to_string())));
        }
        let step = self.arith_section(sections.pop().unwrap_or_default());
        let cond = self.arith_section(sections.pop().unwrap_or_default());
        let init = self.arith_section(sections.pop().unwrap_or_default());
        self.skip_blanks();
        if self.peek() == Some(b';') {
            self.bump();
        }
        self.skip_linebreaks()?;
        let body = self.parse_do_group()?;
        Ok(CompoundCommand::ArithFor(ArithForCommand { text, init: init?, cond: cond?, step: step?, body, line }))
    }

    fn arith_section(&self, text: String) -> Result<Option<Arith>, ParseError> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        Ok(Some(self.arith_from_text(&text)?))
    }

    /// An arithmetic expression from its text: parsed now unless it holds expansions or
    /// does not parse (both are left for run time, as bash only parses after expanding).
    pub(super) fn arith_from_text(&self, text: &str) -> Result<Arith, ParseError> {
        let has_expansion = text.bytes().any(|c| matches!(c, b'$' | b'`' | b'"' | b'\'' | b'\\'));
        if !has_expansion {
            if let Ok(arith) = parse_arith(text) {
                return Ok(arith);
            }
        }
        let mut sub = self.sub_parser(text);
        let parts = sub.read_embedded(super::words::Embedded::Arith)?;
        Ok(Arith::Dynamic(Word { parts }))
    }

    pub(super) fn parse_case(&mut self) -> Result<CompoundCommand, ParseError> {
        let line = self.line;
        self.expect_reserved("case")?;
        self.skip_blanks();
        let subject = match self.read_word()? {
            Some(word) => passes::tilde_pass(word, false),
            None => return Err(self.unexpected_token()),
        };
        self.skip_linebreaks()?;
        if !self.eat_reserved("in") {
            return Err(self.unexpected_token());
        }
        let mut arms = Vec::new();
        loop {
            self.skip_linebreaks()?;
            if self.eat_reserved("esac") {
                break;
            }
            if self.peek() == Some(b'(') {
                self.bump();
            }
            let mut patterns = Vec::new();
            loop {
                self.skip_blanks();
                match self.read_word()? {
                    Some(word) => patterns.push(passes::tilde_pass(word, false)),
                    None => return Err(self.unexpected_token()),
                }
                self.skip_blanks();
                if self.peek() == Some(b'|') {
                    self.bump();
                    continue;
                }
                break;
            }
            if self.peek() != Some(b')') {
                return Err(self.unexpected_token());
            }
            self.bump();
            let body = self.parse_compound_list(true)?;
            self.skip_blanks();
            let terminator = if self.eat(b";;&") {
                CaseTerminator::Continue
            } else if self.eat(b";;") {
                CaseTerminator::Break
            } else if self.eat(b";&") {
                CaseTerminator::FallThrough
            } else if self.at_reserved("esac") {
                CaseTerminator::Break
            } else {
                return Err(self.unexpected_token());
            };
            arms.push(CaseArm { patterns, body, terminator });
        }
        Ok(CompoundCommand::Case(CaseCommand { subject, arms, line }))
    }

    pub(super) fn parse_brace_group(&mut self) -> Result<CompoundCommand, ParseError> {
        self.expect_reserved("{")?;
        let body = self.parse_compound_list(false)?;
        self.expect_reserved("}")?;
        Ok(CompoundCommand::Brace(body))
    }

    pub(super) fn parse_subshell(&mut self) -> Result<CompoundCommand, ParseError> {
        self.bump();
        let body = self.parse_compound_list(false)?;
        self.skip_blanks();
        if self.peek() != Some(b')') {
            return Err(self.unexpected_token());
        }
        self.bump();
        Ok(CompoundCommand::Subshell(body))
    }

    /// `(( expr ))` when the parentheses close as `))`; otherwise `None` (a subshell in a
    /// subshell, like `((cd a); ls)`).
    pub(super) fn try_parse_arith_command(&mut self) -> Result<Option<CompoundCommand>, ParseError> {
        let line = self.line;
        let start = self.pos + 2;
        let end = match self.find_arith_end(start) {
            Some(end) => end,
            None => return Ok(None),
        };
        let text = self.text(start, end);
        while self.pos < end + 2 {
            self.bump();
        }
        let expr = self.arith_from_text(&text)?;
        Ok(Some(CompoundCommand::Arith(ArithCommand { expr, text, line })))
    }

    /// For `((` / `$((` at `start` (just inside): the index of the first `)` of the
    /// closing `))`, when the parentheses balance that way.
    pub(super) fn find_arith_end(&self, start: usize) -> Option<usize> {
        let src = &self.src;
        let mut depth = 0usize;
        let mut i = start;
        while i < src.len() {
            match src[i] {
                b'\\' => i += 1,
                b'\'' => {
                    i += 1;
                    while i < src.len() && src[i] != b'\'' {
                        i += 1;
                    }
                }
                b'"' => {
                    i += 1;
                    while i < src.len() && src[i] != b'"' {
                        if src[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                b'(' => depth += 1,
                b')' => {
                    if depth == 0 {
                        return if src.get(i + 1) == Some(&b')') { Some(i) } else { None };
                    }
                    depth -= 1;
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    pub(super) fn parse_function_keyword(&mut self) -> Result<Command, ParseError> {
        let line = self.line;
        self.expect_reserved("function")?;
        self.skip_blanks();
        let name = match self.read_word()? {
            Some(word) => match word.as_static() {
                Some(name) => name,
                None => return Err(self.unexpected_token()),
            },
            None => return Err(self.unexpected_token()),
        };
        self.skip_blanks();
        if self.peek() == Some(b'(') {
            return self.parse_function_body(name, true, line);
        }
        self.function_from_body(name, true, line)
    }

    /// After `name` with the `(` next: `()`, then the body.
    pub(super) fn parse_function_body(&mut self, name: String, keyword: bool, line: u32) -> Result<Command, ParseError> {
        self.bump();
        self.skip_blanks();
        if self.peek() != Some(b')') {
            return Err(self.unexpected_token());
        }
        self.bump();
        self.function_from_body(name, keyword, line)
    }

    fn function_from_body(&mut self, name: String, keyword: bool, line: u32) -> Result<Command, ParseError> {
        self.skip_linebreaks()?;
        match self.parse_command()? {
            Command::Compound(body, redirects) => {
                Ok(Command::Function(Rc::new(FunctionDef { name, body: *body, redirects, keyword, line })))
            }
            _ => Err(self.error(ErrorKind::Message(format!("syntax error: `{}': function body must be a compound command", name)))),
        }
    }
}

/// Splits `text` at `sep` outside parentheses and quotes (the sections of `for ((;;))`).
fn split_top_level(text: &str, sep: u8) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut quote: Option<u8> = None;
    for (i, &c) in bytes.iter().enumerate() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            b'\'' | b'"' => quote = Some(c),
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ if c == sep && depth == 0 => {
                out.push(String::from_utf8_lossy(&bytes[start..i]).into_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(String::from_utf8_lossy(&bytes[start..]).into_owned());
    out
}
