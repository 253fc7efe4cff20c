//! Compound commands: `if`, loops, `case`, groups, `(( ))`, `[[ ]]` and function
//! definitions.

use std::rc::Rc;

use super::{is_meta, is_name, passes, Parser};
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
        let var = match self.read_word()?.as_ref().and_then(|w| w.as_unquoted_literal()) {
            Some(name) if is_name(name) => name.to_string(),
            Some(name) => return Err(self.error(ErrorKind::Message(format!("`{}': not a valid identifier", name)))),
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

    // ---- [[ ]] ---------------------------------------------------------------------------

    pub(super) fn parse_cond(&mut self) -> Result<CompoundCommand, ParseError> {
        let line = self.line;
        self.expect_reserved("[[")?;
        let expr = self.cond_or()?;
        self.cond_skip();
        if !self.eat_reserved("]]") {
            return Err(self.cond_error());
        }
        Ok(CompoundCommand::Cond(CondCommand { expr, line }))
    }

    fn cond_skip(&mut self) {
        loop {
            self.skip_blanks();
            if self.peek() == Some(b'\n') {
                self.bump();
            } else {
                return;
            }
        }
    }

    fn cond_error(&self) -> ParseError {
        match self.peek_token_text() {
            Some(token) => self.error(ErrorKind::UnexpectedToken(token)),
            None => self.error(ErrorKind::UnexpectedEof),
        }
    }

    fn cond_or(&mut self) -> Result<CondExpr, ParseError> {
        self.enter()?;
        let mut left = self.cond_and()?;
        loop {
            self.cond_skip();
            if !self.eat(b"||") {
                break;
            }
            let right = self.cond_and()?;
            left = CondExpr::Or(Box::new(left), Box::new(right));
        }
        self.leave();
        Ok(left)
    }

    fn cond_and(&mut self) -> Result<CondExpr, ParseError> {
        let mut left = self.cond_not()?;
        loop {
            self.cond_skip();
            if !self.eat(b"&&") {
                break;
            }
            let right = self.cond_not()?;
            left = CondExpr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn cond_not(&mut self) -> Result<CondExpr, ParseError> {
        self.cond_skip();
        if self.peek() == Some(b'!') && self.peek_at(1).map_or(false, |c| c == b' ' || c == b'\t' || c == b'(') {
            self.bump();
            self.enter()?;
            let inner = self.cond_not()?;
            self.leave();
            return Ok(CondExpr::Not(Box::new(inner)));
        }
        self.cond_primary()
    }

    fn cond_primary(&mut self) -> Result<CondExpr, ParseError> {
        self.cond_skip();
        if self.peek() == Some(b'(') {
            self.bump();
            let inner = self.cond_or()?;
            self.cond_skip();
            if self.peek() != Some(b')') {
                return Err(self.cond_error());
            }
            self.bump();
            return Ok(inner);
        }
        if self.at_reserved("]]") || matches!(self.peek(), None | Some(b')' | b'&' | b'|')) {
            return Err(self.cond_error());
        }
        let first = self.cond_word()?;
        if let Some(op) = first.as_unquoted_literal().filter(|op| is_unary_cond_op(op)).map(str::to_string) {
            self.cond_skip();
            let next_is_operand = !self.at_reserved("]]") && !matches!(self.peek(), None | Some(b')') | Some(b'&') | Some(b'|')) && self.peek_cond_binary_op().is_none();
            if next_is_operand {
                let operand = self.cond_word()?;
                return Ok(CondExpr::Unary(op, operand));
            }
        }
        self.cond_skip();
        let op = match self.peek_cond_binary_op() {
            Some(op) => op,
            None => return Ok(CondExpr::Word(first)),
        };
        for _ in 0..op.len() {
            self.bump();
        }
        self.cond_skip();
        match op.as_str() {
            "=~" => {
                let regex = self.cond_regex_word()?;
                Ok(CondExpr::Regex(first, regex))
            }
            "==" | "=" | "!=" => {
                let pattern = self.cond_word()?;
                Ok(CondExpr::Pattern { subject: first, pattern, negated: op == "!=" })
            }
            _ => {
                let second = self.cond_word()?;
                Ok(CondExpr::Binary(first, op, second))
            }
        }
    }

    fn peek_cond_binary_op(&self) -> Option<String> {
        let rest = &self.src[self.pos..];
        for op in ["==", "!=", "=~", "=", "<", ">"] {
            if rest.starts_with(op.as_bytes()) {
                let after = rest.get(op.len()).copied();
                if op == "<" || op == ">" || after.map_or(true, |c| c == b' ' || c == b'\t' || c == b'\n') {
                    return Some(op.to_string());
                }
            }
        }
        for op in ["-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"] {
            if rest.starts_with(op.as_bytes()) && rest.get(op.len()).map_or(true, |&c| is_meta(c)) {
                return Some(op.to_string());
            }
        }
        None
    }

    fn cond_word(&mut self) -> Result<Word, ParseError> {
        self.cond_skip();
        if matches!(self.peek(), Some(b'<' | b'>')) && self.peek_at(1) != Some(b'(') {
            let c = self.bump().unwrap_or(b'<');
            return Ok(Word::literal(&(c as char).to_string()));
        }
        match self.read_word()? {
            Some(word) => Ok(passes::tilde_pass(word, false)),
            None => Err(self.cond_error()),
        }
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
            return Err(self.cond_error());
        }
        Ok(Word { parts: merge_literals(parts) })
    }
}

fn is_unary_cond_op(op: &str) -> bool {
    matches!(
        op,
        "-a" | "-b" | "-c" | "-d" | "-e" | "-f" | "-g" | "-h" | "-k" | "-p" | "-r" | "-s" | "-t" | "-u" | "-w" | "-x" | "-G"
            | "-L" | "-N" | "-O" | "-S" | "-z" | "-n" | "-o" | "-v" | "-R"
    )
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
