//! The awk grammar, part two: statements. A simple statement ends at `;`, a newline, or
//! before `}` (or `else`); newlines may follow `{`, `do`, `else` and the `)` of `if`,
//! `for` and `while`.

use super::ast::*;
use super::lexer::Tok;
use super::parser::{PResult, Parser};

impl<'a> Parser<'a> {
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
            Tok::Next | Tok::NextFile | Tok::Break | Tok::Continue => {
                let outside_loop = "is not allowed outside a loop or switch";
                let (word, stmt, allowed, otherwise) = match self.tok.tok {
                    Tok::Next => ("next", Stmt::Next, !self.in_begin_end, "used in BEGIN or END action"),
                    Tok::NextFile => ("nextfile", Stmt::NextFile, !self.in_begin_end, "used in BEGIN or END action"),
                    Tok::Break => ("break", Stmt::Break, self.loop_depth > 0, outside_loop),
                    _ => ("continue", Stmt::Continue, self.loop_depth > 0, outside_loop),
                };
                if !allowed {
                    return self.error_msg(&format!("`{}' {}", word, otherwise));
                }
                self.advance()?;
                stmt
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
            Tok::Delete => {
                self.advance()?;
                let paren = self.tok.tok == Tok::LParen;
                if paren {
                    self.advance()?;
                }
                let var = self.array_name()?;
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
