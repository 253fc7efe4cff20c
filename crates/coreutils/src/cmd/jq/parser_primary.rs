//! jq's primary terms: `.`, `..`, literals, `$var`, calls, `(…)`, `[…]`, `{…}`, `@format`,
//! and the keyword forms `if`, `try`, `reduce`, `foreach`, `def`, `label` (parser.rs has the
//! operators above them, parser_terms.rs patterns, strings and objects).

use super::ast::Ast;
use super::builtins;
use super::lexer::Tok;
use super::parser::{Entry, PResult, Parser};
use super::value::Value;

impl<'f> Parser<'f> {
    pub(super) fn primary(&mut self) -> PResult<Ast> {
        let (tok, offset) = match self.toks.get(self.pos) {
            Some((t, o)) => (t.clone(), *o),
            None => return self.unexpected(),
        };
        match tok {
            Tok::Op(".") => {
                self.pos += 1;
                if let Some(Tok::Str(_)) = self.peek() {
                    let key = self.string_term(None)?;
                    return Ok(Ast::Index(Box::new(Ast::Identity), Box::new(key)));
                }
                Ok(Ast::Identity)
            }
            Tok::Op("..") => {
                self.pos += 1;
                Ok(Ast::RecurseAll)
            }
            Tok::Field(name) => {
                self.pos += 1;
                Ok(Ast::Field(Box::new(Ast::Identity), name))
            }
            Tok::Number(n) => {
                self.pos += 1;
                Ok(Ast::Literal(Value::Number(n)))
            }
            Tok::Str(_) => self.string_term(None),
            Tok::Format(name) => {
                self.pos += 1;
                if let Some(Tok::Str(_)) = self.peek() {
                    return self.string_term(Some(name));
                }
                Ok(Ast::Format(name))
            }
            Tok::Op("(") => {
                self.pos += 1;
                let inner = self.pipe()?;
                self.expect_op(")")?;
                Ok(inner)
            }
            Tok::Op("[") => {
                self.pos += 1;
                if self.is_op("]") {
                    self.pos += 1;
                    return Ok(Ast::Array(None));
                }
                let inner = self.pipe()?;
                self.expect_op("]")?;
                Ok(Ast::Array(Some(Box::new(inner))))
            }
            Tok::Op("{") => {
                self.pos += 1;
                self.object()
            }
            Tok::Var(name) => {
                self.pos += 1;
                if &*name == "__loc__" {
                    return Ok(Ast::Loc(self.line_of(offset)));
                }
                match self.lookup_var(&name) {
                    Ok(hops) => Ok(Ast::Var(hops)),
                    Err(_) if &*name == "ENV" => Ok(Ast::CallNative(builtins::Native::EnvVar, Vec::new())),
                    Err(e) => Err(e),
                }
            }
            Tok::Keyword("__loc__") => self.unexpected(),
            Tok::Keyword("if") => {
                self.pos += 1;
                self.conditional()
            }
            Tok::Keyword("try") => {
                self.pos += 1;
                let body = self.postfix(false)?;
                let handler = if self.is_kw("catch") {
                    self.pos += 1;
                    Some(Box::new(self.postfix(false)?))
                } else {
                    None
                };
                Ok(Ast::Try(Box::new(body), handler))
            }
            Tok::Keyword("reduce") | Tok::Keyword("foreach") => {
                self.pos += 1;
                self.fold(tok == Tok::Keyword("reduce"))
            }
            Tok::Keyword("label") => {
                self.pos += 1;
                let name = match self.peek().cloned() {
                    Some(Tok::Var(n)) => n,
                    _ => return self.unexpected(),
                };
                self.pos += 1;
                self.expect_op("|")?;
                let saved = self.mark();
                self.push_slot(Entry::Label, name);
                let body = self.pipe();
                self.truncate_scope(saved);
                Ok(Ast::Label(Box::new(body?)))
            }
            Tok::Keyword("def") => self.pipe(),
            Tok::Keyword("import") | Tok::Keyword("include") => Err("modules (import/include) are not supported in the sandbox".to_string()),
            Tok::Ident(name) => {
                self.pos += 1;
                if &*name == "break" {
                    if let Some(Tok::Var(label)) = self.peek().cloned() {
                        self.pos += 1;
                        for e in self.scope.entries.iter().rev() {
                            if let Entry::Label(n, slot) = e {
                                if *n == label {
                                    return Ok(Ast::Break(self.scope.slots - 1 - slot));
                                }
                            }
                        }
                        return Err(format!("$*label-{} is not defined", label));
                    }
                }
                if !self.is_op("(") {
                    match &*name {
                        "null" => return Ok(Ast::Literal(Value::Null)),
                        "true" => return Ok(Ast::Literal(Value::Bool(true))),
                        "false" => return Ok(Ast::Literal(Value::Bool(false))),
                        _ => {}
                    }
                }
                let mut args = Vec::new();
                if self.is_op("(") {
                    self.pos += 1;
                    args = self.separated(Self::pipe, ";", ")")?;
                }
                self.resolve_call(&name, args)
            }
            _ => self.unexpected(),
        }
    }

    pub(super) fn conditional(&mut self) -> PResult<Ast> {
        let cond = self.pipe()?;
        self.expect_kw("then")?;
        let then = self.pipe()?;
        let otherwise = if self.is_kw("elif") {
            self.pos += 1;
            return Ok(Ast::If(Box::new(cond), Box::new(then), Box::new(self.conditional()?)));
        } else if self.is_kw("else") {
            self.pos += 1;
            let e = self.pipe()?;
            self.expect_kw("end")?;
            e
        } else {
            return self.unexpected();
        };
        Ok(Ast::If(Box::new(cond), Box::new(then), Box::new(otherwise)))
    }

    pub(super) fn fold(&mut self, reduce: bool) -> PResult<Ast> {
        let source = self.postfix(false)?;
        self.expect_kw("as")?;
        let saved = self.mark();
        let outer = self.scope.clone();
        let pattern = self.pattern()?;
        self.expect_op("(")?;
        // The initial value does not see the pattern's variables.
        let inner = std::mem::replace(&mut self.scope, outer);
        let init = self.pipe();
        self.scope = inner;
        let init = init?;
        self.expect_op(";")?;
        let update = self.pipe()?;
        let mut extract = None;
        if !reduce && self.is_op(";") {
            self.pos += 1;
            extract = Some(Box::new(self.pipe()?));
        }
        self.truncate_scope(saved);
        self.expect_op(")")?;
        Ok(if reduce {
            Ast::Reduce { source: Box::new(source), pattern, init: Box::new(init), update: Box::new(update) }
        } else {
            Ast::Foreach { source: Box::new(source), pattern, init: Box::new(init), update: Box::new(update), extract }
        })
    }


}
