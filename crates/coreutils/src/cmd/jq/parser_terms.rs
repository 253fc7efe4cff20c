//! The parts of jq's grammar that build values and bindings: destructuring patterns,
//! string literals with interpolation, and object construction (`{a, "b": 1, (.k): v}`).

use std::rc::Rc;

use super::ast::{Ast, ObjKey, Pattern, StrPiece};
use super::lexer::{StrPart, Tok};
use super::parser::{Entry, PResult, Parser};
use super::value::Value;

impl<'f> Parser<'f> {
    /// Parses a pattern, declaring its variables (in slot order).
    pub(super) fn pattern(&mut self) -> PResult<Pattern> {
        match self.peek().cloned() {
            Some(Tok::Var(name)) => {
                self.pos += 1;
                self.push_slot(Entry::Var, name);
                Ok(Pattern::Var)
            }
            Some(Tok::Op("[")) => {
                self.pos += 1;
                Ok(Pattern::Array(self.separated(Self::pattern, ",", "]")?))
            }
            Some(Tok::Op("{")) => {
                self.pos += 1;
                let mut entries = Vec::new();
                loop {
                    let entry = match self.peek().cloned() {
                        Some(Tok::Var(name)) => {
                            self.pos += 1;
                            self.push_slot(Entry::Var, name.clone());
                            let sub = if self.is_op(":") {
                                self.pos += 1;
                                Some(self.pattern()?)
                            } else {
                                None
                            };
                            (ObjKey::Literal(name), true, sub)
                        }
                        Some(Tok::Ident(name)) => {
                            self.pos += 1;
                            self.expect_op(":")?;
                            (ObjKey::Literal(name), false, Some(self.pattern()?))
                        }
                        Some(Tok::Keyword(k)) => {
                            self.pos += 1;
                            self.expect_op(":")?;
                            (ObjKey::Literal(Rc::from(k)), false, Some(self.pattern()?))
                        }
                        Some(Tok::Str(_)) => {
                            let key = self.string_term(None)?;
                            self.expect_op(":")?;
                            (ObjKey::Expr(key), false, Some(self.pattern()?))
                        }
                        Some(Tok::Op("(")) => {
                            self.pos += 1;
                            let key = self.pipe()?;
                            self.expect_op(")")?;
                            self.expect_op(":")?;
                            (ObjKey::Expr(key), false, Some(self.pattern()?))
                        }
                        _ => return self.unexpected(),
                    };
                    entries.push(entry);
                    if self.is_op(",") {
                        self.pos += 1;
                        continue;
                    }
                    self.expect_op("}")?;
                    return Ok(Pattern::Object(entries));
                }
            }
            _ => self.unexpected(),
        }
    }

    /// A string literal (or interpolation), with an optional @format.
    pub(super) fn string_term(&mut self, format: Option<Rc<str>>) -> PResult<Ast> {
        let parts = match self.peek().cloned() {
            Some(Tok::Str(parts)) => parts,
            _ => return self.unexpected(),
        };
        self.pos += 1;
        if parts.len() == 1 {
            if let StrPart::Lit(s) = &parts[0] {
                if format.is_none() {
                    return Ok(Ast::Literal(Value::from_str(s)));
                }
            }
        }
        let mut pieces = Vec::new();
        for part in parts {
            match part {
                StrPart::Lit(s) => pieces.push(StrPiece::Lit(Rc::from(s))),
                StrPart::Interp(tokens) => {
                    let saved_toks = std::mem::replace(&mut self.toks, tokens);
                    let saved_pos = std::mem::replace(&mut self.pos, 0);
                    let inner = self.pipe();
                    let leftover = self.peek().is_some();
                    let described = if leftover { Some(self.unexpected::<()>()) } else { None };
                    self.toks = saved_toks;
                    self.pos = saved_pos;
                    let inner = inner?;
                    if let Some(Err(e)) = described {
                        return Err(e);
                    }
                    pieces.push(StrPiece::Expr(inner));
                }
            }
        }
        Ok(Ast::Interp(pieces, format))
    }

    pub(super) fn object(&mut self) -> PResult<Ast> {
        let mut entries = Vec::new();
        if self.is_op("}") {
            self.pos += 1;
            return Ok(Ast::Object(entries));
        }
        loop {
            let (key, value) = match self.peek().cloned() {
                Some(Tok::Var(name)) => {
                    self.pos += 1;
                    if &*name == "__loc__" {
                        return Err("syntax error, unexpected __loc__, expecting IDENT".to_string());
                    }
                    let v = Ast::Var(self.lookup_var(&name)?);
                    (ObjKey::Literal(name), v)
                }
                Some(Tok::Ident(name)) => {
                    self.pos += 1;
                    self.key_value(ObjKey::Literal(name.clone()), Ast::Field(Box::new(Ast::Identity), name))?
                }
                Some(Tok::Keyword(k)) => {
                    self.pos += 1;
                    let name: Rc<str> = Rc::from(k);
                    self.key_value(ObjKey::Literal(name.clone()), Ast::Field(Box::new(Ast::Identity), name))?
                }
                Some(Tok::Number(n)) if self.peek_at(1) == Some(&Tok::Op(":")) => {
                    let _ = n;
                    return Err("syntax error, unexpected LITERAL, expecting '}'".to_string());
                }
                Some(Tok::Str(_)) | Some(Tok::Format(_)) => {
                    let format = match self.peek().cloned() {
                        Some(Tok::Format(f)) => {
                            self.pos += 1;
                            Some(f)
                        }
                        _ => None,
                    };
                    let key = self.string_term(format)?;
                    match key {
                        Ast::Literal(Value::String(s)) => {
                            let default = Ast::Field(Box::new(Ast::Identity), s.clone());
                            self.key_value(ObjKey::Literal(s), default)?
                        }
                        other => {
                            if self.is_op(":") {
                                self.pos += 1;
                                let v = self.object_value()?;
                                (ObjKey::Expr(other), v)
                            } else {
                                return Err("object keys without values must be literal strings or identifiers".to_string());
                            }
                        }
                    }
                }
                Some(Tok::Op("(")) => {
                    self.pos += 1;
                    let key = self.pipe()?;
                    self.expect_op(")")?;
                    self.expect_op(":")?;
                    if let Ast::Literal(k) = &key {
                        if !matches!(k, Value::String(_)) {
                            return Err(format!("Cannot use {} ({}) as object key", k.kind(), k.dump_trunc()));
                        }
                    }
                    let v = self.object_value()?;
                    (ObjKey::Expr(key), v)
                }
                _ => return self.unexpected(),
            };
            entries.push((key, value));
            if self.is_op(",") {
                self.pos += 1;
                continue;
            }
            if self.is_op("}") {
                self.pos += 1;
                return Ok(Ast::Object(entries));
            }
            return Err(format!("syntax error, unexpected {}, expecting '}}'", self.describe()));
        }
    }

    pub(super) fn key_value(&mut self, key: ObjKey, default: Ast) -> PResult<(ObjKey, Ast)> {
        if self.is_op(":") {
            self.pos += 1;
            let v = self.object_value()?;
            Ok((key, v))
        } else {
            Ok((key, default))
        }
    }

    /// jq's ExpD: terms joined by `|`, or a negated one.
    pub(super) fn object_value(&mut self) -> PResult<Ast> {
        let first = if self.is_op("-") {
            self.pos += 1;
            Ast::Neg(Box::new(self.object_value()?))
        } else {
            self.postfix(false)?
        };
        if self.is_op("|") {
            self.pos += 1;
            let rest = self.object_value()?;
            return Ok(Ast::Pipe(Box::new(first), Box::new(rest)));
        }
        Ok(first)
    }}
