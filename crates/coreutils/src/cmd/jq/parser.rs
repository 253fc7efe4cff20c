//! jq's grammar with jq 1.6's precedence (loosest first): `|`, `,`, `//`, assignments,
//! `or`, `and`, comparisons, `+ -`, `* / %`, unary minus, postfix (`.a`, `[..]`, `?`).
//! `try` takes a postfix expression; `Term as $x | body` and `label` take the rest of the
//! pipe. Names are resolved while parsing (see ast.rs), against a scope stack that starts
//! with the jq-defined builtins. Primary terms and keyword forms are in parser_primary.rs.

use std::rc::Rc;

use super::ast::{AssignOp, Ast, BinOp, FuncDef};
use super::builtins;
use super::lexer::Tok;
use super::value::Value;

#[derive(Clone, Debug)]
pub(super) enum Entry {
    Var(Rc<str>, usize),
    Param(Rc<str>, usize),
    Label(Rc<str>, usize),
    Func { name: Rc<str>, arity: usize, index: usize, slots: usize },
}

/// The names visible at a point of the program, and how many runtime slots they take.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub(super) entries: Vec<Entry>,
    pub(super) slots: usize,
}

impl Scope {
    /// Adds a variable bound in the initial environment (--arg etc.).
    pub fn add_var(&mut self, name: &str) {
        self.entries.push(Entry::Var(Rc::from(name), self.slots));
        self.slots += 1;
    }
}

pub struct Parser<'f> {
    pub(super) toks: Vec<(Tok, usize)>,
    pub(super) pos: usize,
    pub(super) src: &'f [u8],
    pub scope: Scope,
    pub funcs: &'f mut Vec<FuncDef>,
}

pub type PResult<T> = Result<T, String>;

impl<'f> Parser<'f> {
    pub fn new(toks: Vec<(Tok, usize)>, src: &'f [u8], scope: Scope, funcs: &'f mut Vec<FuncDef>) -> Parser<'f> {
        Parser { toks, pos: 0, src, scope, funcs }
    }

    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    pub(super) fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.toks.get(self.pos + n).map(|(t, _)| t)
    }

    pub(super) fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }

    pub(super) fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Some(Tok::Keyword(k)) if *k == kw)
    }

    pub(super) fn describe(&self) -> String {
        match self.peek() {
            None => "end of file".to_string(),
            Some(Tok::Op(o)) => format!("'{}'", o),
            Some(Tok::Keyword(k)) => k.to_string(),
            Some(Tok::Ident(i)) => format!("IDENT {}", i),
            Some(Tok::Field(f)) => format!("FIELD .{}", f),
            Some(Tok::Var(_)) => "'$'".to_string(),
            Some(Tok::Format(f)) => format!("FORMAT @{}", f),
            Some(Tok::Number(_)) => "LITERAL".to_string(),
            Some(Tok::Str(_)) => "QQSTRING_START".to_string(),
        }
    }

    pub(super) fn unexpected<T>(&self) -> PResult<T> {
        Err(format!("syntax error, unexpected {}", self.describe()))
    }

    pub(super) fn expect_op(&mut self, op: &str) -> PResult<()> {
        if self.is_op(op) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("syntax error, unexpected {}, expecting '{}'", self.describe(), op))
        }
    }

    pub(super) fn expect_kw(&mut self, kw: &str) -> PResult<()> {
        if self.is_kw(kw) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("syntax error, unexpected {}, expecting {}", self.describe(), kw))
        }
    }

    /// Parses the whole token list as a program (or the prelude: only definitions).
    pub fn program(&mut self) -> PResult<Ast> {
        if self.peek().is_none() {
            return Ok(Ast::Identity);
        }
        let ast = self.pipe()?;
        if self.peek().is_some() {
            return self.unexpected();
        }
        Ok(ast)
    }

    /// Parses leading `def`s only, leaving them in scope (the prelude).
    pub fn definitions(&mut self) -> PResult<()> {
        while self.is_kw("def") {
            self.funcdef()?;
        }
        if self.peek().is_some() {
            return self.unexpected();
        }
        Ok(())
    }

    pub(super) fn line_of(&self, offset: usize) -> usize {
        1 + self.src[..offset.min(self.src.len())].iter().filter(|b| **b == b'\n').count()
    }

    // ---- scope ----

    pub(super) fn push_slot(&mut self, entry: fn(Rc<str>, usize) -> Entry, name: Rc<str>) {
        let slot = self.scope.slots;
        self.scope.entries.push(entry(name, slot));
        self.scope.slots += 1;
    }

    pub(super) fn truncate_scope(&mut self, saved: (usize, usize)) {
        self.scope.entries.truncate(saved.0);
        self.scope.slots = saved.1;
    }

    pub(super) fn mark(&self) -> (usize, usize) {
        (self.scope.entries.len(), self.scope.slots)
    }

    pub(super) fn lookup_var(&self, name: &str) -> PResult<usize> {
        for e in self.scope.entries.iter().rev() {
            if let Entry::Var(n, slot) = e {
                if &**n == name {
                    return Ok(self.scope.slots - 1 - slot);
                }
            }
        }
        Err(format!("${} is not defined", name))
    }

    pub(super) fn resolve_call(&self, name: &str, args: Vec<Ast>) -> PResult<Ast> {
        let arity = args.len();
        for e in self.scope.entries.iter().rev() {
            match e {
                Entry::Param(n, slot) if arity == 0 && &**n == name => return Ok(Ast::CallParam(self.scope.slots - 1 - slot)),
                Entry::Func { name: n, arity: a, index, slots } if *a == arity && &**n == name => {
                    return Ok(Ast::CallUser { func: *index, hops: self.scope.slots - slots, args });
                }
                _ => {}
            }
        }
        match builtins::lookup(name, arity) {
            Some(native) => Ok(Ast::CallNative(native, args)),
            None => Err(format!("{}/{} is not defined", name, arity)),
        }
    }

    // ---- expressions, loosest first ----

    pub fn pipe(&mut self) -> PResult<Ast> {
        if self.is_kw("def") {
            let saved = self.mark();
            self.funcdef()?;
            let rest = self.pipe();
            self.truncate_scope(saved);
            return rest;
        }
        let left = self.comma()?;
        if self.is_op("|") {
            self.pos += 1;
            let right = self.pipe()?;
            return Ok(Ast::Pipe(Box::new(left), Box::new(right)));
        }
        Ok(left)
    }

    pub(super) fn funcdef(&mut self) -> PResult<()> {
        self.expect_kw("def")?;
        let name = match self.peek() {
            Some(Tok::Ident(n)) => n.clone(),
            Some(Tok::Keyword(k)) => Rc::from(*k),
            _ => return self.unexpected(),
        };
        self.pos += 1;
        let mut params: Vec<(Rc<str>, bool)> = Vec::new();
        if self.is_op("(") {
            self.pos += 1;
            loop {
                match self.peek().cloned() {
                    Some(Tok::Ident(p)) => params.push((p, false)),
                    Some(Tok::Var(p)) => params.push((p, true)),
                    _ => return self.unexpected(),
                }
                self.pos += 1;
                if self.is_op(";") {
                    self.pos += 1;
                    continue;
                }
                self.expect_op(")")?;
                break;
            }
        }
        self.expect_op(":")?;
        let index = self.funcs.len();
        self.funcs.push(FuncDef { name: name.clone(), params: params.iter().map(|p| p.1).collect(), body: Ast::Identity });
        let slots = self.scope.slots;
        self.scope.entries.push(Entry::Func { name: name.clone(), arity: params.len(), index, slots });
        let saved = self.mark();
        for (p, _) in &params {
            self.push_slot(Entry::Param, p.clone());
        }
        for (p, is_value) in &params {
            if *is_value {
                self.push_slot(Entry::Var, p.clone());
            }
        }
        let body = self.pipe();
        self.truncate_scope(saved);
        self.funcs[index].body = body?;
        self.expect_op(";")
    }

    /// `item (SEP item)* CLOSE`, the opening bracket already taken.
    pub(super) fn separated<T>(&mut self, item: fn(&mut Self) -> PResult<T>, sep: &str, close: &str) -> PResult<Vec<T>> {
        let mut items = vec![item(self)?];
        while self.is_op(sep) {
            self.pos += 1;
            items.push(item(self)?);
        }
        self.expect_op(close)?;
        Ok(items)
    }

    /// One left-associative level: `next (OP next)*`, each operator found by `op_at` and
    /// folded into the left side by `join`.
    fn left_assoc<T>(&mut self, next: fn(&mut Self) -> PResult<Ast>, op_at: fn(&Self) -> Option<T>, join: fn(T, Ast, Ast) -> PResult<Ast>) -> PResult<Ast> {
        let mut left = next(self)?;
        while let Some(op) = op_at(self) {
            self.pos += 1;
            let right = next(self)?;
            left = join(op, left, right)?;
        }
        Ok(left)
    }

    pub(super) fn comma(&mut self) -> PResult<Ast> {
        self.left_assoc(Self::alternative, |p| p.is_op(",").then_some(()), |(), l, r| Ok(Ast::Comma(Box::new(l), Box::new(r))))
    }

    pub(super) fn alternative(&mut self) -> PResult<Ast> {
        let left = self.assignment()?;
        if self.is_op("//") {
            self.pos += 1;
            let right = self.alternative()?;
            return Ok(Ast::Alt(Box::new(left), Box::new(right)));
        }
        Ok(left)
    }

    pub(super) fn assignment(&mut self) -> PResult<Ast> {
        let left = self.or()?;
        let op = match self.peek() {
            Some(Tok::Op("=")) => AssignOp::Set,
            Some(Tok::Op("|=")) => AssignOp::Update,
            Some(Tok::Op("+=")) => AssignOp::Arith(BinOp::Add),
            Some(Tok::Op("-=")) => AssignOp::Arith(BinOp::Sub),
            Some(Tok::Op("*=")) => AssignOp::Arith(BinOp::Mul),
            Some(Tok::Op("/=")) => AssignOp::Arith(BinOp::Div),
            Some(Tok::Op("%=")) => AssignOp::Arith(BinOp::Mod),
            Some(Tok::Op("//=")) => AssignOp::Alt,
            _ => return Ok(left),
        };
        self.pos += 1;
        let right = self.or()?;
        Ok(Ast::Assign(op, Box::new(left), Box::new(right)))
    }

    pub(super) fn or(&mut self) -> PResult<Ast> {
        self.left_assoc(Self::and, |p| p.is_kw("or").then_some(()), |(), l, r| Ok(Ast::Or(Box::new(l), Box::new(r))))
    }

    pub(super) fn and(&mut self) -> PResult<Ast> {
        self.left_assoc(Self::comparison, |p| p.is_kw("and").then_some(()), |(), l, r| Ok(Ast::And(Box::new(l), Box::new(r))))
    }

    pub(super) fn comparison(&mut self) -> PResult<Ast> {
        let left = self.additive()?;
        let op = match self.peek() {
            Some(Tok::Op("==")) => BinOp::Eq,
            Some(Tok::Op("!=")) => BinOp::Ne,
            Some(Tok::Op("<")) => BinOp::Lt,
            Some(Tok::Op("<=")) => BinOp::Le,
            Some(Tok::Op(">")) => BinOp::Gt,
            Some(Tok::Op(">=")) => BinOp::Ge,
            _ => return Ok(left),
        };
        self.pos += 1;
        let right = self.additive()?;
        if matches!(self.peek(), Some(Tok::Op("==")) | Some(Tok::Op("!=")) | Some(Tok::Op("<")) | Some(Tok::Op("<=")) | Some(Tok::Op(">")) | Some(Tok::Op(">="))) {
            return self.unexpected();
        }
        Ok(Ast::Binop(op, Box::new(left), Box::new(right)))
    }

    pub(super) fn additive(&mut self) -> PResult<Ast> {
        let op_at = |p: &Self| match p.peek() {
            Some(Tok::Op("+")) => Some(BinOp::Add),
            Some(Tok::Op("-")) => Some(BinOp::Sub),
            _ => None,
        };
        self.left_assoc(Self::multiplicative, op_at, |op, l, r| Ok(Ast::Binop(op, Box::new(l), Box::new(r))))
    }

    pub(super) fn multiplicative(&mut self) -> PResult<Ast> {
        let op_at = |p: &Self| match p.peek() {
            Some(Tok::Op("*")) => Some(BinOp::Mul),
            Some(Tok::Op("/")) => Some(BinOp::Div),
            Some(Tok::Op("%")) => Some(BinOp::Mod),
            _ => None,
        };
        // jq folds constants, so a literal division by zero is a compile error.
        let join = |op, l: Ast, r: Ast| match (op, &l, &r) {
            (BinOp::Div, Ast::Literal(Value::Number(_)), Ast::Literal(Value::Number(d))) if *d == 0.0 => Err("Division by zero?".to_string()),
            _ => Ok(Ast::Binop(op, Box::new(l), Box::new(r))),
        };
        self.left_assoc(Self::unary, op_at, join)
    }

    pub(super) fn unary(&mut self) -> PResult<Ast> {
        if self.is_op("-") {
            self.pos += 1;
            let operand = self.multiplicative()?;
            return Ok(Ast::Neg(Box::new(operand)));
        }
        self.postfix(true)
    }

    /// A term with its suffixes; `bind` allows `Term as $x | body`.
    pub(super) fn postfix(&mut self, bind: bool) -> PResult<Ast> {
        let mut term = self.primary()?;
        loop {
            match self.peek().cloned() {
                Some(Tok::Field(name)) => {
                    self.pos += 1;
                    term = Ast::Field(Box::new(term), name);
                }
                Some(Tok::Op(".")) if matches!(self.peek_at(1), Some(Tok::Str(_))) => {
                    self.pos += 1;
                    let key = self.string_term(None)?;
                    term = Ast::Index(Box::new(term), Box::new(key));
                }
                Some(Tok::Op(".")) if matches!(self.peek_at(1), Some(Tok::Op("["))) => {
                    self.pos += 1;
                }
                Some(Tok::Op("[")) => {
                    self.pos += 1;
                    term = self.bracket_suffix(term)?;
                }
                Some(Tok::Op("?")) => {
                    self.pos += 1;
                    term = Ast::Try(Box::new(term), None);
                }
                Some(Tok::Keyword("as")) if bind => return self.binding(term),
                _ => return Ok(term),
            }
        }
    }

    /// After `term[`: index, slice or iteration.
    pub(super) fn bracket_suffix(&mut self, term: Ast) -> PResult<Ast> {
        if self.is_op("]") {
            self.pos += 1;
            return Ok(Ast::Iterate(Box::new(term)));
        }
        if self.is_op(":") {
            self.pos += 1;
            let to = self.pipe()?;
            self.expect_op("]")?;
            return Ok(Ast::Slice(Box::new(term), None, Some(Box::new(to))));
        }
        let index = self.pipe()?;
        if self.is_op(":") {
            self.pos += 1;
            if self.is_op("]") {
                self.pos += 1;
                return Ok(Ast::Slice(Box::new(term), Some(Box::new(index)), None));
            }
            let to = self.pipe()?;
            self.expect_op("]")?;
            return Ok(Ast::Slice(Box::new(term), Some(Box::new(index)), Some(Box::new(to))));
        }
        self.expect_op("]")?;
        Ok(Ast::Index(Box::new(term), Box::new(index)))
    }

    /// `source as PATTERN | body` (the body is the rest of the pipe).
    pub(super) fn binding(&mut self, source: Ast) -> PResult<Ast> {
        self.expect_kw("as")?;
        let saved = self.mark();
        let pattern = self.pattern()?;
        if self.is_op("?//") {
            return Err("destructuring alternatives (?//) are not supported".to_string());
        }
        self.expect_op("|")?;
        let body = self.pipe();
        self.truncate_scope(saved);
        Ok(Ast::Bind { source: Box::new(source), pattern, body: Box::new(body?) })
    }
}
