//! The awk grammar, part two: expressions, by precedence from lowest to highest:
//! assignment and `?:` (right-associative), `||`, `&&`, `in`, `~ !~`, comparisons,
//! `cmd | getline`, concatenation, `+ -`, `* / %`, unary `! - +`, `^` (right-associative),
//! `++ --`, `$`, grouping.
//!
//! Quirks kept from awk: concatenation's right operand cannot start with `-` or `+` (so
//! `1 " " -1` is `1 (" " - 1)`), a `>` inside `print`'s arguments is a redirection unless
//! parenthesized, and `getline < file` takes only a primary as its file.

use super::ast::*;
use super::lexer::Tok;
use super::parser::{PResult, Parser};

impl<'a> Parser<'a> {
    /// A full expression. `no_gt`: `>` ends the expression (print/printf arguments).
    pub(super) fn expr(&mut self, no_gt: bool) -> PResult<Expr> {
        self.ternary(no_gt)
    }

    fn ternary(&mut self, no_gt: bool) -> PResult<Expr> {
        let cond = self.or(no_gt)?;
        let op = match self.tok.tok {
            Tok::Assign => None,
            Tok::AddAssign => Some(BinOp::Add),
            Tok::SubAssign => Some(BinOp::Sub),
            Tok::MulAssign => Some(BinOp::Mul),
            Tok::DivAssign => Some(BinOp::Div),
            Tok::ModAssign => Some(BinOp::Mod),
            Tok::PowAssign => Some(BinOp::Pow),
            Tok::Question => {
                self.advance()?;
                self.skip_newlines()?;
                let then = self.ternary(no_gt)?;
                self.skip_newlines()?;
                self.expect(Tok::Colon)?;
                self.skip_newlines()?;
                let otherwise = self.ternary(no_gt)?;
                return Ok(Expr::Cond(Box::new(cond), Box::new(then), Box::new(otherwise)));
            }
            _ => return Ok(cond),
        };
        let target = match to_lvalue(&cond) {
            Some(lv) => lv,
            None => return Ok(cond),
        };
        self.advance()?;
        self.skip_newlines()?;
        let value = self.ternary(no_gt)?;
        if let (None, LValue::Var(v)) = (op, &target) {
            if let Some(rest) = strip_leftmost(&value, *v) {
                if appends_safely(&rest, *v) {
                    return Ok(Expr::Append(*v, Box::new(rest)));
                }
            }
        }
        Ok(match op {
            None => Expr::Assign(Box::new(target), Box::new(value)),
            Some(op) => Expr::AugAssign(op, Box::new(target), Box::new(value)),
        })
    }

    fn or(&mut self, no_gt: bool) -> PResult<Expr> {
        self.logical(no_gt, Tok::Or, Self::and, Expr::Or)
    }

    fn and(&mut self, no_gt: bool) -> PResult<Expr> {
        self.logical(no_gt, Tok::And, Self::in_expr, Expr::And)
    }

    /// `next (OP next)*` for `||` and `&&`, either of which may end a line.
    fn logical(&mut self, no_gt: bool, op: Tok, next: fn(&mut Self, bool) -> PResult<Expr>, join: fn(Box<Expr>, Box<Expr>) -> Expr) -> PResult<Expr> {
        let mut lhs = next(self, no_gt)?;
        while self.tok.tok == op {
            self.advance()?;
            self.skip_newlines()?;
            let rhs = next(self, no_gt)?;
            lhs = join(Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn in_expr(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut lhs = self.match_expr(no_gt)?;
        while self.tok.tok == Tok::In {
            self.advance()?;
            let array = self.array_name()?;
            lhs = Expr::In(vec![lhs], array);
        }
        Ok(lhs)
    }

    pub(super) fn array_name(&mut self) -> PResult<Var> {
        let name = match &self.tok.tok {
            Tok::Name(n) => n.clone(),
            _ => return self.error(),
        };
        let var = self.var(&name)?;
        self.mark_array(var);
        self.advance()?;
        Ok(var)
    }

    fn match_expr(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut lhs = self.comparison(no_gt)?;
        while matches!(self.tok.tok, Tok::Tilde | Tok::NoMatch) {
            let negate = self.tok.tok == Tok::NoMatch;
            self.advance()?;
            let rhs = self.comparison(no_gt)?;
            lhs = Expr::Match(negate, Box::new(lhs), regex_arg(rhs));
        }
        Ok(lhs)
    }

    fn comparison(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut lhs = self.pipe_getline(no_gt)?;
        loop {
            let op = match self.tok.tok {
                Tok::Lt => CmpOp::Lt,
                Tok::Le => CmpOp::Le,
                Tok::Ne => CmpOp::Ne,
                Tok::Eq => CmpOp::Eq,
                Tok::Ge => CmpOp::Ge,
                Tok::Gt if !no_gt => CmpOp::Gt,
                _ => return Ok(lhs),
            };
            self.advance()?;
            let rhs = self.pipe_getline(no_gt)?;
            lhs = Expr::Cmp(op, Box::new(lhs), Box::new(rhs));
        }
    }

    fn pipe_getline(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut lhs = self.concat(no_gt)?;
        while self.tok.tok == Tok::Pipe && self.peek_next()? == Tok::Getline {
            self.advance()?;
            self.advance()?;
            let target = self.optional_lvalue()?;
            lhs = Expr::Getline(GetlineSource::Command, Some(Box::new(lhs)), target.map(Box::new));
        }
        if self.tok.tok == Tok::PipeAmp {
            return self.error_msg("two-way pipes (|&) are not supported in the sandbox");
        }
        Ok(lhs)
    }

    /// Concatenation: operands side by side. Also used for redirection targets.
    pub(super) fn concat(&mut self, no_gt: bool) -> PResult<Expr> {
        let mut lhs = self.additive()?;
        while self.starts_operand() {
            let rhs = self.additive()?;
            lhs = Expr::Concat(Box::new(lhs), Box::new(rhs));
        }
        let _ = no_gt;
        Ok(lhs)
    }

    fn starts_operand(&self) -> bool {
        matches!(
            self.tok.tok,
            Tok::Number(_) | Tok::Str(_) | Tok::Name(_) | Tok::FuncName(_) | Tok::Builtin(_) | Tok::Dollar | Tok::Not | Tok::LParen | Tok::Incr | Tok::Decr
        )
    }

    fn additive(&mut self) -> PResult<Expr> {
        let op_of = |tok: &Tok| match tok {
            Tok::Plus => Some(BinOp::Add),
            Tok::Minus => Some(BinOp::Sub),
            _ => None,
        };
        self.binary(op_of, Self::multiplicative)
    }

    fn multiplicative(&mut self) -> PResult<Expr> {
        let op_of = |tok: &Tok| match tok {
            Tok::Star => Some(BinOp::Mul),
            Tok::Slash => Some(BinOp::Div),
            Tok::Percent => Some(BinOp::Mod),
            _ => None,
        };
        self.binary(op_of, Self::unary)
    }

    /// One left-associative arithmetic level: `next (OP next)*`.
    fn binary(&mut self, op_of: fn(&Tok) -> Option<BinOp>, next: fn(&mut Self) -> PResult<Expr>) -> PResult<Expr> {
        let mut lhs = next(self)?;
        while let Some(op) = op_of(&self.tok.tok) {
            self.advance()?;
            let rhs = next(self)?;
            // gawk folds constants, so a literal division by zero is a syntax error.
            if matches!(op, BinOp::Div | BinOp::Mod) && matches!(rhs, Expr::Num(n) if n == 0.0) && matches!(lhs, Expr::Num(_)) {
                return self.error_msg("division by zero attempted");
            }
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    pub(super) fn unary(&mut self) -> PResult<Expr> {
        match self.tok.tok {
            Tok::Not => {
                self.advance()?;
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            Tok::Minus => {
                self.advance()?;
                Ok(match self.unary()? {
                    Expr::Num(n) => Expr::Num(-n),
                    e => Expr::Neg(Box::new(e)),
                })
            }
            Tok::Plus => {
                self.advance()?;
                Ok(Expr::Plus(Box::new(self.unary()?)))
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> PResult<Expr> {
        let base = self.postfix()?;
        if self.tok.tok == Tok::Caret {
            self.advance()?;
            // Right-associative, and the exponent may carry a sign: 2^-1, 2^3^2.
            let exponent = self.unary()?;
            return Ok(Expr::Binary(BinOp::Pow, Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let e = self.primary()?;
        if matches!(self.tok.tok, Tok::Incr | Tok::Decr) {
            if let Some(lv) = to_lvalue(&e) {
                let delta = if self.tok.tok == Tok::Incr { 1.0 } else { -1.0 };
                self.advance()?;
                return Ok(Expr::PostIncr(Box::new(lv), delta));
            }
        }
        Ok(e)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let tok = self.tok.tok.clone();
        match tok {
            Tok::Number(n) => {
                self.advance()?;
                Ok(Expr::Num(n))
            }
            Tok::Str(s) => {
                self.advance()?;
                Ok(Expr::Str(s.into()))
            }
            Tok::Slash | Tok::DivAssign => {
                let source = self.lex.regex_at(self.tok.start)?;
                self.advance()?;
                Ok(Expr::Regex(self.add_regex(source)))
            }
            Tok::LParen => {
                self.advance()?;
                let mut list = self.expr_list(Tok::RParen)?;
                if list.len() > 1 {
                    if self.tok.tok != Tok::In {
                        return self.error();
                    }
                    self.advance()?;
                    let array = self.array_name()?;
                    return Ok(Expr::In(list, array));
                }
                match list.pop() {
                    Some(e) => Ok(Expr::Group(Box::new(e))),
                    None => self.error(),
                }
            }
            Tok::Incr | Tok::Decr => {
                let delta = if tok == Tok::Incr { 1.0 } else { -1.0 };
                self.advance()?;
                let target = self.primary()?;
                match to_lvalue(&target) {
                    Some(lv) => Ok(Expr::PreIncr(Box::new(lv), delta)),
                    None => self.error(),
                }
            }
            Tok::Dollar => {
                self.advance()?;
                let operand = match self.tok.tok {
                    Tok::Incr | Tok::Decr => self.primary()?,
                    Tok::Minus | Tok::Plus | Tok::Not => self.unary()?,
                    _ => self.primary()?,
                };
                Ok(Expr::Field(Box::new(operand)))
            }
            Tok::Name(name) => {
                self.advance()?;
                let var = self.var(&name)?;
                if self.tok.tok == Tok::LBracket {
                    self.mark_array(var);
                    let subs = self.subscripts()?;
                    return Ok(Expr::Index(var, subs));
                }
                Ok(Expr::Var(var))
            }
            Tok::FuncName(name) => {
                self.advance()?;
                self.call(&name)
            }
            Tok::Builtin(b) => {
                self.advance()?;
                self.builtin(b)
            }
            Tok::Getline => {
                self.advance()?;
                let target = self.optional_lvalue()?;
                if self.tok.tok == Tok::Lt {
                    self.advance()?;
                    let file = self.postfix()?;
                    return Ok(Expr::Getline(GetlineSource::File, Some(Box::new(file)), target.map(Box::new)));
                }
                Ok(Expr::Getline(GetlineSource::Main, None, target.map(Box::new)))
            }
            Tok::Not | Tok::Minus | Tok::Plus => self.unary(),
            Tok::Newline | Tok::Eof => self.error_msg("unexpected newline or end of string"),
            _ => self.error(),
        }
    }

    /// The variable after `getline`, if any: a name, an element or a field.
    fn optional_lvalue(&mut self) -> PResult<Option<LValue>> {
        match self.tok.tok {
            Tok::Name(_) | Tok::Dollar => {
                let e = self.primary()?;
                Ok(to_lvalue(&e))
            }
            _ => Ok(None),
        }
    }

    /// `[e1, e2, ...]` after an array name.
    pub(super) fn subscripts(&mut self) -> PResult<Vec<Expr>> {
        self.expect(Tok::LBracket)?;
        let list = self.expr_list(Tok::RBracket)?;
        if list.is_empty() {
            return self.error();
        }
        Ok(list)
    }

    /// A comma-separated list up to `close` (consumed); newlines may follow commas.
    pub(super) fn expr_list(&mut self, close: Tok) -> PResult<Vec<Expr>> {
        let mut list = Vec::new();
        self.skip_newlines()?;
        if self.tok.tok == close {
            self.advance()?;
            return Ok(list);
        }
        loop {
            list.push(self.expr(false)?);
            self.skip_newlines()?;
            if self.tok.tok == Tok::Comma {
                self.advance()?;
                self.skip_newlines()?;
                continue;
            }
            if self.tok.tok == close {
                self.advance()?;
                return Ok(list);
            }
            return self.error();
        }
    }

    fn call(&mut self, name: &str) -> PResult<Expr> {
        if let Some(locals) = &self.locals {
            if locals.contains_key(name) {
                return self.error_msg(&format!("attempt to use parameter `{}' as a function", name));
            }
        }
        let index = self.function_slot(name);
        self.expect(Tok::LParen)?;
        let args = self.expr_list(Tok::RParen)?;
        if let Some(caller) = self.current_function {
            for (position, arg) in args.iter().enumerate() {
                if let Expr::Var(Var::Local(param)) = arg {
                    self.param_passes.push((caller, *param, index, position));
                }
            }
        }
        Ok(Expr::Call(index, args))
    }

    fn builtin(&mut self, b: Builtin) -> PResult<Expr> {
        if self.tok.tok != Tok::LParen {
            if b == Builtin::Length {
                return Ok(Expr::Builtin(b, Vec::new()));
            }
            return self.error();
        }
        self.advance()?;
        let exprs = self.expr_list(Tok::RParen)?;
        let (min, max) = arity(b);
        if exprs.len() < min || exprs.len() > max {
            return self.error_msg(&format!("{}: called with {} arguments", b.name(), exprs.len()));
        }
        let mut args = Vec::with_capacity(exprs.len());
        for (i, e) in exprs.into_iter().enumerate() {
            let arg = match (b, i) {
                (Builtin::Split | Builtin::PatSplit, 1) | (Builtin::Split | Builtin::PatSplit, 3) | (Builtin::Match, 2) | (Builtin::Asort | Builtin::Asorti, 0) | (Builtin::Asort | Builtin::Asorti, 1) => {
                    match e {
                        Expr::Var(v) => {
                            self.mark_array(v);
                            Arg::Array(v)
                        }
                        _ => return self.error_msg(&format!("{}: argument {} is not an array", b.name(), i + 1)),
                    }
                }
                (Builtin::Split | Builtin::PatSplit, 2) | (Builtin::Match, 1) | (Builtin::Sub | Builtin::Gsub | Builtin::Gensub, 0) => Arg::Regex(regex_arg(e)),
                (Builtin::Sub | Builtin::Gsub, 2) => match to_lvalue(&e) {
                    Some(lv) => Arg::LValue(lv),
                    None => Arg::Expr(e),
                },
                _ => Arg::Expr(e),
            };
            args.push(arg);
        }
        Ok(Expr::Builtin(b, args))
    }
}

/// How many arguments each built-in takes.
fn arity(b: Builtin) -> (usize, usize) {
    use Builtin::*;
    match b {
        Length => (0, 1),
        Substr => (2, 3),
        Index | Atan2 | Lshift | Rshift => (2, 2),
        Split | PatSplit => (2, 4),
        Sub | Gsub => (2, 3),
        Gensub => (3, 4),
        Match => (2, 3),
        Sprintf => (1, usize::MAX),
        Sin | Cos | Exp | Log | Sqrt | Int | Tolower | Toupper | System | Compl | Isarray | Typeof => (1, 1),
        Rand | Systime => (0, 0),
        Srand | Fflush => (0, 1),
        Close => (1, 2),
        Strftime => (0, 3),
        Mktime => (1, 2),
        Asort | Asorti => (1, 3),
        And | Or | Xor => (2, usize::MAX),
        Strtonum => (1, 1),
    }
}

/// For `v = v a b`: the concatenation without its leading `v` (`a b`).
fn strip_leftmost(e: &Expr, v: Var) -> Option<Expr> {
    match e {
        Expr::Concat(left, right) => match &**left {
            Expr::Var(w) if *w == v => Some((**right).clone()),
            _ => strip_leftmost(left, v).map(|l| Expr::Concat(Box::new(l), right.clone())),
        },
        _ => None,
    }
}

/// Whether evaluating `e` can neither read nor change `v` (no calls, assignments or
/// getline, and no mention of `v`), so `v` may be appended to in place.
fn appends_safely(e: &Expr, v: Var) -> bool {
    let safe = |x: &Expr| appends_safely(x, v);
    match e {
        Expr::Num(_) | Expr::Str(_) | Expr::Regex(_) => true,
        Expr::Var(w) => *w != v,
        Expr::Field(x) | Expr::Not(x) | Expr::Neg(x) | Expr::Plus(x) | Expr::Group(x) => safe(x),
        Expr::Index(w, subs) | Expr::In(subs, w) => *w != v && subs.iter().all(safe),
        Expr::Cond(a, b, c) => safe(a) && safe(b) && safe(c),
        Expr::And(a, b) | Expr::Or(a, b) | Expr::Binary(_, a, b) | Expr::Cmp(_, a, b) | Expr::Concat(a, b) => safe(a) && safe(b),
        Expr::Match(_, a, re) => {
            safe(a)
                && match re {
                    RegexArg::Static(_) => true,
                    RegexArg::Dynamic(x) => safe(x),
                }
        }
        Expr::Builtin(b, args) => {
            !matches!(b, Builtin::Sub | Builtin::Gsub | Builtin::Split | Builtin::PatSplit | Builtin::Match | Builtin::Asort | Builtin::Asorti)
                && args.iter().all(|a| match a {
                    Arg::Expr(x) => safe(x),
                    Arg::Regex(RegexArg::Dynamic(x)) => safe(x),
                    Arg::Regex(RegexArg::Static(_)) => true,
                    Arg::Array(_) | Arg::LValue(_) => false,
                })
        }
        _ => false,
    }
}

pub fn to_lvalue(e: &Expr) -> Option<LValue> {
    match e {
        Expr::Var(v) => Some(LValue::Var(*v)),
        Expr::Field(f) => Some(LValue::Field(f.clone())),
        Expr::Index(v, subs) => Some(LValue::Index(*v, subs.clone())),
        _ => None,
    }
}

fn regex_arg(e: Expr) -> RegexArg {
    match e {
        Expr::Regex(id) => RegexArg::Static(id),
        Expr::Group(inner) if matches!(*inner, Expr::Regex(_)) => match *inner {
            Expr::Regex(id) => RegexArg::Static(id),
            other => RegexArg::Dynamic(Box::new(other)),
        },
        other => RegexArg::Dynamic(Box::new(other)),
    }
}
