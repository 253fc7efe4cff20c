//! Lists, pipelines and simple commands: the grammar above words and below compound
//! commands.

use super::{is_meta, is_name, passes, Parser};
use crate::ast::*;
use crate::error::{ErrorKind, ParseError};

impl<'a> Parser<'a> {
    // ---- lists -------------------------------------------------------------------------

    /// And-or lists separated by `;` and `&` up to the end of the line.
    pub(super) fn parse_line_list(&mut self) -> Result<List, ParseError> {
        let mut list = List::default();
        loop {
            let and_or = self.parse_and_or()?;
            self.skip_blanks();
            let background = if self.peek() == Some(b';') && !self.starts_with(b";;") && !self.starts_with(b";&") {
                self.bump();
                false
            } else if self.peek() == Some(b'&') && !self.starts_with(b"&&") && !self.starts_with(b"&>") {
                self.bump();
                true
            } else {
                list.items.push(ListItem { and_or, background: false });
                return Ok(list);
            };
            list.items.push(ListItem { and_or, background });
            self.skip_blanks();
            self.skip_comment();
            if matches!(self.peek(), None | Some(b'\n')) {
                return Ok(list);
            }
        }
    }

    /// Whether the next token ends a compound list (a closing reserved word or operator).
    pub(super) fn at_list_end(&self) -> bool {
        match self.peek() {
            None | Some(b')') => true,
            Some(b';') => self.starts_with(b";;") || self.starts_with(b";&"),
            _ => matches!(self.peek_reserved(), Some("then" | "else" | "elif" | "fi" | "do" | "done" | "esac" | "}")),
        }
    }

    /// A compound list: and-or lists separated by `;`, `&` or newlines, up to a closing
    /// token (left for the caller to check). Bash requires at least one command, except
    /// in case arms and `$( )`.
    pub(super) fn parse_compound_list(&mut self, allow_empty: bool) -> Result<List, ParseError> {
        self.enter()?;
        let mut list = List::default();
        self.skip_linebreaks()?;
        loop {
            if self.at_list_end() {
                break;
            }
            let and_or = self.parse_and_or()?;
            self.skip_blanks();
            let mut background = false;
            let separated = if self.peek() == Some(b';') && !self.starts_with(b";;") && !self.starts_with(b";&") {
                self.bump();
                true
            } else if self.peek() == Some(b'&') && !self.starts_with(b"&&") && !self.starts_with(b"&>") {
                self.bump();
                background = true;
                true
            } else {
                false
            };
            list.items.push(ListItem { and_or, background });
            self.skip_blanks();
            self.skip_comment();
            let newline = self.peek() == Some(b'\n');
            self.skip_linebreaks()?;
            if !separated && !newline && !self.at_list_end() {
                return Err(self.unexpected_token());
            }
        }
        if list.items.is_empty() && !allow_empty {
            self.leave();
            return Err(self.unexpected_token());
        }
        self.leave();
        Ok(list)
    }

    pub(super) fn parse_and_or(&mut self) -> Result<AndOr, ParseError> {
        let first = self.parse_pipeline()?;
        let mut rest = Vec::new();
        loop {
            self.skip_blanks();
            let op = if self.eat(b"&&") {
                AndOrOp::And
            } else if self.eat(b"||") {
                AndOrOp::Or
            } else {
                break;
            };
            self.skip_linebreaks()?;
            rest.push((op, self.parse_pipeline()?));
        }
        Ok(AndOr { first, rest })
    }

    pub(super) fn parse_pipeline(&mut self) -> Result<Pipeline, ParseError> {
        self.skip_blanks();
        self.expand_alias();
        let line = self.line;
        let mut timed = None;
        let mut negated = false;
        loop {
            self.skip_blanks();
            if timed.is_none() && self.eat_reserved("time") {
                self.skip_blanks();
                timed = Some(TimeMode::Bash);
                if self.starts_with(b"-p") && self.peek_at(2).map_or(true, is_meta) {
                    self.eat(b"-p");
                    timed = Some(TimeMode::Posix);
                }
            } else if self.eat_reserved("!") {
                negated = !negated;
            } else {
                break;
            }
        }
        let mut commands = Vec::new();
        let mut pipe_stderr = Vec::new();
        if timed.is_some() && (self.at_list_end() || matches!(self.peek(), Some(b'\n' | b';' | b'&'))) {
            // `time` alone times an empty command, as in bash.
            return Ok(Pipeline { negated, timed, commands, pipe_stderr, line });
        }
        commands.push(self.parse_command()?);
        loop {
            self.skip_blanks();
            if self.starts_with(b"||") {
                break;
            }
            if self.eat(b"|&") {
                pipe_stderr.push(true);
            } else if self.peek() == Some(b'|') {
                self.bump();
                pipe_stderr.push(false);
            } else {
                break;
            }
            self.skip_linebreaks()?;
            commands.push(self.parse_command()?);
        }
        Ok(Pipeline { negated, timed, commands, pipe_stderr, line })
    }

    // ---- commands ----------------------------------------------------------------------

    pub(super) fn parse_command(&mut self) -> Result<Command, ParseError> {
        self.enter()?;
        let result = self.parse_command_inner();
        self.leave();
        result
    }

    pub(super) fn parse_command_inner(&mut self) -> Result<Command, ParseError> {
        self.skip_blanks();
        self.expand_alias();
        self.skip_blanks();
        let compound = match self.peek_reserved() {
            Some("if") => Some(self.parse_if()?),
            Some("while") => Some(self.parse_while(false)?),
            Some("until") => Some(self.parse_while(true)?),
            Some("for") => Some(self.parse_for(false)?),
            Some("select") => Some(self.parse_for(true)?),
            Some("case") => Some(self.parse_case()?),
            Some("{") => Some(self.parse_brace_group()?),
            Some("[[") => Some(self.parse_cond()?),
            Some("function") => return self.parse_function_keyword(),
            Some(word @ ("then" | "else" | "elif" | "fi" | "do" | "done" | "esac" | "}" | "]]" | "!" | "time")) => {
                return Err(self.error(ErrorKind::UnexpectedToken(word.to_string())));
            }
            Some("coproc") => return Err(self.error(ErrorKind::Message("coproc: not supported".to_string()))),
            _ => None,
        };
        let compound = match compound {
            Some(compound) => compound,
            None if self.peek() == Some(b'(') => {
                if self.starts_with(b"((") {
                    if let Some(arith) = self.try_parse_arith_command()? {
                        arith
                    } else {
                        self.parse_subshell()?
                    }
                } else {
                    self.parse_subshell()?
                }
            }
            None => return self.parse_simple_command(),
        };
        let redirects = self.parse_trailing_redirects()?;
        Ok(Command::Compound(Box::new(compound), redirects))
    }

    pub(super) fn parse_trailing_redirects(&mut self) -> Result<Vec<Redirect>, ParseError> {
        let mut redirects = Vec::new();
        loop {
            self.skip_blanks();
            match self.try_parse_redirect()? {
                Some(redirect) => redirects.push(redirect),
                None => return Ok(redirects),
            }
        }
    }

    pub(super) fn parse_simple_command(&mut self) -> Result<Command, ParseError> {
        let mut command = SimpleCommand { line: self.line, ..SimpleCommand::default() };
        let mut declaration = false;
        loop {
            self.skip_blanks();
            let after_blank_alias = self.alias_next_word.map_or(false, |at| self.pos >= at);
            if after_blank_alias || (command.words.is_empty() && !command.assignments.is_empty()) {
                self.alias_next_word = None;
                self.expand_alias();
                self.skip_blanks();
            }
            if let Some(redirect) = self.try_parse_redirect()? {
                command.redirects.push(redirect);
                continue;
            }
            match self.peek() {
                None | Some(b'\n' | b';' | b'&' | b'|' | b')') => break,
                Some(b'#') => {
                    self.skip_comment();
                    break;
                }
                Some(b'(') => {
                    if command.words.len() == 1 && command.assignments.is_empty() && command.redirects.is_empty() {
                        if let Some(name) = command.words[0].as_unquoted_literal() {
                            let name = name.to_string();
                            return self.parse_function_body(name, false, command.line);
                        }
                    }
                    return Err(self.unexpected_token());
                }
                _ => {}
            }
            if (command.words.is_empty() || declaration) && self.looks_like_assignment() {
                let mut assignment = self.parse_assignment()?;
                if declaration {
                    // An argument of declare is still a word: `declare y={a,b}` is
                    // `declare y=a y=b`.
                    if let AssignValue::Scalar(value) = assignment.value {
                        assignment.value = AssignValue::Scalar(passes::brace_pass(value));
                    }
                    command.words.push(Word { parts: vec![WordPart::Assign(Box::new(assignment))] });
                } else {
                    command.assignments.push(assignment);
                }
                continue;
            }
            let word = match self.read_word()? {
                Some(word) => word,
                None => return Err(self.unexpected_token()),
            };
            let word = if word_looks_like_assignment(&word) { passes::tilde_after_equals(word) } else { passes::tilde_pass(word, false) };
            let word = passes::brace_pass(word);
            if command.words.is_empty() {
                declaration = matches!(word.as_unquoted_literal(), Some("declare" | "typeset" | "local" | "export" | "readonly"));
            }
            command.words.push(word);
        }
        if command.words.is_empty() && command.assignments.is_empty() && command.redirects.is_empty() {
            return Err(self.unexpected_token());
        }
        Ok(Command::Simple(command))
    }

    /// `name=`, `name+=` or `name[...]=` at the current position.
    pub(super) fn looks_like_assignment(&self) -> bool {
        let src = &self.src[self.pos..];
        let mut i = 0;
        if !src.first().map_or(false, |&c| c.is_ascii_alphabetic() || c == b'_') {
            return false;
        }
        while i < src.len() && (src[i].is_ascii_alphanumeric() || src[i] == b'_') {
            i += 1;
        }
        if i < src.len() && src[i] == b'[' {
            match crate::arith::matching_bracket(src, i) {
                Some(close) => i = close + 1,
                None => return false,
            }
        }
        src[i..].starts_with(b"=") || src[i..].starts_with(b"+=")
    }
}

/// `name=...` as an ordinary argument: bash still expands `~` after the `=` and `:`.
fn word_looks_like_assignment(word: &Word) -> bool {
    match word.parts.first() {
        Some(WordPart::Literal(text)) => match text.find('=') {
            Some(eq) => is_name(&text[..eq]),
            None => false,
        },
        _ => false,
    }
}
