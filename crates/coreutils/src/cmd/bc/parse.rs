//! bc's lexer and parser (GNU bc 1.07's grammar). Operator precedence, lowest first:
//! `||`, `&&`, `!`, relations, assignments (right), `+ -`, `* / %`, `^` (right), unary `-`,
//! `++ --` — so `-2^2` is 4 and `x = 1 < 2` compares the assignment's value, as in GNU bc.
//! Tokens come from bc/lex.rs; this file parses definitions and statements, parse_expr.rs
//! the expressions. The input is parsed one top-level line at a time: GNU bc runs each line when its
//! newline is read, and a syntax error discards the line.


pub use super::lex::Tok;
use super::lex::Lexer;

// The expression grammar (`||` down to primaries), in its own file.
#[path = "parse_expr.rs"]
mod expr;

#[derive(Debug, Clone)]
pub enum LValue {
    Var(String),
    Elem(String, Box<Expr>),
    Scale,
    Ibase,
    Obase,
    Last,
}

#[derive(Debug, Clone)]
pub enum Arg {
    Value(Expr),
    Array(String),
}

#[derive(Debug, Clone)]
pub enum Expr {
    Num(Vec<u8>),
    Load(LValue),
    /// An assignment in parentheses: printed, unlike a bare one.
    Group(Box<Expr>),
    Assign(LValue, Option<&'static str>, Box<Expr>),
    /// ++x / --x (prefix: true) and x++ / x--.
    Step(LValue, i8, bool),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    Call(String, Vec<Arg>),
    Length(Box<Expr>),
    Sqrt(Box<Expr>),
    ScaleOf(Box<Expr>),
}

#[derive(Debug, Clone)]
pub enum PrintItem {
    Str(Vec<u8>),
    Value(Expr),
}

#[derive(Debug, Clone)]
pub enum Stmt {
    Expr(Expr),
    Str(Vec<u8>),
    Print(Vec<PrintItem>),
    Block(Vec<Stmt>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    For(Option<Expr>, Option<Expr>, Option<Expr>, Box<Stmt>),
    Break,
    Continue,
    Return(Option<Expr>),
    Halt,
    Limits,
}

#[derive(Debug, Clone)]
pub struct Func {
    pub params: Vec<(String, bool)>,
    pub autos: Vec<(String, bool)>,
    pub body: Vec<Stmt>,
    pub void: bool,
}

/// What parsing one top-level line gave.
pub enum Unit {
    Stmts(Vec<Stmt>),
    Define(String, Func),
    /// `quit` was read: bc exits at once.
    Quit,
    Eof,
}

pub struct SyntaxError {
    pub line: usize,
    pub message: String,
}

pub struct Parser<'a> {
    lx: Lexer<'a>,
    peeked: Option<Tok>,
    in_function: bool,
}

const KEYWORDS: &[&str] = &["define", "auto", "return", "if", "else", "while", "for", "break", "continue", "print", "quit", "halt", "length", "sqrt", "scale", "ibase", "obase", "last", "limits", "warranty", "read", "void"];


type PResult<T> = Result<T, SyntaxError>;

impl<'a> Parser<'a> {
    pub fn new(src: &'a [u8]) -> Parser<'a> {
        Parser { lx: Lexer::new(src), peeked: None, in_function: false }
    }

    fn err<T>(&self) -> PResult<T> {
        Err(SyntaxError { line: self.lx.line, message: "syntax error".to_string() })
    }

    fn lex(&mut self) -> PResult<Tok> {
        match self.lx.token() {
            Some(t) => Ok(t),
            None => self.err(),
        }
    }

    fn peek(&mut self) -> PResult<&Tok> {
        if self.peeked.is_none() {
            let t = self.lex()?;
            self.peeked = Some(t);
        }
        match &self.peeked {
            Some(t) => Ok(t),
            None => self.err(),
        }
    }

    fn next(&mut self) -> PResult<Tok> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lex(),
        }
    }

    fn is_op(&mut self, op: &str) -> PResult<bool> {
        Ok(matches!(self.peek()?, Tok::Op(o) if *o == op))
    }

    fn is_word(&mut self, word: &str) -> PResult<bool> {
        Ok(matches!(self.peek()?, Tok::Name(n) if n == word))
    }

    fn expect(&mut self, op: &str) -> PResult<()> {
        if self.is_op(op)? {
            self.next()?;
            Ok(())
        } else {
            self.err()
        }
    }

    fn skip_newlines(&mut self) -> PResult<()> {
        while *self.peek()? == Tok::Newline {
            self.next()?;
        }
        Ok(())
    }

    /// After an error: drop the rest of the line.
    pub fn recover(&mut self) {
        self.peeked = None;
        self.lx.skip_line();
    }

    /// Parses one top-level line (or a function definition).
    pub fn unit(&mut self) -> PResult<Unit> {
        let mut stmts = Vec::new();
        loop {
            match self.peek()? {
                Tok::Eof => return Ok(if stmts.is_empty() { Unit::Eof } else { Unit::Stmts(stmts) }),
                Tok::Newline => {
                    self.next()?;
                    return Ok(Unit::Stmts(stmts));
                }
                Tok::Op(";") => {
                    self.next()?;
                    continue;
                }
                Tok::Name(n) if n == "define" => {
                    if !stmts.is_empty() {
                        return self.err();
                    }
                    self.next()?;
                    return self.define();
                }
                Tok::Name(n) if n == "quit" => return Ok(Unit::Quit),
                _ => {}
            }
            match self.statement() {
                Ok(s) => stmts.push(s),
                Err(e) if self.quit_seen() => {
                    let _ = e;
                    return Ok(Unit::Quit);
                }
                Err(e) => return Err(e),
            }
            match self.peek()? {
                Tok::Op(";") | Tok::Newline | Tok::Eof => {}
                _ => return self.err(),
            }
        }
    }

    fn quit_seen(&mut self) -> bool {
        matches!(self.peeked, Some(Tok::Name(ref n)) if n == "quit")
    }

    fn define(&mut self) -> PResult<Unit> {
        let mut void = false;
        let mut name = match self.next()? {
            Tok::Name(n) => n,
            _ => return self.err(),
        };
        if name == "void" {
            if let Tok::Name(n) = self.peek()?.clone() {
                self.next()?;
                name = n;
                void = true;
            }
        }
        if KEYWORDS.contains(&name.as_str()) {
            return self.err();
        }
        self.expect("(")?;
        let params = self.name_list(")")?;
        self.expect(")")?;
        self.skip_newlines()?;
        self.expect("{")?;
        self.skip_newlines()?;
        let mut autos = Vec::new();
        if self.is_word("auto")? {
            self.next()?;
            autos = self.name_list("")?;
            if self.is_op(";")? {
                self.next()?;
            }
        }
        let was = self.in_function;
        self.in_function = true;
        let body = self.block_body();
        self.in_function = was;
        if self.quit_seen() {
            return Ok(Unit::Quit);
        }
        let body = body?;
        Ok(Unit::Define(name, Func { params, autos, body, void }))
    }

    /// `a, b[], c` up to `close` (or the end of the line for auto).
    fn name_list(&mut self, close: &str) -> PResult<Vec<(String, bool)>> {
        let mut out = Vec::new();
        if !close.is_empty() && self.is_op(close)? {
            return Ok(out);
        }
        loop {
            let name = match self.next()? {
                Tok::Name(n) if !KEYWORDS.contains(&n.as_str()) => n,
                _ => return self.err(),
            };
            let array = if self.is_op("[")? {
                self.next()?;
                self.expect("]")?;
                true
            } else {
                false
            };
            out.push((name, array));
            if !self.is_op(",")? {
                return Ok(out);
            }
            self.next()?;
        }
    }

    /// Statements up to the closing brace.
    fn block_body(&mut self) -> PResult<Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            match self.peek()? {
                Tok::Op("}") => {
                    self.next()?;
                    return Ok(out);
                }
                Tok::Newline | Tok::Op(";") => {
                    self.next()?;
                }
                Tok::Eof => return self.err(),
                Tok::Name(n) if n == "quit" => return self.err(),
                _ => {
                    out.push(self.statement()?);
                    match self.peek()? {
                        Tok::Op(";") | Tok::Newline | Tok::Op("}") => {}
                        _ => return self.err(),
                    }
                }
            }
        }
    }

    fn statement(&mut self) -> PResult<Stmt> {
        let tok = self.peek()?.clone();
        match tok {
            Tok::Str(s) => {
                self.next()?;
                Ok(Stmt::Str(s))
            }
            Tok::Op("{") => {
                self.next()?;
                Ok(Stmt::Block(self.block_body()?))
            }
            Tok::Name(n) => match n.as_str() {
                "if" => {
                    self.next()?;
                    let cond = self.paren_expr()?;
                    self.skip_newlines()?;
                    let then = self.statement()?;
                    let otherwise = if self.is_word("else")? {
                        self.next()?;
                        self.skip_newlines()?;
                        Some(Box::new(self.statement()?))
                    } else {
                        None
                    };
                    Ok(Stmt::If(cond, Box::new(then), otherwise))
                }
                "while" => {
                    self.next()?;
                    let cond = self.paren_expr()?;
                    self.skip_newlines()?;
                    Ok(Stmt::While(cond, Box::new(self.body_statement()?)))
                }
                "for" => {
                    self.next()?;
                    self.expect("(")?;
                    let init = self.optional_expr(";")?;
                    self.expect(";")?;
                    let cond = self.optional_expr(";")?;
                    self.expect(";")?;
                    let step = self.optional_expr(")")?;
                    self.expect(")")?;
                    self.skip_newlines()?;
                    Ok(Stmt::For(init, cond, step, Box::new(self.body_statement()?)))
                }
                "break" => self.keyword(Stmt::Break),
                "continue" => self.keyword(Stmt::Continue),
                "halt" => self.keyword(Stmt::Halt),
                "limits" => self.keyword(Stmt::Limits),
                "return" => {
                    self.next()?;
                    if !self.in_function {
                        return self.err();
                    }
                    match self.peek()? {
                        Tok::Op(";") | Tok::Newline | Tok::Op("}") | Tok::Eof => Ok(Stmt::Return(None)),
                        _ => Ok(Stmt::Return(Some(self.expr()?))),
                    }
                }
                "print" => {
                    self.next()?;
                    let mut items = Vec::new();
                    loop {
                        if let Tok::Str(s) = self.peek()?.clone() {
                            self.next()?;
                            items.push(PrintItem::Str(s));
                        } else {
                            items.push(PrintItem::Value(self.expr()?));
                        }
                        if !self.is_op(",")? {
                            return Ok(Stmt::Print(items));
                        }
                        self.next()?;
                    }
                }
                "quit" | "define" | "auto" | "else" => self.err(),
                _ => Ok(Stmt::Expr(self.expr()?)),
            },
            _ => Ok(Stmt::Expr(self.expr()?)),
        }
    }

    /// A loop body: an empty statement is not allowed there.
    fn body_statement(&mut self) -> PResult<Stmt> {
        if self.is_op(";")? {
            return self.err();
        }
        self.statement()
    }

    fn keyword(&mut self, s: Stmt) -> PResult<Stmt> {
        self.next()?;
        Ok(s)
    }
}
