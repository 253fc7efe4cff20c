//! The awk grammar, part one: the parser's state, program items (rules, functions) and
//! name resolution (variables become global or frame slots; parameters used as arrays
//! are inferred). Statements are in `parse_stmt.rs`, expressions in `parse_expr.rs`.

use std::collections::HashMap;

use super::ast::*;
use super::lexer::{Lexer, SyntaxError, Tok, Token};
use super::vars;

pub struct Parser<'a> {
    pub(super) lex: Lexer<'a>,
    pub(super) tok: Token,
    pub(super) globals: HashMap<String, u32>,
    pub(super) global_names: Vec<String>,
    pub(super) functions: Vec<Function>,
    pub(super) function_index: HashMap<String, usize>,
    /// Parameters of the function being parsed.
    pub(super) locals: Option<HashMap<String, u32>>,
    pub(super) current_function: Option<usize>,
    pub(super) regexes: Vec<Vec<u8>>,
    ranges: usize,
    pub(super) loop_depth: usize,
    /// Parsing a BEGIN or END action (where `next` is an error).
    pub(super) in_begin_end: bool,
    /// Bare parameters passed to functions: (caller, caller param, callee, arg position),
    /// to infer which parameters are arrays.
    pub(super) param_passes: Vec<(usize, u32, usize, usize)>,
}

pub type PResult<T> = Result<T, SyntaxError>;

/// Parses a whole program.
pub fn parse(src: &[u8]) -> Result<(Program, Vec<(usize, String)>), SyntaxError> {
    let mut lex = Lexer::new(src);
    let first = lex.next_token()?;
    let mut parser = Parser {
        lex,
        tok: first,
        globals: HashMap::new(),
        global_names: Vec::new(),
        functions: Vec::new(),
        function_index: HashMap::new(),
        locals: None,
        current_function: None,
        regexes: Vec::new(),
        ranges: 0,
        loop_depth: 0,
        in_begin_end: false,
        param_passes: Vec::new(),
    };
    for name in vars::NAMES {
        parser.global(name);
    }
    let rules = parser.program()?;
    parser.finish_functions()?;
    let program = Program { rules, functions: parser.functions, globals: parser.global_names, regexes: parser.regexes, ranges: parser.ranges };
    Ok((program, parser.lex.warnings))
}

impl<'a> Parser<'a> {
    pub(super) fn advance(&mut self) -> PResult<()> {
        self.tok = self.lex.next_token()?;
        Ok(())
    }

    pub(super) fn error<T>(&self) -> PResult<T> {
        Err(SyntaxError { offset: self.tok.start, message: "syntax error".to_string() })
    }

    pub(super) fn error_msg<T>(&self, message: &str) -> PResult<T> {
        Err(SyntaxError { offset: self.tok.start, message: message.to_string() })
    }

    pub(super) fn expect(&mut self, tok: Tok) -> PResult<()> {
        if self.tok.tok == tok {
            self.advance()
        } else {
            self.error()
        }
    }

    pub(super) fn skip_newlines(&mut self) -> PResult<()> {
        while self.tok.tok == Tok::Newline {
            self.advance()?;
        }
        Ok(())
    }

    /// The token after the current one, without consuming anything.
    pub(super) fn peek_next(&self) -> PResult<Tok> {
        let mut lex = self.lex.clone();
        Ok(lex.next_token()?.tok)
    }

    pub(super) fn save(&self) -> (Lexer<'a>, Token, usize) {
        (self.lex.clone(), self.tok.clone(), self.regexes.len())
    }

    pub(super) fn restore(&mut self, state: (Lexer<'a>, Token, usize)) {
        self.lex = state.0;
        self.tok = state.1;
        self.regexes.truncate(state.2);
    }

    pub(super) fn global(&mut self, name: &str) -> u32 {
        if let Some(i) = self.globals.get(name) {
            return *i;
        }
        let i = self.global_names.len() as u32;
        self.globals.insert(name.to_string(), i);
        self.global_names.push(name.to_string());
        i
    }

    /// Resolves a variable name in the current scope.
    pub(super) fn var(&mut self, name: &str) -> PResult<Var> {
        if let Some(locals) = &self.locals {
            if let Some(i) = locals.get(name) {
                return Ok(Var::Local(*i));
            }
        }
        if self.function_index.contains_key(name) {
            return self.error_msg(&format!("function `{}' called with space between name and `(',\nor used as a variable or an array", name));
        }
        Ok(Var::Global(self.global(name)))
    }

    /// Records that a variable is used as an array (for parameter inference).
    pub(super) fn mark_array(&mut self, var: Var) {
        if let (Var::Local(i), Some(f)) = (var, self.current_function) {
            if let Some(flag) = self.functions[f].array_params.get_mut(i as usize) {
                *flag = true;
            }
        }
    }

    pub(super) fn function_slot(&mut self, name: &str) -> usize {
        if let Some(i) = self.function_index.get(name) {
            return *i;
        }
        let i = self.functions.len();
        self.functions.push(Function { name: name.to_string(), params: 0, param_names: Vec::new(), array_params: Vec::new(), body: Vec::new(), defined: false });
        self.function_index.insert(name.to_string(), i);
        i
    }

    pub(super) fn add_regex(&mut self, source: Vec<u8>) -> usize {
        self.regexes.push(source);
        self.regexes.len() - 1
    }

    fn program(&mut self) -> PResult<Vec<Rule>> {
        let mut rules = Vec::new();
        loop {
            while matches!(self.tok.tok, Tok::Newline | Tok::Semicolon) {
                self.advance()?;
            }
            let line = self.tok.line as u32;
            let pattern = match self.tok.tok {
                Tok::Eof => return Ok(rules),
                Tok::Function => {
                    self.function()?;
                    continue;
                }
                Tok::Begin => Pattern::Begin,
                Tok::End => Pattern::End,
                Tok::BeginFile => Pattern::BeginFile,
                Tok::EndFile => Pattern::EndFile,
                Tok::LBrace => Pattern::All,
                _ => {
                    let start = self.expr(false)?;
                    if self.tok.tok == Tok::Comma {
                        self.advance()?;
                        self.skip_newlines()?;
                        let stop = self.expr(false)?;
                        self.ranges += 1;
                        Pattern::Range(start, stop, self.ranges - 1)
                    } else {
                        Pattern::Expr(start)
                    }
                }
            };
            let special = matches!(pattern, Pattern::Begin | Pattern::End | Pattern::BeginFile | Pattern::EndFile);
            if special {
                self.advance()?;
                if self.tok.tok != Tok::LBrace {
                    return self.error_msg("each rule must have a pattern or an action part");
                }
            }
            self.in_begin_end = matches!(pattern, Pattern::Begin | Pattern::End);
            let action = if self.tok.tok == Tok::LBrace { Some(self.block()?) } else { None };
            self.in_begin_end = false;
            if action.is_none() && !matches!(self.tok.tok, Tok::Newline | Tok::Semicolon | Tok::Eof) {
                return self.error();
            }
            rules.push(Rule { line, pattern, action });
        }
    }

    fn function(&mut self) -> PResult<()> {
        self.advance()?;
        let name = match &self.tok.tok {
            Tok::Name(n) | Tok::FuncName(n) => n.clone(),
            Tok::Builtin(b) => return self.error_msg(&format!("`{}' is a built-in function, it cannot be redefined", b.name())),
            _ => return self.error(),
        };
        if self.globals.contains_key(&name) && !self.function_index.contains_key(&name) {
            return self.error_msg(&format!("function name `{}' previously defined", name));
        }
        let index = self.function_slot(&name);
        if self.functions[index].defined {
            return self.error_msg(&format!("function `{}' previously defined", name));
        }
        self.advance()?;
        self.expect(Tok::LParen)?;
        let mut params = HashMap::new();
        loop {
            self.skip_newlines()?;
            match &self.tok.tok {
                Tok::RParen => break,
                Tok::Name(p) => {
                    if p == &name {
                        return self.error_msg(&format!("function `{}': cannot use function name as parameter name", name));
                    }
                    let slot = params.len() as u32;
                    if params.insert(p.clone(), slot).is_some() {
                        return self.error_msg(&format!("function `{}': parameter #{}, `{}', duplicates parameter #{}", name, slot + 1, p, slot));
                    }
                    self.advance()?;
                    self.skip_newlines()?;
                    match self.tok.tok {
                        Tok::Comma => self.advance()?,
                        Tok::RParen => break,
                        _ => return self.error(),
                    }
                }
                _ => return self.error(),
            }
        }
        self.advance()?;
        self.skip_newlines()?;
        let count = params.len();
        self.functions[index].params = count;
        let mut names = vec![String::new(); count];
        for (n, slot) in &params {
            names[*slot as usize] = n.clone();
        }
        self.functions[index].param_names = names;
        self.functions[index].array_params = vec![false; count];
        self.functions[index].defined = true;
        self.locals = Some(params);
        self.current_function = Some(index);
        let body = self.block()?;
        self.locals = None;
        self.current_function = None;
        self.functions[index].body = body;
        Ok(())
    }

    /// Checks every called function exists and infers array parameters through calls.
    fn finish_functions(&mut self) -> PResult<()> {
        for f in &self.functions {
            if !f.defined {
                return Err(SyntaxError { offset: 0, message: format!("function `{}' called but never defined", f.name) });
            }
        }
        loop {
            let mut changed = false;
            for &(caller, param, callee, position) in &self.param_passes {
                let is_array = self.functions[callee].array_params.get(position).copied().unwrap_or(false);
                if is_array && !self.functions[caller].array_params[param as usize] {
                    self.functions[caller].array_params[param as usize] = true;
                    changed = true;
                }
            }
            if !changed {
                return Ok(());
            }
        }
    }
}
