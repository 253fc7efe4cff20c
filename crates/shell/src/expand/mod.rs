//! Word expansion, in bash's order: brace expansion, then tilde, parameter, arithmetic and
//! command substitution (left to right), then word splitting, pathname expansion and quote
//! removal. Errors are reported where they happen and come back as the [`Flow`] to take
//! (abandon the command line, or exit).

mod brace;
pub mod fields;
mod glob;
mod param;
mod param_ops;
mod subst;
mod tilde;

use shell_parser::ast::{ArrayElement, AssignValue, Word, WordPart};

use crate::exec::Flow;
use crate::options::{Opt, Shopt};
use crate::shell::Shell;
use crate::vars::{Assoc, Key, Value};
use fields::Fields;

/// Where a word is used, which decides splitting and what quoting means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ctx {
    /// Command arguments: split and globbed.
    Fields,
    /// One string (assignments, redirection targets, `[[ ]]` operands).
    String,
    /// A pattern (`case`, `[[ == ]]`, `${x#pattern}`): unquoted expansions keep their
    /// pattern characters, quoted ones are escaped.
    Pattern,
}

/// An assignment-like argument of `declare`/`local`/`export`/`readonly` (`a=(1 2)`).
#[derive(Debug, Clone, PartialEq)]
pub struct DeclArg {
    pub index: usize,
    pub name: String,
    pub append: bool,
    pub value: Value,
}

/// A simple command's words after expansion.
pub struct ExpandedCommand {
    pub fields: Vec<String>,
    pub decl: Vec<DeclArg>,
}

impl Shell {
    fn ifs(&mut self) -> Option<String> {
        self.get_scalar("IFS")
    }

    /// Expands a simple command's words. Assignment arguments of declaration builtins
    /// are expanded as assignments (no splitting); array values come back in `decl`.
    #[inline(never)]
    pub(crate) fn expand_command(&mut self, words: &[Word]) -> Result<ExpandedCommand, Flow> {
        let mut fields: Vec<String> = Vec::with_capacity(words.len());
        let mut decl = Vec::new();
        for word in words {
            // `declare -A m=(...)`: the array is associative before declare runs.
            let assoc = fields.len() > 1 && fields[1..].iter().any(|f| f.starts_with('-') && f.contains('A'));
            if let [WordPart::Assign(assignment)] = word.parts.as_slice() {
                match &assignment.value {
                    AssignValue::Scalar(value) => {
                        let op = if assignment.append { "+=" } else { "=" };
                        let subscript = match &assignment.subscript {
                            Some(sub) => format!("[{}]", self.expand_string(sub)?),
                            None => String::new(),
                        };
                        for value in brace::expand(value) {
                            let value = self.expand_assignment_value(&value)?;
                            fields.push(format!("{}{}{}{}", assignment.name, subscript, op, value));
                        }
                    }
                    AssignValue::Array(elements) => {
                        let value = self.expand_array_literal_as(&assignment.name, elements, assoc)?;
                        decl.push(DeclArg { index: fields.len(), name: assignment.name.clone(), append: assignment.append, value });
                        fields.push(format!("{}{}(...)", assignment.name, if assignment.append { "+=" } else { "=" }));
                    }
                }
                continue;
            }
            self.expand_word_into(word, &mut fields)?;
        }
        Ok(ExpandedCommand { fields, decl })
    }

    /// Expands words into fields (split, globbed, brace-expanded).
    pub(crate) fn expand_words(&mut self, words: &[Word]) -> Result<Vec<String>, Flow> {
        let mut out = Vec::new();
        for word in words {
            self.expand_word_into(word, &mut out)?;
        }
        Ok(out)
    }

    fn expand_word_into(&mut self, word: &Word, out: &mut Vec<String>) -> Result<(), Flow> {
        // The common case: one plain word.
        if let [WordPart::Literal(text)] = word.parts.as_slice() {
            if !crate::pattern::has_glob_chars(text, self.options.shopt(Shopt::Extglob)) || self.options.get(Opt::Noglob) {
                out.push(text.clone());
                return Ok(());
            }
        }
        let has_brace = word.parts.iter().any(|p| matches!(p, WordPart::Brace(_)));
        if has_brace && self.options.get(Opt::Braceexpand) {
            for variant in brace::expand(word) {
                self.expand_one_word(&variant, out)?;
            }
            return Ok(());
        }
        self.expand_one_word(word, out)
    }

    fn expand_one_word(&mut self, word: &Word, out: &mut Vec<String>) -> Result<(), Flow> {
        let ifs = self.ifs();
        let extglob = self.options.shopt(Shopt::Extglob);
        let mut fields = Fields::splitting(ifs.as_deref(), extglob);
        self.expand_parts(&word.parts, false, Ctx::Fields, &mut fields)?;
        let noglob = self.options.get(Opt::Noglob);
        for field in fields.finish() {
            if field.has_glob && !noglob {
                self.glob_field(&field, out)?;
            } else {
                out.push(field.text);
            }
        }
        Ok(())
    }

    /// Expands to one string: no splitting, no globbing.
    pub(crate) fn expand_string(&mut self, word: &Word) -> Result<String, Flow> {
        match word.parts.as_slice() {
            [] => return Ok(String::new()),
            [WordPart::Literal(text)] | [WordPart::Quoted(text)] => return Ok(text.clone()),
            [WordPart::Arith(expr, text)] => {
                return match self.eval_arith_source(expr, text) {
                    Ok(value) => Ok(value.to_string()),
                    Err(failure) => Err(self.arith_error(&failure, text)),
                }
            }
            _ => {}
        }
        let mut fields = Fields::whole(false);
        self.expand_parts(&word.parts, false, Ctx::String, &mut fields)?;
        Ok(fields.into_string())
    }

    /// An assignment's value: one string (tilde prefixes were marked by the parser).
    pub(crate) fn expand_assignment_value(&mut self, word: &Word) -> Result<String, Flow> {
        self.expand_string(word)
    }

    /// A pattern: quoted characters escaped with `\`.
    pub(crate) fn expand_pattern(&mut self, word: &Word) -> Result<String, Flow> {
        let extglob = self.options.shopt(Shopt::Extglob);
        let mut fields = Fields::whole(extglob);
        self.expand_parts(&word.parts, false, Ctx::Pattern, &mut fields)?;
        Ok(fields.into_pattern())
    }

    /// A here-document body (`$`, `` ` `` and `\` expansions only).
    pub(crate) fn expand_heredoc(&mut self, word: &Word) -> Result<String, Flow> {
        let mut fields = Fields::whole(false);
        self.expand_parts(&word.parts, true, Ctx::String, &mut fields)?;
        Ok(fields.into_string())
    }

    /// Arithmetic text with expansions, expanded before it is parsed.
    pub(crate) fn expand_arith_word(&mut self, word: &Word) -> Result<String, Flow> {
        self.expand_heredoc(word)
    }

    /// The parts of a word into a field builder. `quoted`: inside double quotes.
    pub(crate) fn expand_parts(&mut self, parts: &[WordPart], quoted: bool, ctx: Ctx, out: &mut Fields) -> Result<(), Flow> {
        for part in parts {
            match part {
                WordPart::Literal(text) => {
                    if quoted {
                        out.push_quoted(text)
                    } else {
                        out.push_literal(text)
                    }
                }
                WordPart::Quoted(text) | WordPart::AnsiQuoted(text) => out.push_quoted(text),
                WordPart::DoubleQuoted(inner) => {
                    if !inner.iter().all(param::is_list_at) || inner.is_empty() {
                        out.mark_started();
                    }
                    self.expand_parts(inner, true, ctx, out)?;
                }
                WordPart::Tilde(user) => {
                    let home = self.tilde(user);
                    out.push_quoted(&home);
                }
                WordPart::Param(expansion) => self.expand_param(expansion, quoted, ctx, out)?,
                WordPart::CommandSubst { body, .. } => {
                    let text = self.command_substitution(body)?;
                    push_result(&text, quoted, ctx, out);
                }
                WordPart::Arith(expr, text) => {
                    let value = match self.eval_arith_source(expr, text) {
                        Ok(value) => value,
                        Err(failure) => return Err(self.arith_error(&failure, text)),
                    };
                    push_result(&value.to_string(), quoted, ctx, out);
                }
                WordPart::ProcessSubst { body, output } => {
                    let path = self.process_substitution(body, *output)?;
                    out.push_quoted(&path);
                }
                WordPart::Brace(_) | WordPart::Assign(_) => {
                    let text = shell_parser::printer::word_to_string(&Word { parts: vec![part.clone()] });
                    out.push_literal(&text);
                }
                WordPart::BadSubst(text) => {
                    self.report(&format!("{}: bad substitution", text));
                    self.status = 1;
                    return Err(Flow::Abort);
                }
            }
        }
        Ok(())
    }

    /// Reports an arithmetic error in an expansion: fatal ones end the shell, others the
    /// command line.
    pub(crate) fn arith_error(&mut self, failure: &crate::arith::ArithFailure, _text: &str) -> Flow {
        if failure.message.is_empty() {
            return Flow::Abort;
        }
        self.report(&failure.message);
        if failure.fatal {
            self.status = self.fatal_status();
            return Flow::Exit;
        }
        self.status = 1;
        Flow::Abort
    }

    /// Evaluates a subscript: arithmetic for indexed arrays, a string for associative.
    pub(crate) fn eval_subscript(&mut self, name: &str, word: &Word) -> Result<Key, Flow> {
        let text = self.expand_string(word)?;
        if self.is_assoc(name) {
            if text.is_empty() {
                self.report(&format!("{}[{}]: bad array subscript", name, text));
                self.status = 1;
                return Err(Flow::Abort);
            }
            return Ok(Key::Name(text));
        }
        match self.eval_arith_text(&text) {
            Ok(index) => Ok(Key::Index(index)),
            Err(message) => {
                self.report(&message);
                self.status = 1;
                Err(Flow::Abort)
            }
        }
    }

    /// `(a b [k]=v)` to an array value (associative if `name` is one).
    pub(crate) fn expand_array_literal_onto(&mut self, name: &str, elements: &[ArrayElement], base: Value) -> Result<Value, Flow> {
        self.expand_array_literal_base(name, elements, false, base)
    }

    fn expand_array_literal_as(&mut self, name: &str, elements: &[ArrayElement], assoc: bool) -> Result<Value, Flow> {
        self.expand_array_literal_base(name, elements, assoc, Value::Unset)
    }

    /// The array `elements` make, starting from `base` (what `+=` extends).
    fn expand_array_literal_base(&mut self, name: &str, elements: &[ArrayElement], assoc: bool, base: Value) -> Result<Value, Flow> {
        let integer = self.vars.get(name).map_or(false, |v| v.has(crate::vars::attr::INTEGER));
        if assoc || self.is_assoc(name) {
            let mut assoc = match base {
                Value::Assoc(existing) => existing,
                _ => Assoc::new(),
            };
            let mut pending_key: Option<String> = None;
            for element in elements {
                match element {
                    ArrayElement::Keyed { key, value, append } => {
                        let key = self.expand_string(key)?;
                        // bash leaves `~` in `[key]=value` of an associative array as it is.
                        let value = self.expand_string(&without_tildes(value))?;
                        let value = if *append { appended(assoc.get(&key).unwrap_or(""), value, integer) } else { value };
                        assoc.insert(key, value);
                    }
                    ArrayElement::Plain(word) => {
                        // `declare -A m=(k1 v1 k2 v2)`: alternating keys and values.
                        for item in self.expand_words(std::slice::from_ref(word))? {
                            match pending_key.take() {
                                Some(key) => assoc.insert(key, item),
                                None => pending_key = Some(item),
                            }
                        }
                    }
                }
            }
            if let Some(key) = pending_key {
                assoc.insert(key, String::new());
            }
            return Ok(Value::Assoc(assoc));
        }
        let mut map = match base {
            Value::Indexed(existing) => existing,
            Value::Scalar(s) => std::iter::once((0, s)).collect(),
            _ => std::collections::BTreeMap::new(),
        };
        let mut next: i64 = map.keys().next_back().map_or(0, |k| k + 1);
        for element in elements {
            match element {
                ArrayElement::Keyed { key, value, append } => {
                    let text = self.expand_string(key)?;
                    let index = match self.eval_arith_text(&text) {
                        Ok(index) => index,
                        Err(message) => {
                            self.report(&message);
                            self.status = 1;
                            return Err(Flow::Abort);
                        }
                    };
                    let value = self.expand_string(value)?;
                    let value = if *append { appended(map.get(&index).map_or("", |v: &String| v.as_str()), value, integer) } else { value };
                    map.insert(index, value);
                    next = index + 1;
                }
                ArrayElement::Plain(word) => {
                    for item in self.expand_words(std::slice::from_ref(word))? {
                        map.insert(next, item);
                        next += 1;
                    }
                }
            }
        }
        Ok(Value::Indexed(map))
    }
}

/// An expansion result (command substitution, arithmetic) into the builder.
fn push_result(text: &str, quoted: bool, ctx: Ctx, out: &mut Fields) {
    if quoted {
        out.push_quoted(text);
    } else if ctx == Ctx::Pattern {
        out.push_pattern(text);
    } else {
        out.push_expanded(text);
    }
}

/// `[k]+=value`: appended text, or for an integer array a sum its evaluation computes.
fn appended(old: &str, value: String, integer: bool) -> String {
    if integer {
        format!("{}+({})", if old.is_empty() { "0" } else { old }, value)
    } else {
        format!("{}{}", old, value)
    }
}

/// `word` with its tilde prefixes as the text they were written as.
fn without_tildes(word: &Word) -> std::borrow::Cow<'_, Word> {
    if !word.parts.iter().any(|p| matches!(p, WordPart::Tilde(_))) {
        return std::borrow::Cow::Borrowed(word);
    }
    let parts = word
        .parts
        .iter()
        .map(|p| match p {
            WordPart::Tilde(prefix) => WordPart::Literal(format!("~{}", prefix)),
            other => other.clone(),
        })
        .collect();
    std::borrow::Cow::Owned(Word { parts })
}
