//! bc's expression grammar, from `||` (loosest) down to primaries, calls and array
//! arguments (the precedence is listed in parse.rs). Statements and definitions, which use
//! these, are in parse.rs.

use super::{Arg, Expr, LValue, PResult, Parser, Tok, KEYWORDS};

impl<'a> Parser<'a> {
    pub(super) fn paren_expr(&mut self) -> PResult<Expr> {
        self.expect("(")?;
        let e = self.expr()?;
        self.expect(")")?;
        Ok(e)
    }

    pub(super) fn optional_expr(&mut self, end: &str) -> PResult<Option<Expr>> {
        if self.is_op(end)? {
            Ok(None)
        } else {
            Ok(Some(self.expr()?))
        }
    }

    pub fn expr(&mut self) -> PResult<Expr> {
        self.binary(&["||"], Self::and_expr)
    }

    fn and_expr(&mut self) -> PResult<Expr> {
        self.binary(&["&&"], Self::not_expr)
    }

    /// One left-associative level: `next (OP next)*` for the operators in `ops`.
    fn binary(&mut self, ops: &[&str], next: fn(&mut Self) -> PResult<Expr>) -> PResult<Expr> {
        let mut left = next(self)?;
        loop {
            let op = match self.peek()? {
                Tok::Op(o) if ops.contains(o) => *o,
                _ => return Ok(left),
            };
            self.next()?;
            left = Expr::Bin(op, Box::new(left), Box::new(next(self)?));
        }
    }

    fn not_expr(&mut self) -> PResult<Expr> {
        if self.is_op("!")? {
            self.next()?;
            return Ok(Expr::Not(Box::new(self.not_expr()?)));
        }
        self.rel_expr()
    }

    fn rel_expr(&mut self) -> PResult<Expr> {
        self.binary(&["<", "<=", ">", ">=", "==", "!="], Self::assign_expr)
    }

    fn assign_expr(&mut self) -> PResult<Expr> {
        let left = self.add_expr()?;
        let op = match self.peek()? {
            Tok::Op(o) if matches!(*o, "=" | "+=" | "-=" | "*=" | "/=" | "%=" | "^=") => *o,
            _ => return Ok(left),
        };
        let target = match left {
            Expr::Load(lv) => lv,
            _ => return self.err(),
        };
        self.next()?;
        let value = if self.is_op("!")? { self.not_expr()? } else { self.assign_expr()? };
        let op = if op == "=" { None } else { Some(&op[..1]) };
        let op = op.map(|o| match o {
            "+" => "+",
            "-" => "-",
            "*" => "*",
            "/" => "/",
            "%" => "%",
            _ => "^",
        });
        Ok(Expr::Assign(target, op, Box::new(value)))
    }

    fn add_expr(&mut self) -> PResult<Expr> {
        self.binary(&["+", "-"], Self::mul_expr)
    }

    fn mul_expr(&mut self) -> PResult<Expr> {
        self.binary(&["*", "/", "%"], Self::pow_expr)
    }

    fn pow_expr(&mut self) -> PResult<Expr> {
        let base = self.unary_expr()?;
        if self.is_op("^")? {
            self.next()?;
            return Ok(Expr::Bin("^", Box::new(base), Box::new(self.pow_expr()?)));
        }
        Ok(base)
    }

    fn unary_expr(&mut self) -> PResult<Expr> {
        if self.is_op("-")? {
            self.next()?;
            return Ok(Expr::Neg(Box::new(self.unary_expr()?)));
        }
        for (op, delta) in [("++", 1i8), ("--", -1i8)] {
            if self.is_op(op)? {
                self.next()?;
                return match self.primary()? {
                    Expr::Load(lv) => Ok(Expr::Step(lv, delta, true)),
                    _ => self.err(),
                };
            }
        }
        let e = self.primary()?;
        for (op, delta) in [("++", 1i8), ("--", -1i8)] {
            if self.is_op(op)? {
                if let Expr::Load(lv) = e {
                    self.next()?;
                    return Ok(Expr::Step(lv, delta, false));
                }
                return self.err();
            }
        }
        Ok(e)
    }

    fn primary(&mut self) -> PResult<Expr> {
        match self.next()? {
            Tok::Num(n) => Ok(Expr::Num(n)),
            Tok::Op("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                Ok(match e {
                    Expr::Assign(..) => Expr::Group(Box::new(e)),
                    e => e,
                })
            }
            Tok::Op(".") => Ok(Expr::Load(LValue::Last)),
            Tok::Name(n) => match n.as_str() {
                "scale" if self.is_op("(")? => Ok(Expr::ScaleOf(Box::new(self.paren_expr()?))),
                "scale" => Ok(Expr::Load(LValue::Scale)),
                "ibase" => Ok(Expr::Load(LValue::Ibase)),
                "obase" => Ok(Expr::Load(LValue::Obase)),
                "last" => Ok(Expr::Load(LValue::Last)),
                "length" => Ok(Expr::Length(Box::new(self.paren_expr()?))),
                "sqrt" => Ok(Expr::Sqrt(Box::new(self.paren_expr()?))),
                _ if KEYWORDS.contains(&n.as_str()) => self.err(),
                _ => {
                    if self.is_op("(")? {
                        self.next()?;
                        let args = self.call_args()?;
                        return Ok(Expr::Call(n, args));
                    }
                    if self.is_op("[")? {
                        self.next()?;
                        let index = self.expr()?;
                        self.expect("]")?;
                        return Ok(Expr::Load(LValue::Elem(n, Box::new(index))));
                    }
                    Ok(Expr::Load(LValue::Var(n)))
                }
            },
            _ => self.err(),
        }
    }

    fn call_args(&mut self) -> PResult<Vec<Arg>> {
        let mut args = Vec::new();
        if self.is_op(")")? {
            self.next()?;
            return Ok(args);
        }
        loop {
            // `name[]` passes an array.
            let arg = if let Tok::Name(n) = self.peek()?.clone() {
                let save = (self.lx.clone(), self.peeked.clone());
                self.next()?;
                if self.is_op("[")? {
                    self.next()?;
                    if self.is_op("]")? {
                        self.next()?;
                        Some(Arg::Array(n))
                    } else {
                        self.lx = save.0;
                        self.peeked = save.1;
                        None
                    }
                } else {
                    self.lx = save.0;
                    self.peeked = save.1;
                    None
                }
            } else {
                None
            };
            args.push(match arg {
                Some(a) => a,
                None => Arg::Value(self.expr()?),
            });
            if self.is_op(")")? {
                self.next()?;
                return Ok(args);
            }
            self.expect(",")?;
        }
    }
}
