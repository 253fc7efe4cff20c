//! Printing words, assignments, parameter expansions and arithmetic.

use super::{arith_to_string, word_to_string, Printer};
use crate::ast::*;

impl Printer {
    pub(super) fn assignment(&mut self, assignment: &Assignment) {
        self.push(&assignment.name);
        if let Some(subscript) = &assignment.subscript {
            self.push("[");
            self.word(subscript);
            self.push("]");
        }
        self.push(if assignment.append { "+=" } else { "=" });
        match &assignment.value {
            AssignValue::Scalar(word) => self.word(word),
            AssignValue::Array(elements) => {
                self.push("(");
                for (i, element) in elements.iter().enumerate() {
                    if i > 0 {
                        self.push(" ");
                    }
                    match element {
                        ArrayElement::Plain(word) => self.word(word),
                        ArrayElement::Keyed { key, value, append } => {
                            self.push("[");
                            self.word(key);
                            self.push(if *append { "]+=" } else { "]=" });
                            self.word(value);
                        }
                    }
                }
                self.push(")");
            }
        }
    }

    pub(super) fn word(&mut self, word: &Word) {
        for part in &word.parts {
            self.part(part, false);
        }
    }

    pub(super) fn part(&mut self, part: &WordPart, in_dquote: bool) {
        match part {
            WordPart::Literal(text) => self.push(text),
            WordPart::Quoted(text) => {
                if in_dquote {
                    // A `$` is escaped only where it could start an expansion (bash prints
                    // `"$'x'"` and `"a$ b"` as written); at the end of the text the next
                    // part could make it one.
                    let mut chars = text.chars().peekable();
                    while let Some(c) = chars.next() {
                        let escape = match c {
                            '"' | '\\' | '`' => true,
                            '$' => chars.peek().map_or(true, |&n| n.is_ascii_alphanumeric() || "_{([@*#?-$!".contains(n)),
                            _ => false,
                        };
                        if escape {
                            self.out.push('\\');
                        }
                        self.out.push(c);
                    }
                } else {
                    self.out.push('\'');
                    self.out.push_str(&text.replace('\'', "'\\''"));
                    self.out.push('\'');
                }
            }
            WordPart::DoubleQuoted(parts) => {
                self.out.push('"');
                // Quoted text the parser kept in pieces (`a`, `$`, ` b`) is printed as one,
                // so a `$` is judged by the character that really follows it.
                let mut text = String::new();
                for part in parts {
                    match part {
                        WordPart::Quoted(piece) => text.push_str(piece),
                        other => {
                            if !text.is_empty() {
                                self.part(&WordPart::Quoted(std::mem::take(&mut text)), true);
                            }
                            self.part(other, true);
                        }
                    }
                }
                if !text.is_empty() {
                    self.part(&WordPart::Quoted(text), true);
                }
                self.out.push('"');
            }
            // Bash prints `$'a\tb'` as the single-quoted text it stands for.
            WordPart::AnsiQuoted(text) => {
                self.out.push('\'');
                self.out.push_str(&text.replace('\'', "'\\''"));
                self.out.push('\'');
            }
            WordPart::Tilde(user) => {
                self.push("~");
                self.push(user);
            }
            WordPart::Param(param) => self.param(param, in_dquote),
            WordPart::CommandSubst { body, backquote } => {
                let mut inner = Printer::default();
                inner.indent = self.indent;
                inner.list(body);
                let text = inner.finish_nested();
                if *backquote {
                    self.push("`");
                    self.push(&text.replace('\\', "\\\\").replace('`', "\\`").replace('$', "\\$"));
                    self.push("`");
                } else {
                    self.push("$(");
                    self.push(&text);
                    self.push(")");
                }
            }
            WordPart::Arith(_, text) => {
                self.push("$((");
                self.push(text);
                self.push("))");
            }
            WordPart::ProcessSubst { body, output } => {
                self.push(if *output { ">(" } else { "<(" });
                let mut inner = Printer::default();
                inner.list(body);
                self.push(&inner.finish_nested());
                self.push(")");
            }
            WordPart::Brace(expr) => self.brace(expr),
            WordPart::Assign(assignment) => self.assignment(assignment),
            WordPart::BadSubst(text) => self.push(text),
        }
    }

    fn brace(&mut self, expr: &BraceExpr) {
        self.push("{");
        match expr {
            BraceExpr::Alternatives(words) => {
                for (i, word) in words.iter().enumerate() {
                    if i > 0 {
                        self.push(",");
                    }
                    self.word(word);
                }
            }
            BraceExpr::Sequence { start, end, step } => {
                self.push(start);
                self.push("..");
                self.push(end);
                if let Some(step) = step {
                    self.push("..");
                    self.push(step);
                }
            }
        }
        self.push("}");
    }

    fn param(&mut self, param: &ParamExpansion, in_dquote: bool) {
        let name = match &param.param {
            Param::Var { name, .. } => name.clone(),
            Param::Positional(n) => n.to_string(),
            Param::Special(c) => c.to_string(),
        };
        if param.short && param.op == ParamOp::None && !param.indirect {
            self.push("$");
            self.push(&name);
            return;
        }
        self.push("${");
        if param.op == ParamOp::Length {
            self.push("#");
        }
        if param.indirect || matches!(param.op, ParamOp::PrefixNames { .. } | ParamOp::Keys { .. }) {
            self.push("!");
        }
        self.push(&name);
        if let Param::Var { index: Some(index), .. } = &param.param {
            match index {
                Subscript::At => self.push("[@]"),
                Subscript::Star => self.push("[*]"),
                Subscript::Index(word) => {
                    self.push("[");
                    self.word(word);
                    self.push("]");
                }
            }
        }
        let word_op = |printer: &mut Printer, op: &str, word: &Word| {
            printer.push(op);
            for part in &word.parts {
                printer.part(part, in_dquote && matches!(part, WordPart::Quoted(_)));
            }
        };
        match &param.op {
            ParamOp::None | ParamOp::Length => {}
            ParamOp::Default { colon, word } => word_op(self, if *colon { ":-" } else { "-" }, word),
            ParamOp::Assign { colon, word } => word_op(self, if *colon { ":=" } else { "=" }, word),
            ParamOp::Error { colon, word } => word_op(self, if *colon { ":?" } else { "?" }, word),
            ParamOp::Alternate { colon, word } => word_op(self, if *colon { ":+" } else { "+" }, word),
            ParamOp::RemovePrefix { longest, pattern } => word_op(self, if *longest { "##" } else { "#" }, pattern),
            ParamOp::RemoveSuffix { longest, pattern } => word_op(self, if *longest { "%%" } else { "%" }, pattern),
            ParamOp::Replace { mode, pattern, replacement } => {
                let op = match mode {
                    ReplaceMode::First => "/",
                    ReplaceMode::All => "//",
                    ReplaceMode::Prefix => "/#",
                    ReplaceMode::Suffix => "/%",
                };
                word_op(self, op, pattern);
                if let Some(replacement) = replacement {
                    word_op(self, "/", replacement);
                }
            }
            ParamOp::Substring { offset, length } => {
                self.push(":");
                let text = arith_to_string(offset);
                if text.starts_with('-') {
                    self.push(" ");
                }
                self.push(&text);
                if let Some(length) = length {
                    self.push(":");
                    self.push(&arith_to_string(length));
                }
            }
            ParamOp::Case { mode, all, pattern } => {
                let c = match mode {
                    CaseMode::Upper => "^",
                    CaseMode::Lower => ",",
                    CaseMode::Toggle => "~",
                };
                self.push(c);
                if *all {
                    self.push(c);
                }
                if let Some(pattern) = pattern {
                    self.word(pattern);
                }
            }
            ParamOp::Transform(c) => {
                self.push("@");
                self.out.push(*c);
            }
            ParamOp::PrefixNames { star } | ParamOp::Keys { star } => {
                if matches!(param.op, ParamOp::PrefixNames { .. }) {
                    self.push(if *star { "*" } else { "@" });
                }
            }
        }
        self.push("}");
    }
}

pub(super) fn arith(expr: &Arith, out: &mut String) {
    match expr {
        Arith::Number(n) => out.push_str(&n.to_string()),
        Arith::Var(name) => out.push_str(name),
        Arith::Element(name, _, raw) => {
            out.push_str(name);
            out.push('[');
            out.push_str(raw);
            out.push(']');
        }
        Arith::Unary(op, inner) => {
            out.push(match op {
                UnaryOp::Plus => '+',
                UnaryOp::Minus => '-',
                UnaryOp::Not => '!',
                UnaryOp::BitNot => '~',
            });
            arith_operand(inner, out);
        }
        Arith::Binary(op, a, b) => {
            arith_operand(a, out);
            out.push_str(op.symbol());
            arith_operand(b, out);
        }
        Arith::Assign(op, target, value) => {
            arith(target, out);
            if let Some(op) = op {
                out.push_str(op.symbol());
            }
            out.push('=');
            arith(value, out);
        }
        Arith::IncDec { target, increment, prefix } => {
            let op = if *increment { "++" } else { "--" };
            if *prefix {
                out.push_str(op);
            }
            arith(target, out);
            if !*prefix {
                out.push_str(op);
            }
        }
        Arith::Conditional(c, a, b) => {
            arith_operand(c, out);
            out.push('?');
            arith(a, out);
            out.push(':');
            arith(b, out);
        }
        Arith::Comma(a, b) => {
            arith(a, out);
            out.push(',');
            arith(b, out);
        }
        Arith::Dynamic(word) => out.push_str(&word_to_string(word)),
    }
}

fn arith_operand(expr: &Arith, out: &mut String) {
    if matches!(expr, Arith::Binary(..) | Arith::Assign(..) | Arith::Conditional(..) | Arith::Comma(..)) {
        out.push('(');
        arith(expr, out);
        out.push(')');
    } else {
        arith(expr, out);
    }
}

