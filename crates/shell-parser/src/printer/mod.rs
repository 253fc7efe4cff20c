//! Syntax tree back to source, in the layout bash's `declare -f` uses (4-space indents,
//! `;` line ends, `elif` shown as nested `else if`). Used for `declare -f`, `type`,
//! `jobs` and messages; the output parses back to the same tree.

mod words;

use std::rc::Rc;

use crate::ast::*;

/// What `write` prints with a fresh printer, the here-documents it left pending after it.
fn printed(write: impl FnOnce(&mut Printer)) -> String {
    let mut printer = Printer::default();
    write(&mut printer);
    printer.finish()
}

/// A function as `declare -f` prints it.
pub fn function_to_string(def: &FunctionDef) -> String {
    printed(|printer| printer.function(def, false))
}

/// A command list on as few lines as bash would use (for `jobs`, `BASH_COMMAND`).
pub fn list_to_string(list: &List) -> String {
    printed(|printer| printer.list(list))
}

pub fn command_to_string(command: &Command) -> String {
    printed(|printer| printer.command(command))
}

pub fn simple_to_string(simple: &SimpleCommand) -> String {
    printed(|printer| printer.simple(simple))
}

pub fn and_or_to_string(and_or: &AndOr) -> String {
    printed(|printer| printer.and_or(and_or))
}

// A word or an assignment holds no here-document of its own (one inside `$(...)` is
// printed there), so nothing is left pending.
pub fn assignment_to_string(assignment: &Assignment) -> String {
    printed(|printer| printer.assignment(assignment))
}

pub fn word_to_string(word: &Word) -> String {
    printed(|printer| printer.word(word))
}

pub fn arith_to_string(expr: &Arith) -> String {
    let mut out = String::new();
    words::arith(expr, &mut out);
    out
}

#[derive(Default)]
pub(crate) struct Printer {
    out: String,
    indent: usize,
    heredocs: Vec<Rc<HereDoc>>,
    /// Bodies were just printed: the next `;` separator is left out, as bash does.
    was_heredoc: bool,
    nested_function: bool,
}

impl Printer {
    fn finish(mut self) -> String {
        if !self.heredocs.is_empty() {
            self.out.push('\n');
            self.flush_heredocs();
            while self.out.ends_with('\n') {
                self.out.pop();
            }
        }
        self.out
    }

    /// The text of a substitution's body: a here-document it ends with keeps the newline
    /// after its delimiter, so the closing `)` is not read as part of that line.
    fn finish_nested(mut self) -> String {
        self.heredoc_bodies();
        self.out
    }

    fn push(&mut self, text: &str) {
        self.out.push_str(text);
    }

    fn newline(&mut self) {
        self.out.push('\n');
        self.flush_heredocs();
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
    }

    /// The pending here-document bodies on the lines after their command, then a blank
    /// line, where bash prints them in a function body.
    fn heredoc_bodies(&mut self) {
        if !self.heredocs.is_empty() {
            self.out.push('\n');
            self.flush_heredocs();
        }
    }

    fn flush_heredocs(&mut self) {
        if !self.heredocs.is_empty() {
            self.was_heredoc = true;
        }
        for doc in std::mem::take(&mut self.heredocs) {
            let body = doc.body.borrow();
            if doc.quoted {
                for part in &body.parts {
                    if let WordPart::Quoted(text) = part {
                        self.out.push_str(text);
                    }
                }
            } else {
                for part in &body.parts {
                    match part {
                        WordPart::Quoted(text) => {
                            for c in text.chars() {
                                if matches!(c, '$' | '`' | '\\') {
                                    self.out.push('\\');
                                }
                                self.out.push(c);
                            }
                        }
                        other => self.part(other, true),
                    }
                }
            }
            self.out.push_str(&doc.delimiter);
            self.out.push('\n');
        }
    }

    fn list(&mut self, list: &List) {
        for (i, item) in list.items.iter().enumerate() {
            self.and_or(&item.and_or);
            let last = i + 1 == list.items.len();
            if item.background {
                self.push(" &");
                if !last {
                    if self.heredocs.is_empty() {
                        self.push(" ");
                    } else {
                        self.newline();
                    }
                }
            } else if !last {
                if !self.heredocs.is_empty() {
                    self.heredoc_bodies();
                } else if self.was_heredoc {
                    // Bash leaves out the separator after the command that follows bodies.
                    self.was_heredoc = false;
                } else {
                    self.push(";");
                }
                self.newline();
            }
        }
    }

    /// A body indented one level, each command on its own line, ending with `;` — the
    /// layout of `then`, `do` and `{ }` blocks.
    fn block(&mut self, list: &List) {
        self.indent += 1;
        self.newline();
        self.list(list);
        if !list.items.last().map_or(false, |i| i.background) && self.heredocs.is_empty() {
            self.push(";");
        }
        self.heredoc_bodies();
        self.indent -= 1;
        self.newline();
    }

    fn and_or(&mut self, and_or: &AndOr) {
        self.pipeline(&and_or.first);
        for (op, pipeline) in &and_or.rest {
            self.push(if *op == AndOrOp::And { " && " } else { " || " });
            self.pipeline(pipeline);
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline) {
        match pipeline.timed {
            Some(TimeMode::Bash) => self.push("time "),
            Some(TimeMode::Posix) => self.push("time -p "),
            None => {}
        }
        if pipeline.negated {
            self.push("! ");
        }
        for (i, command) in pipeline.commands.iter().enumerate() {
            if i > 0 {
                self.push(if pipeline.pipe_stderr.get(i - 1) == Some(&true) { " |& " } else { " | " });
            }
            self.command(command);
        }
    }

    fn command(&mut self, command: &Command) {
        match command {
            Command::Simple(simple) => self.simple(simple),
            Command::Compound(compound, redirects) => {
                self.compound(compound);
                self.redirects(redirects);
            }
            Command::Function(def) => {
                let nested = self.nested_function;
                self.function(def, true);
                self.nested_function = nested;
            }
        }
    }

    fn simple(&mut self, simple: &SimpleCommand) {
        let mut first = true;
        for assignment in &simple.assignments {
            if !first {
                self.push(" ");
            }
            first = false;
            self.assignment(assignment);
        }
        for word in &simple.words {
            if !first {
                self.push(" ");
            }
            first = false;
            self.word(word);
        }
        if first && !simple.redirects.is_empty() {
            let mut rest = String::new();
            std::mem::swap(&mut rest, &mut self.out);
            self.redirects(&simple.redirects);
            let text = std::mem::replace(&mut self.out, rest);
            self.push(text.trim_start());
            return;
        }
        self.redirects(&simple.redirects);
    }

    fn function(&mut self, def: &FunctionDef, nested: bool) {
        if nested && def.keyword {
            self.push("function ");
        }
        self.push(&def.name);
        self.push(" () ");
        self.nested_function = true;
        match &def.body {
            CompoundCommand::Brace(body) => {
                self.newline();
                self.push("{ ");
                self.block_without_semicolon(body);
                self.push("}");
            }
            other => {
                self.newline();
                self.push("{ ");
                self.indent += 1;
                self.newline();
                self.compound(other);
                self.indent -= 1;
                self.newline();
                self.push("}");
            }
        }
        self.redirects(&def.redirects);
    }

    fn block_without_semicolon(&mut self, list: &List) {
        self.indent += 1;
        self.newline();
        self.list(list);
        self.heredoc_bodies();
        self.indent -= 1;
        self.newline();
    }

    fn compound(&mut self, compound: &CompoundCommand) {
        match compound {
            CompoundCommand::Brace(list) => {
                self.push("{ ");
                self.block_without_semicolon(list);
                self.push("}");
            }
            CompoundCommand::Subshell(list) => {
                self.push("( ");
                self.list(list);
                self.push(" )");
            }
            CompoundCommand::If(command) => self.if_command(&command.branches, command.else_body.as_ref()),
            CompoundCommand::For(command) => self.for_command("for", command),
            CompoundCommand::Select(command) => self.for_command("select", command),
            CompoundCommand::ArithFor(command) => {
                self.push("for ((");
                self.push(&arith_for_text(&command.text));
                self.push("))");
                self.newline();
                self.push("do");
                self.block(&command.body);
                self.push("done");
            }
            CompoundCommand::While(command) => {
                self.push(if command.until { "until " } else { "while " });
                self.list(&command.cond);
                self.push("; do");
                self.block(&command.body);
                self.push("done");
            }
            CompoundCommand::Case(command) => {
                self.push("case ");
                self.word(&command.subject);
                self.push(" in ");
                self.indent += 1;
                for arm in &command.arms {
                    self.newline();
                    for (i, pattern) in arm.patterns.iter().enumerate() {
                        if i > 0 {
                            self.push(" | ");
                        }
                        self.word(pattern);
                    }
                    self.push(")");
                    self.indent += 1;
                    if !arm.body.items.is_empty() {
                        self.newline();
                        self.list(&arm.body);
                    }
                    self.indent -= 1;
                    self.newline();
                    self.push(match arm.terminator {
                        CaseTerminator::Break => ";;",
                        CaseTerminator::FallThrough => ";&",
                        CaseTerminator::Continue => ";;&",
                    });
                }
                self.indent -= 1;
                self.newline();
                self.push("esac");
            }
            CompoundCommand::Arith(command) => {
                self.push("((");
                self.push(&command.text);
                self.push("))");
            }
            CompoundCommand::Cond(command) => {
                self.push("[[ ");
                self.cond(&command.expr);
                self.push(" ]]");
            }
        }
    }

    fn if_command(&mut self, branches: &[(List, List)], else_body: Option<&List>) {
        let (cond, body) = match branches.first() {
            Some(first) => first,
            None => return,
        };
        self.push("if ");
        self.list(cond);
        self.push("; then");
        self.block(body);
        if branches.len() > 1 {
            self.push("else");
            self.indent += 1;
            self.newline();
            self.if_command(&branches[1..], else_body);
            self.push(";");
            self.indent -= 1;
            self.newline();
        } else if let Some(else_body) = else_body {
            self.push("else");
            self.block(else_body);
        }
        self.push("fi");
    }

    fn for_command(&mut self, keyword: &str, command: &ForCommand) {
        self.push(keyword);
        self.push(" ");
        self.push(&command.var);
        match &command.words {
            Some(words) => {
                self.push(" in");
                for word in words {
                    self.push(" ");
                    self.word(word);
                }
            }
            None => self.push(" in \"$@\""),
        }
        self.push(";");
        self.newline();
        self.push("do");
        self.block(&command.body);
        self.push("done");
    }

    fn cond(&mut self, expr: &CondExpr) {
        match expr {
            CondExpr::Unary(op, word) => {
                self.push(op);
                self.push(" ");
                self.word(word);
            }
            CondExpr::Binary(a, op, b) => {
                self.word(a);
                self.push(" ");
                self.push(op);
                self.push(" ");
                self.word(b);
            }
            CondExpr::Pattern { subject, pattern, negated } => {
                self.word(subject);
                self.push(if *negated { " != " } else { " == " });
                self.word(pattern);
            }
            CondExpr::Regex(a, b) => {
                self.word(a);
                self.push(" =~ ");
                self.word(b);
            }
            CondExpr::Word(word) => self.word(word),
            CondExpr::Not(inner) => {
                self.push("! ");
                self.cond_operand(inner);
            }
            CondExpr::And(a, b) => {
                self.cond_operand(a);
                self.push(" && ");
                self.cond_operand(b);
            }
            CondExpr::Or(a, b) => {
                self.cond(a);
                self.push(" || ");
                self.cond(b);
            }
        }
    }

    fn cond_operand(&mut self, expr: &CondExpr) {
        if matches!(expr, CondExpr::Or(..)) {
            self.push("( ");
            self.cond(expr);
            self.push(" )");
        } else {
            self.cond(expr);
        }
    }

    fn redirects(&mut self, redirects: &[Redirect]) {
        for redirect in redirects {
            self.push(" ");
            self.redirect(redirect);
        }
    }

    fn redirect(&mut self, redirect: &Redirect) {
        let (default_fd, op, spaced) = match redirect.op {
            RedirOp::Input => (0, "<", true),
            RedirOp::Output => (1, ">", true),
            RedirOp::Clobber => (1, ">|", true),
            RedirOp::Append => (1, ">>", true),
            RedirOp::ReadWrite => (0, "<>", true),
            RedirOp::DupInput => (0, "<&", false),
            RedirOp::DupOutput => (1, ">&", false),
            RedirOp::OutputBoth => (1, "&>", true),
            RedirOp::AppendBoth => (1, "&>>", true),
            RedirOp::HereDoc => (0, "<<", false),
            RedirOp::HereString => (0, "<<<", true),
        };
        match &redirect.fd {
            Some(RedirFd::Number(n)) if *n != default_fd || matches!(redirect.op, RedirOp::DupInput | RedirOp::DupOutput) => {
                self.push(&n.to_string())
            }
            None if matches!(redirect.op, RedirOp::DupInput | RedirOp::DupOutput) => self.push(&default_fd.to_string()),
            Some(RedirFd::Var(name)) => {
                self.push("{");
                self.push(name);
                self.push("}");
            }
            _ => {}
        }
        match &redirect.target {
            RedirTarget::HereDoc(doc) => {
                self.push(if doc.strip_tabs { "<<-" } else { "<<" });
                if doc.quoted {
                    self.push(&format!("'{}'", doc.delimiter));
                } else {
                    self.push(&doc.delimiter);
                }
                self.heredocs.push(doc.clone());
            }
            RedirTarget::Word(word) => {
                self.push(op);
                if spaced {
                    self.push(" ");
                }
                self.word(word);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(source: &str) -> String {
        let list = crate::parse(source).unwrap();
        match &list.items[0].and_or.first.commands[0] {
            Command::Function(def) => function_to_string(def),
            _ => panic!(),
        }
    }

    #[test]
    fn prints_like_declare_f() {
        assert_eq!(function("f() { local x=1; echo $x; }"), "f () \n{ \n    local x=1;\n    echo $x\n}");
        assert_eq!(
            function("f() { if a; then b; else c; fi; }"),
            "f () \n{ \n    if a; then\n        b;\n    else\n        c;\n    fi\n}"
        );
        assert_eq!(function("g() ( echo sub )"), "g () \n{ \n    ( echo sub )\n}");
        assert_eq!(function("h() { echo a; } > /dev/null"), "h () \n{ \n    echo a\n} > /dev/null");
    }

    #[test]
    fn printed_code_parses_back_to_the_same_tree() {
        let sources = [
            "a=1 b=(x [2]=y) cmd \"q $x ${y:-z}\" 'lit' $'esc\\n' > out 2>&1 <<< here",
            "for i in 1 2; do echo $i; done; while a; do b; done",
            "case $x in a|b) echo;; *) ;; esac",
            "f() { [[ -n $x && ( a == b || c =~ ^d ) ]]; (( i++ )); }",
            "echo $(ls; pwd) `date` <(cat) {a,b}c ~/x",
        ];
        for source in sources {
            let tree = crate::parse(source).unwrap();
            let printed = list_to_string(&tree);
            let again = crate::parse(&printed).unwrap_or_else(|e| panic!("{}\n{}", printed, e));
            assert_eq!(list_to_string(&again), printed, "{}", source);
        }
    }
}

/// The three expressions of `for ((...))` as bash prints them: each without its leading
/// blanks, an empty one as `1`, joined by `; ` (`i=0;i<2;i++` prints `i=0; i<2; i++`).
fn arith_for_text(text: &str) -> String {
    let parts: Vec<&str> = text.split(';').collect();
    if parts.len() != 3 {
        return text.to_string();
    }
    let parts: Vec<&str> = parts.iter().map(|p| if p.trim().is_empty() { "1" } else { p.trim_start() }).collect();
    parts.join("; ")
}
