//! Parameter expansion: `$x`, `${x...}` with every operator, `$@`/`$*`, arrays,
//! indirection.

use shell_parser::ast::{CaseMode, Param, ParamExpansion, ParamOp, Subscript, Word, WordPart};

use super::fields::Fields;
use super::param_ops::{change_case, replace, Piece};
use super::Ctx;
use crate::exec::Flow;
use crate::options::{Opt, Shopt};
use crate::pattern::Pattern;
use crate::shell::Shell;
use crate::vars::{attr, Value};

/// A parameter's value before quoting decides how it enters the word.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ParamValue {
    Unset,
    Str(String),
    /// `$@`, `${a[@]}` (`star`: `$*`, `${a[*]}`).
    List(Vec<String>, bool),
}

impl ParamValue {
    fn is_null(&self) -> bool {
        match self {
            ParamValue::Unset => true,
            ParamValue::Str(s) => s.is_empty(),
            ParamValue::List(items, _) => items.iter().all(|i| i.is_empty()),
        }
    }

    fn map(self, mut f: impl FnMut(String) -> String) -> ParamValue {
        match self {
            ParamValue::Unset => ParamValue::Unset,
            ParamValue::Str(s) => ParamValue::Str(f(s)),
            ParamValue::List(items, star) => ParamValue::List(items.into_iter().map(f).collect(), star),
        }
    }
}

/// `$@` or `${a[@]}` (with any operator): quotes around only these make no field when
/// the list is empty.
pub(crate) fn is_list_at(part: &WordPart) -> bool {
    match part {
        WordPart::Param(p) => match &p.param {
            Param::Special('@') => true,
            Param::Var { index: Some(Subscript::At), .. } => !matches!(p.op, ParamOp::Length),
            _ => false,
        },
        _ => false,
    }
}

impl Shell {
    pub(crate) fn expand_param(&mut self, expansion: &ParamExpansion, quoted: bool, ctx: Ctx, out: &mut Fields) -> Result<(), Flow> {
        let value = match &expansion.op {
            ParamOp::PrefixNames { star } => {
                let prefix = match &expansion.param {
                    Param::Var { name, .. } => name.clone(),
                    _ => String::new(),
                };
                let names = self.vars.names().into_iter().filter(|n| n.starts_with(&prefix)).filter(|n| self.vars.get(n).map_or(false, |v| v.is_set() || v.has(attr::DYNAMIC))).collect();
                ParamValue::List(names, *star)
            }
            ParamOp::Keys { star } => {
                let name = match &expansion.param {
                    Param::Var { name, .. } => name.clone(),
                    _ => String::new(),
                };
                let keys = self.get_value(&name).map(|v| v.keys()).unwrap_or_default();
                ParamValue::List(keys, *star)
            }
            _ => {
                let base = self.param_base(expansion)?;
                match self.apply_op(expansion, base, quoted, ctx, out)? {
                    Some(value) => value,
                    None => return Ok(()),
                }
            }
        };
        self.insert_value(value, quoted, ctx, out);
        Ok(())
    }

    fn insert_value(&mut self, value: ParamValue, quoted: bool, ctx: Ctx, out: &mut Fields) {
        match value {
            ParamValue::Unset => {}
            ParamValue::Str(text) => super::push_result(&text, quoted, ctx, out),
            ParamValue::List(items, star) => {
                if ctx != Ctx::Fields || (quoted && star) {
                    let separator = if star { self.ifs_first() } else { " ".to_string() };
                    super::push_result(&items.join(&separator), quoted, ctx, out);
                    return;
                }
                for (i, item) in items.iter().enumerate() {
                    if quoted {
                        if i > 0 {
                            out.field_break();
                        }
                        out.push_quoted(item);
                    } else {
                        if i > 0 {
                            out.soft_break();
                        }
                        out.push_expanded(item);
                    }
                }
            }
        }
    }

    /// The first character of IFS (what `$*` joins with): a space when IFS is unset.
    pub(crate) fn ifs_first(&mut self) -> String {
        match self.get_scalar("IFS") {
            Some(ifs) => ifs.chars().next().map(|c| c.to_string()).unwrap_or_default(),
            None => " ".to_string(),
        }
    }

    /// The parameter's value, following `${!x}` indirection, before the operator.
    fn param_base(&mut self, expansion: &ParamExpansion) -> Result<ParamValue, Flow> {
        if expansion.indirect {
            let target = match self.lookup_param(&expansion.param)? {
                ParamValue::Str(s) => s,
                ParamValue::List(items, _) => items.join(" "),
                ParamValue::Unset => {
                    if matches!(expansion.op, ParamOp::None | ParamOp::Length) {
                        let name = param_name(&expansion.param);
                        self.report(&format!("{}: invalid indirect expansion", name));
                        self.status = 1;
                        return Err(Flow::Abort);
                    }
                    return Ok(ParamValue::Unset);
                }
            };
            let param = match parse_param_reference(&target) {
                Some(param) => param,
                None => {
                    self.report(&format!("{}: invalid variable name", target));
                    self.status = 1;
                    return Err(Flow::Abort);
                }
            };
            return self.lookup_param(&param);
        }
        self.lookup_param(&expansion.param)
    }

    pub(crate) fn lookup_param(&mut self, param: &Param) -> Result<ParamValue, Flow> {
        Ok(match param {
            Param::Var { name, index: None } => {
                if let Some(target) = self.nameref_element(name) {
                    // `declare -n r='a[1]'`: r reads the element.
                    return match parse_param_reference(&target) {
                        Some(param) if matches!(param, Param::Var { index: Some(_), .. }) => self.lookup_param(&param),
                        _ => Ok(ParamValue::Unset),
                    };
                }
                match self.get_scalar(name) {
                    Some(value) => ParamValue::Str(value),
                    None => ParamValue::Unset,
                }
            }
            Param::Var { name, index: Some(Subscript::At) } | Param::Var { name, index: Some(Subscript::Star) } => {
                let star = matches!(param, Param::Var { index: Some(Subscript::Star), .. });
                match self.get_value(name) {
                    Some(value) if value != Value::Unset => ParamValue::List(value.values(), star),
                    _ => ParamValue::List(Vec::new(), star),
                }
            }
            Param::Var { name, index: Some(Subscript::Index(word)) } => {
                let key = self.eval_subscript(name, word)?;
                match self.get_element(name, &key) {
                    Some(value) => ParamValue::Str(value),
                    None => {
                        // A negative index before the start is an error bash reports (and
                        // then expands to nothing).
                        if let (crate::vars::Key::Index(i), Some(Value::Indexed(map))) = (&key, self.vars.get(name).map(|v| &v.value)) {
                            if *i < 0 && crate::vars::resolve_index(map, *i).is_none() {
                                self.report(&format!("{}: bad array subscript", name));
                            }
                        }
                        ParamValue::Unset
                    }
                }
            }
            Param::Positional(0) => ParamValue::Str(self.arg0.clone()),
            Param::Positional(n) => match self.positional.get(*n as usize - 1) {
                Some(value) => ParamValue::Str(value.clone()),
                None => ParamValue::Unset,
            },
            Param::Special(c) => match c {
                '@' => ParamValue::List(self.positional.clone(), false),
                '*' => ParamValue::List(self.positional.clone(), true),
                '#' => ParamValue::Str(self.positional.len().to_string()),
                '?' => ParamValue::Str(self.status.to_string()),
                '-' => ParamValue::Str(self.options.dollar_dash()),
                '$' => ParamValue::Str(self.shell_pid.to_string()),
                '!' => match self.last_bg_pid {
                    Some(pid) => ParamValue::Str(pid.to_string()),
                    None => ParamValue::Unset,
                },
                _ => ParamValue::Unset,
            },
        })
    }

    /// Applies the operator. `None`: the result was already expanded into `out` (a
    /// `${x:-word}` default is expanded in place, with the word's own quoting).
    fn apply_op(&mut self, expansion: &ParamExpansion, base: ParamValue, quoted: bool, ctx: Ctx, out: &mut Fields) -> Result<Option<ParamValue>, Flow> {
        let name = param_name(&expansion.param);
        let check_unset = |shell: &mut Shell, value: &ParamValue| -> Result<(), Flow> {
            if *value == ParamValue::Unset && shell.options.get(Opt::Nounset) && !matches!(expansion.param, Param::Special('@' | '*')) {
                // Bash names an unbraced positional or `$!` with its dollar (`$1: unbound
                // variable`), every other parameter without (`x`, `10`, `a[0]`).
                let dollar = if expansion.short && !matches!(expansion.param, Param::Var { .. }) { "$" } else { "" };
                shell.report(&format!("{}{}: unbound variable", dollar, display_name(&expansion.param)));
                shell.status = shell.fatal_status();
                return Err(Flow::Exit);
            }
            Ok(())
        };
        let value = match &expansion.op {
            ParamOp::None => {
                check_unset(self, &base)?;
                base
            }
            ParamOp::Length => {
                check_unset(self, &base)?;
                match base {
                    ParamValue::List(items, _) => ParamValue::Str(items.len().to_string()),
                    ParamValue::Str(s) => ParamValue::Str(s.chars().count().to_string()),
                    ParamValue::Unset => ParamValue::Str("0".to_string()),
                }
            }
            ParamOp::Default { colon, word } | ParamOp::Alternate { colon, word } => {
                let missing = if *colon { base.is_null() } else { base == ParamValue::Unset || base == ParamValue::List(Vec::new(), false) || base == ParamValue::List(Vec::new(), true) };
                let use_word = if matches!(expansion.op, ParamOp::Default { .. }) { missing } else { !missing };
                if use_word {
                    // Unquoted, the word's own text is split and globbed like an
                    // expansion result (`${x:-a b}` is two words).
                    for part in &word.parts {
                        match part {
                            WordPart::Literal(text) if !quoted && ctx == Ctx::Fields => out.push_expanded(text),
                            other => self.expand_parts(std::slice::from_ref(other), quoted, ctx, out)?,
                        }
                    }
                    if quoted && word.parts.is_empty() {
                        out.mark_started();
                    }
                    return Ok(None);
                }
                if matches!(expansion.op, ParamOp::Default { .. }) {
                    base
                } else {
                    if quoted {
                        out.mark_started();
                    }
                    ParamValue::Unset
                }
            }
            ParamOp::Assign { colon, word } => {
                let missing = if *colon { base.is_null() } else { base == ParamValue::Unset };
                if !missing {
                    base
                } else {
                    let value = self.expand_string(word)?;
                    match &expansion.param {
                        Param::Var { name, index: None } => {
                            if let Err(error) = self.assign_scalar(name, value.clone(), false) {
                                self.report(&error.message());
                                self.status = 1;
                                return Err(Flow::Abort);
                            }
                        }
                        Param::Var { name, index: Some(Subscript::Index(sub)) } => {
                            let key = self.eval_subscript(name, sub)?;
                            if let Err(error) = self.assign_element(name, key, value.clone(), false) {
                                self.report(&error.message());
                                self.status = 1;
                                return Err(Flow::Abort);
                            }
                        }
                        _ => {
                            self.report(&format!("${}: cannot assign in this way", name));
                            self.status = 1;
                            return Err(Flow::Abort);
                        }
                    }
                    ParamValue::Str(value)
                }
            }
            ParamOp::Error { colon, word } => {
                let missing = if *colon { base.is_null() } else { base == ParamValue::Unset };
                if !missing {
                    base
                } else {
                    let message = if !word.parts.is_empty() {
                        self.expand_string(word)?
                    } else if *colon {
                        "parameter null or not set".to_string()
                    } else {
                        "parameter not set".to_string()
                    };
                    self.report(&format!("{}: {}", display_name(&expansion.param), message));
                    self.status = self.fatal_status();
                    return Err(Flow::Exit);
                }
            }
            ParamOp::RemovePrefix { longest, pattern } | ParamOp::RemoveSuffix { longest, pattern } => {
                check_unset(self, &base)?;
                let pattern = self.compile_pattern(pattern)?;
                let prefix = matches!(expansion.op, ParamOp::RemovePrefix { .. });
                let longest = *longest;
                base.map(|s| {
                    let chars: Vec<char> = s.chars().collect();
                    if prefix {
                        match pattern.match_prefix(&chars, longest) {
                            Some(end) => chars[end..].iter().collect(),
                            None => s,
                        }
                    } else {
                        match pattern.match_suffix(&chars, longest) {
                            Some(start) => chars[..start].iter().collect(),
                            None => s,
                        }
                    }
                })
            }
            ParamOp::Replace { mode, pattern, replacement } => {
                check_unset(self, &base)?;
                let pattern_text = self.expand_pattern(pattern)?;
                let pattern = Pattern::new(&pattern_text, self.options.shopt(Shopt::Extglob), false);
                let template = match replacement {
                    Some(word) => self.replacement_template(word)?,
                    None => Vec::new(),
                };
                let mode = *mode;
                let empty = pattern_text.is_empty();
                base.map(|s| replace(&s, &pattern, &template, mode, empty))
            }
            ParamOp::Substring { offset, length } => {
                check_unset(self, &base)?;
                let offset = self.eval_arith(offset).map_err(|f| self.arith_error(&f, ""))?;
                let length = match length {
                    Some(length) => Some(self.eval_arith(length).map_err(|f| self.arith_error(&f, ""))?),
                    None => None,
                };
                self.substring(&expansion.param, base, offset, length)?
            }
            ParamOp::Case { mode, all, pattern } => {
                check_unset(self, &base)?;
                let pattern = match pattern {
                    Some(word) => Some(self.compile_pattern(word)?),
                    None => None,
                };
                let (mode, all) = (*mode, *all);
                base.map(|s| change_case(&s, mode, all, pattern.as_ref()))
            }
            ParamOp::Transform(op) => {
                check_unset(self, &base)?;
                self.transform(&expansion.param, base, *op)
            }
            ParamOp::PrefixNames { .. } | ParamOp::Keys { .. } => base,
        };
        Ok(Some(value))
    }

    fn compile_pattern(&mut self, word: &Word) -> Result<Pattern, Flow> {
        let text = self.expand_pattern(word)?;
        Ok(Pattern::new(&text, self.options.shopt(Shopt::Extglob), false))
    }

    /// The replacement of `${x/p/r}`: with `patsub_replacement` (on by default in bash
    /// 5.2) an unquoted `&` stands for the matched text.
    fn replacement_template(&mut self, word: &Word) -> Result<Vec<Piece>, Flow> {
        if !self.options.shopt(Shopt::PatsubReplacement) {
            return Ok(vec![Piece::Text(self.expand_string(word)?)]);
        }
        let escaped = self.expand_pattern(word)?;
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut chars = escaped.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        text.push(next);
                    } else {
                        text.push('\\');
                    }
                }
                '&' => {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                    pieces.push(Piece::Match);
                }
                other => text.push(other),
            }
        }
        pieces.push(Piece::Text(text));
        Ok(pieces)
    }

    fn substring(&mut self, param: &Param, base: ParamValue, offset: i64, length: Option<i64>) -> Result<ParamValue, Flow> {
        match base {
            ParamValue::Unset => Ok(ParamValue::Unset),
            ParamValue::Str(s) => {
                let chars: Vec<char> = s.chars().collect();
                let n = chars.len() as i64;
                let start = if offset < 0 { n + offset } else { offset };
                if start < 0 || start > n {
                    return Ok(ParamValue::Str(String::new()));
                }
                let end = match length {
                    None => n,
                    Some(l) if l < 0 => {
                        let end = n + l;
                        if end < start {
                            self.report(&format!("{}: substring expression < 0", l));
                            self.status = 1;
                            return Err(Flow::Abort);
                        }
                        end
                    }
                    Some(l) => (start + l).min(n),
                };
                Ok(ParamValue::Str(chars[start as usize..end as usize].iter().collect()))
            }
            ParamValue::List(items, star) => {
                // An indexed array's offset is an index: `${a[@]:2}` starts at the first
                // element whose index is 2 or more (sparse arrays skip the holes).
                if let Param::Var { name, index: Some(Subscript::At | Subscript::Star) } = param {
                    if let Some(Value::Indexed(map)) = self.vars.get(name).map(|v| &v.value) {
                        let first = if offset < 0 { map.keys().next_back().map_or(0, |k| k + 1) + offset } else { offset };
                        if first < 0 {
                            return Ok(ParamValue::List(Vec::new(), star));
                        }
                        let from: Vec<String> = map.range(first..).map(|(_, v)| v.clone()).collect();
                        let count = match length {
                            None => from.len(),
                            Some(l) if l < 0 => {
                                self.report(&format!("{}: substring expression < 0", l));
                                self.status = 1;
                                return Err(Flow::Abort);
                            }
                            Some(l) => (l as usize).min(from.len()),
                        };
                        return Ok(ParamValue::List(from[..count].to_vec(), star));
                    }
                }
                // For `$@`, offset 0 is `$0`.
                let mut items = items;
                if matches!(param, Param::Special('@' | '*')) {
                    items.insert(0, self.arg0.clone());
                }
                let n = items.len() as i64;
                let mut start = if offset < 0 { n + offset } else { offset };
                if matches!(param, Param::Special('@' | '*')) && offset < 0 && start < 1 {
                    start = if start < 0 { n } else { start };
                }
                if start < 0 || start > n {
                    return Ok(ParamValue::List(Vec::new(), star));
                }
                let end = match length {
                    None => n,
                    Some(l) if l < 0 => {
                        self.report(&format!("{}: substring expression < 0", l));
                        self.status = 1;
                        return Err(Flow::Abort);
                    }
                    Some(l) => (start + l).min(n),
                };
                Ok(ParamValue::List(items[start as usize..end as usize].to_vec(), star))
            }
        }
    }

    fn transform(&mut self, param: &Param, base: ParamValue, op: char) -> ParamValue {
        let name = param_name(param);
        match op {
            'Q' => base.map(|s| if crate::text::needs_ansi_c(&s) { crate::text::ansi_c_quote(&s) } else { crate::text::single_quote(&s) }),
            'E' => base.map(|s| shell_parser::ansi_c_unescape(&crate::text::to_bytes(&s))),
            'P' => base.map(|s| s),
            'U' => base.map(|s| s.to_uppercase()),
            'L' => base.map(|s| s.to_lowercase()),
            'u' => base.map(|s| change_case(&s, CaseMode::Upper, false, None)),
            'a' => {
                let flags = self.vars.get(&name).map(|v| crate::builtins::declare::attribute_flags(v)).unwrap_or_default();
                base.map(|_| flags.clone())
            }
            'A' => match base {
                ParamValue::Unset => ParamValue::Unset,
                other => {
                    let text = crate::builtins::declare::declaration(self, &name).unwrap_or_default();
                    match other {
                        ParamValue::List(..) => ParamValue::Str(text),
                        ParamValue::Str(value) => {
                            let flags = self.vars.get(&name).map(|v| crate::builtins::declare::attribute_flags(v)).unwrap_or_default();
                            let assignment = format!("{}={}", name, crate::text::single_quote(&value));
                            ParamValue::Str(if flags.is_empty() { assignment } else { format!("declare -{} {}", flags, assignment) })
                        }
                        ParamValue::Unset => ParamValue::Unset,
                    }
                }
            },
            'K' | 'k' => match (self.get_value(&name), &base) {
                (Some(value @ (Value::Indexed(_) | Value::Assoc(_))), ParamValue::List(..)) => {
                    let pairs: Vec<String> = value
                        .keys()
                        .into_iter()
                        .zip(value.values())
                        .map(|(k, v)| if op == 'K' { format!("{} {}", k, crate::text::double_quote(&v)) } else { format!("{} {}", k, v) })
                        .collect();
                    ParamValue::Str(pairs.join(" "))
                }
                _ => base.map(|s| crate::text::single_quote(&s)),
            },
            _ => base,
        }
    }
}

pub(crate) fn param_name(param: &Param) -> String {
    match param {
        Param::Var { name, .. } => name.clone(),
        Param::Positional(n) => n.to_string(),
        Param::Special(c) => c.to_string(),
    }
}

/// How bash names a parameter in "unbound variable" messages.
fn display_name(param: &Param) -> String {
    match param {
        Param::Var { name, index: Some(Subscript::Index(word)) } => {
            format!("{}[{}]", name, shell_parser::printer::word_to_string(word))
        }
        other => param_name(other),
    }
}

/// A parameter named by a variable's value (`${!ref}` with `ref=a[2]`, `ref=1`, ...).
fn parse_param_reference(text: &str) -> Option<Param> {
    if text.is_empty() {
        return None;
    }
    if text.bytes().all(|c| c.is_ascii_digit()) {
        return text.parse().ok().map(Param::Positional);
    }
    if text.len() == 1 && "@*#?-$!".contains(text) {
        return text.chars().next().map(Param::Special);
    }
    let (name, index) = match text.find('[') {
        Some(open) if text.ends_with(']') => {
            let inner = &text[open + 1..text.len() - 1];
            let index = match inner {
                "@" => Subscript::At,
                "*" => Subscript::Star,
                _ => Subscript::Index(Word::literal(inner)),
            };
            (&text[..open], Some(index))
        }
        _ => (text, None),
    };
    if !shell_parser::is_name(name) {
        return None;
    }
    Some(Param::Var { name: name.to_string(), index })
}
