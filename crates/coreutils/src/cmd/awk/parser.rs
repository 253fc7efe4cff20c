//! The awk grammar, part one: program items (rules, functions), statements, and name
//! resolution. Expressions are in `parse_expr.rs`.
//!
//! Statement termination follows awk: a simple statement ends at `;`, a newline, or before
//! `}`; newlines may follow `{`, `,`, `&&`, `||`, `do`, `else` and the `)` of `if`, `for`
//! and `while`.

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
    loop_depth: usize,
    /// Parsing a BEGIN or END action (where `next` is an error).
    in_begin_end: bool,
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

    pub(super) fn block(&mut self) -> PResult<Vec<Stmt>> {
        self.expect(Tok::LBrace)?;
        let mut stmts = Vec::new();
        let mut line = 0;
        loop {
            while matches!(self.tok.tok, Tok::Newline | Tok::Semicolon) {
                self.advance()?;
            }
            if self.tok.tok == Tok::RBrace {
                self.advance()?;
                return Ok(stmts);
            }
            if self.tok.tok == Tok::Eof {
                return self.error_msg("unexpected newline or end of string");
            }
            if self.tok.line != line {
                line = self.tok.line;
                stmts.push(Stmt::At(line as u32));
            }
            stmts.push(self.stmt()?);
        }
    }

    /// Ends a simple statement: `;` or newline (consumed), or `}`/EOF/`else` (not).
    fn terminator(&mut self) -> PResult<()> {
        match self.tok.tok {
            Tok::Semicolon | Tok::Newline => self.advance(),
            Tok::RBrace | Tok::Eof | Tok::Else => Ok(()),
            _ => self.error(),
        }
    }

    /// The body of `if`/`while`/`for`: a statement, possibly empty (`;`).
    fn body(&mut self) -> PResult<Stmt> {
        self.skip_newlines()?;
        if self.tok.tok == Tok::Semicolon {
            self.advance()?;
            return Ok(Stmt::Block(Vec::new()));
        }
        self.stmt()
    }

    fn loop_body(&mut self) -> PResult<Stmt> {
        self.loop_depth += 1;
        let body = self.body();
        self.loop_depth -= 1;
        body
    }

    fn condition(&mut self) -> PResult<Expr> {
        self.expect(Tok::LParen)?;
        self.skip_newlines()?;
        let cond = self.expr(false)?;
        self.skip_newlines()?;
        self.expect(Tok::RParen)?;
        Ok(cond)
    }

    pub(super) fn stmt(&mut self) -> PResult<Stmt> {
        let stmt = match self.tok.tok {
            Tok::LBrace => return Ok(Stmt::Block(self.block()?)),
            Tok::If => {
                self.advance()?;
                let cond = self.condition()?;
                let then = self.body()?;
                let state = self.save();
                while matches!(self.tok.tok, Tok::Newline | Tok::Semicolon) {
                    self.advance()?;
                }
                if self.tok.tok == Tok::Else {
                    self.advance()?;
                    let otherwise = self.body()?;
                    return Ok(Stmt::If(cond, Box::new(then), Some(Box::new(otherwise))));
                }
                self.restore(state);
                return Ok(Stmt::If(cond, Box::new(then), None));
            }
            Tok::While => {
                self.advance()?;
                let cond = self.condition()?;
                if self.tok.tok == Tok::Semicolon {
                    self.advance()?;
                    return Ok(Stmt::While(cond, Box::new(Stmt::Block(Vec::new()))));
                }
                return Ok(Stmt::While(cond, Box::new(self.loop_body()?)));
            }
            Tok::Do => {
                self.advance()?;
                let body = self.loop_body()?;
                while matches!(self.tok.tok, Tok::Newline | Tok::Semicolon) {
                    self.advance()?;
                }
                self.expect(Tok::While)?;
                let cond = self.condition()?;
                Stmt::Do(Box::new(body), cond)
            }
            Tok::For => return self.for_stmt(),
            Tok::Switch => return self.switch_stmt(),
            Tok::Semicolon => {
                self.advance()?;
                return Ok(Stmt::Block(Vec::new()));
            }
            _ => self.simple_stmt()?,
        };
        self.terminator()?;
        Ok(stmt)
    }

    fn simple_stmt(&mut self) -> PResult<Stmt> {
        let stmt = match self.tok.tok {
            Tok::Next | Tok::NextFile => {
                let next = self.tok.tok == Tok::Next;
                if self.in_begin_end {
                    let word = if next { "next" } else { "nextfile" };
                    return self.error_msg(&format!("`{}' used in BEGIN or END action", word));
                }
                self.advance()?;
                if next {
                    Stmt::Next
                } else {
                    Stmt::NextFile
                }
            }
            Tok::Exit => {
                self.advance()?;
                Stmt::Exit(self.optional_expr()?)
            }
            Tok::Return => {
                if self.current_function.is_none() {
                    return self.error_msg("`return' used outside function context");
                }
                self.advance()?;
                Stmt::Return(self.optional_expr()?)
            }
            Tok::Break | Tok::Continue => {
                let is_break = self.tok.tok == Tok::Break;
                if self.loop_depth == 0 {
                    let word = if is_break { "break" } else { "continue" };
                    return self.error_msg(&format!("`{}' is not allowed outside a loop or switch", word));
                }
                self.advance()?;
                if is_break {
                    Stmt::Break
                } else {
                    Stmt::Continue
                }
            }
            Tok::Delete => {
                self.advance()?;
                let paren = self.tok.tok == Tok::LParen;
                if paren {
                    self.advance()?;
                }
                let name = match &self.tok.tok {
                    Tok::Name(n) => n.clone(),
                    _ => return self.error(),
                };
                let var = self.var(&name)?;
                self.mark_array(var);
                self.advance()?;
                let subs = if self.tok.tok == Tok::LBracket { Some(self.subscripts()?) } else { None };
                if paren {
                    self.expect(Tok::RParen)?;
                }
                Stmt::Delete(var, subs)
            }
            Tok::Print | Tok::Printf => self.print_stmt()?,
            _ => Stmt::Expr(self.expr(false)?),
        };
        Ok(stmt)
    }

    fn optional_expr(&mut self) -> PResult<Option<Expr>> {
        if matches!(self.tok.tok, Tok::Semicolon | Tok::Newline | Tok::RBrace | Tok::Eof) {
            Ok(None)
        } else {
            Ok(Some(self.expr(false)?))
        }
    }

    fn for_stmt(&mut self) -> PResult<Stmt> {
        self.advance()?;
        self.expect(Tok::LParen)?;
        // `for (name in array)`, also with the name parenthesized.
        if let Tok::Name(name) = &self.tok.tok {
            let name = name.clone();
            let state = self.save();
            self.advance()?;
            if self.tok.tok == Tok::In {
                self.advance()?;
                if let Tok::Name(array) = &self.tok.tok {
                    let array = array.clone();
                    self.advance()?;
                    if self.tok.tok == Tok::RParen {
                        self.advance()?;
                        let var = self.var(&name)?;
                        let array_var = self.var(&array)?;
                        self.mark_array(array_var);
                        let body = self.loop_body()?;
                        return Ok(Stmt::ForIn(var, array_var, Box::new(body)));
                    }
                }
            }
            self.restore(state);
        }
        let init = if self.tok.tok == Tok::Semicolon { None } else { Some(Box::new(self.simple_stmt()?)) };
        self.skip_newlines()?;
        self.expect(Tok::Semicolon)?;
        self.skip_newlines()?;
        let cond = if self.tok.tok == Tok::Semicolon { None } else { Some(self.expr(false)?) };
        self.skip_newlines()?;
        self.expect(Tok::Semicolon)?;
        self.skip_newlines()?;
        let step = if self.tok.tok == Tok::RParen { None } else { Some(Box::new(self.simple_stmt()?)) };
        self.skip_newlines()?;
        self.expect(Tok::RParen)?;
        if self.tok.tok == Tok::Semicolon {
            self.advance()?;
            return Ok(Stmt::For(init, cond, step, Box::new(Stmt::Block(Vec::new()))));
        }
        let body = self.loop_body()?;
        Ok(Stmt::For(init, cond, step, Box::new(body)))
    }

    fn switch_stmt(&mut self) -> PResult<Stmt> {
        self.advance()?;
        let subject = self.condition()?;
        self.skip_newlines()?;
        self.expect(Tok::LBrace)?;
        let mut cases: Vec<(Option<CaseLabel>, Vec<Stmt>)> = Vec::new();
        self.loop_depth += 1;
        loop {
            while matches!(self.tok.tok, Tok::Newline | Tok::Semicolon) {
                self.advance()?;
            }
            match self.tok.tok {
                Tok::RBrace => {
                    self.advance()?;
                    break;
                }
                Tok::Case => {
                    self.advance()?;
                    let label = match self.tok.tok {
                        Tok::Slash | Tok::DivAssign => {
                            let source = self.lex.regex_at(self.tok.start)?;
                            self.advance()?;
                            CaseLabel::Regex(self.add_regex(source))
                        }
                        _ => CaseLabel::Value(self.unary()?),
                    };
                    self.expect(Tok::Colon)?;
                    cases.push((Some(label), Vec::new()));
                }
                Tok::Default => {
                    self.advance()?;
                    self.expect(Tok::Colon)?;
                    cases.push((None, Vec::new()));
                }
                _ => {
                    let stmt = self.stmt()?;
                    match cases.last_mut() {
                        Some(case) => case.1.push(stmt),
                        None => return self.error(),
                    }
                }
            }
        }
        self.loop_depth -= 1;
        Ok(Stmt::Switch(subject, cases))
    }

    fn print_stmt(&mut self) -> PResult<Stmt> {
        let is_printf = self.tok.tok == Tok::Printf;
        self.advance()?;
        let mut args = Vec::new();
        let ends = |t: &Tok| matches!(t, Tok::Semicolon | Tok::Newline | Tok::RBrace | Tok::Eof | Tok::Gt | Tok::Append | Tok::Pipe | Tok::Else);
        if !ends(&self.tok.tok) {
            let mut grouped = None;
            if self.tok.tok == Tok::LParen {
                // `print (a, b) > f`: a parenthesized list is the whole argument list only
                // if the statement ends (or redirects) right after it.
                let state = self.save();
                self.advance()?;
                let list = self.expr_list(Tok::RParen)?;
                if ends(&self.tok.tok) {
                    grouped = Some(list);
                } else {
                    self.restore(state);
                }
            }
            args = match grouped {
                Some(list) => list,
                None => {
                    let mut list = vec![self.expr(true)?];
                    while self.tok.tok == Tok::Comma {
                        self.advance()?;
                        self.skip_newlines()?;
                        list.push(self.expr(true)?);
                    }
                    list
                }
            };
        }
        let redirect = match self.tok.tok {
            Tok::Gt | Tok::Append | Tok::Pipe => {
                let kind = match self.tok.tok {
                    Tok::Gt => Redirect::File,
                    Tok::Append => Redirect::Append,
                    _ => Redirect::Pipe,
                };
                self.advance()?;
                Some((kind, self.concat(true)?))
            }
            _ => None,
        };
        if is_printf {
            if args.is_empty() {
                return self.error();
            }
            Ok(Stmt::Printf(args, redirect))
        } else {
            Ok(Stmt::Print(args, redirect))
        }
    }
}
