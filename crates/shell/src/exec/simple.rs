//! Simple commands: expand, assign, redirect, then run a function, builtin or program.

use shell_parser::ast::{AssignValue, Assignment, SimpleCommand};

use super::{CommandKind, Flow};
use crate::expand::{DeclArg, ExpandedCommand};
use crate::options::Opt;
use crate::shell::Shell;
use crate::vars::{attr, Value, Var};

/// A variable's value before a temporary assignment (`x=1 cmd`), to put back after.
pub(crate) struct SavedVar {
    name: String,
    previous: Option<Var>,
}

impl Shell {
    #[inline(never)]
    pub(crate) fn exec_simple(&mut self, command: &SimpleCommand) -> Flow {
        self.lineno = command.line;
        self.subst_status = None;
        let procsub_mark = self.procsub_fds.len();
        if self.traps.any() && !self.in_trap {
            self.bash_command = shell_parser::printer::simple_to_string(command);
        }
        if self.traps.has_debug() && !self.in_trap {
            propagate!(self.run_debug_trap(command));
        }
        let ExpandedCommand { fields, decl } = match self.expand_command(&command.words) {
            Ok(expanded) => expanded,
            Err(flow) => {
                self.close_procsubs_from(procsub_mark);
                return flow;
            }
        };
        let flow = if fields.is_empty() {
            self.exec_assignments_only(command)
        } else {
            self.exec_with_name(command, fields, decl)
        };
        self.close_procsubs_from(procsub_mark);
        flow
    }

    /// `a=1 b=2` (and redirections alone): assignments stay; `$?` is the last command
    /// substitution's status.
    #[inline(never)]
    fn exec_assignments_only(&mut self, command: &SimpleCommand) -> Flow {
        let mut failed = false;
        for assignment in &command.assignments {
            match self.perform_assignment(assignment, false) {
                Ok(()) => {}
                Err(flow) => {
                    if flow != Flow::Normal {
                        return flow;
                    }
                    failed = true;
                }
            }
        }
        if self.options.get(Opt::Xtrace) && !command.assignments.is_empty() {
            self.trace_assignments(&command.assignments);
        }
        if !command.redirects.is_empty() {
            match self.apply_redirects(&command.redirects) {
                Ok(saved) => self.fds.restore(self.sys.as_mut(), saved),
                Err(flow) => return flow,
            }
        }
        self.status = if failed { 1 } else { self.subst_status.unwrap_or(0) };
        // A command without words leaves `$_` empty, as in bash.
        self.last_arg.clear();
        Flow::Normal
    }

    fn exec_with_name(&mut self, command: &SimpleCommand, fields: Vec<String>, decl: Vec<DeclArg>) -> Flow {
        let name = fields[0].clone();
        let mut saved = Vec::new();
        for assignment in &command.assignments {
            match self.temporary_assignment(assignment) {
                Ok(entry) => saved.push(entry),
                Err(flow) => {
                    self.restore_vars(saved);
                    if flow == Flow::Normal {
                        self.status = 1;
                    }
                    return flow;
                }
            }
        }
        // After the assignments, as bash does: `PATH=/dir cmd` searches /dir, and a
        // temporary PATH neither uses nor fills the hash table.
        let temporary_path = command.assignments.iter().any(|a| a.name == "PATH");
        let kind = self.resolve_command_with(&name, true, !temporary_path);
        if self.options.get(Opt::Xtrace) && !self.trace_muted {
            self.trace_command(&command.assignments, &fields, &decl);
        }
        let is_exec = name == "exec" && fields.len() == 1;
        let redirected = match self.apply_redirects(&command.redirects) {
            Ok(redirected) => redirected,
            Err(flow) => {
                self.restore_vars(saved);
                return flow;
            }
        };
        let flow = match kind {
            CommandKind::Function(def) => self.call_function(&def, &fields),
            CommandKind::Builtin(builtin) => {
                self.decl_args = decl;
                let mut flow = builtin(self, &fields);
                self.decl_args.clear();
                if self.broken_pipe && !self.writing_to_pipe {
                    self.broken_pipe = false;
                    self.status = 141;
                    flow = Flow::Exit;
                }
                flow
            }
            CommandKind::External(path) => self.run_external(&path, &fields),
            CommandKind::NotFound => {
                self.report(&format!("{}: command not found", name));
                self.status = 127;
                Flow::Normal
            }
        };
        if is_exec {
            self.fds.commit(self.sys.as_mut(), redirected);
        } else {
            self.fds.restore(self.sys.as_mut(), redirected);
        }
        self.restore_vars(saved);
        match fields.last() {
            Some(last) => self.last_arg.clone_from(last),
            None => self.last_arg.clear(),
        }
        flow
    }

    /// Performs one assignment in the shell. `Err(Flow::Normal)` means "failed, status 1,
    /// carry on"; other flows abandon the command.
    pub(crate) fn perform_assignment(&mut self, assignment: &Assignment, export: bool) -> Result<(), Flow> {
        let result = match &assignment.value {
            AssignValue::Scalar(word) => {
                let value = self.expand_assignment_value(word)?;
                match &assignment.subscript {
                    Some(subscript) => {
                        let key = self.eval_subscript(&assignment.name, subscript)?;
                        self.assign_element(&assignment.name, key, value, assignment.append)
                    }
                    None => self.assign_scalar(&assignment.name, value, assignment.append),
                }
            }
            AssignValue::Array(elements) => {
                // `a+=(...)` builds on the array as it is: `[k]=v` replaces an element and
                // `[k]+=v` extends it.
                let base = if assignment.append { self.get_value(&assignment.name).unwrap_or(Value::Unset) } else { Value::Unset };
                let value = self.expand_array_literal_onto(&assignment.name, elements, base)?;
                self.assign_array(&assignment.name, value, false)
            }
        };
        match result {
            Ok(()) => {
                if export {
                    if let Some(var) = self.vars.get_mut(&assignment.name) {
                        var.attrs |= attr::EXPORT;
                    }
                }
                Ok(())
            }
            Err(error) => {
                self.report(&error.message());
                self.status = 1;
                // Bash abandons the command line when a plain assignment fails.
                Err(Flow::Abort)
            }
        }
    }

    fn temporary_assignment(&mut self, assignment: &Assignment) -> Result<SavedVar, Flow> {
        let name = assignment.name.clone();
        let previous = self.vars.get(&name).cloned();
        if previous.as_ref().map_or(false, |v| v.has(attr::READONLY)) {
            // bash reports it and runs the command anyway, unless `set -e` ends the shell.
            self.report(&format!("{}: readonly variable", name));
            // (bash exits here even inside a condition.)
            if self.options.get(Opt::Errexit) {
                self.status = 1;
                return Err(Flow::Exit);
            }
            return Ok(SavedVar { name, previous });
        }
        self.perform_assignment(assignment, true)?;
        Ok(SavedVar { name, previous })
    }

    pub(crate) fn restore_vars(&mut self, saved: Vec<SavedVar>) {
        for entry in saved.into_iter().rev() {
            if entry.name == "PATH" {
                // Putting PATH back changes it again: bash forgets hashed programs.
                self.hash.clear();
            }
            self.vars.put(&entry.name, entry.previous);
        }
    }

    /// `set -x` output for a command: PS4 (its first character repeated per subshell
    /// level), then the words quoted so they could be typed back.
    #[inline(never)]
    fn trace_command(&mut self, assignments: &[Assignment], fields: &[String], decl: &[DeclArg]) {
        // Bash traces temporary assignments on lines of their own, before the command;
        // array arguments of `declare` and friends before it too (as `name=(...)`), and
        // their scalar assignments after it.
        self.trace_assignments(assignments);
        for arg in decl {
            self.trace_line(&format!("{}=({})", arg.name, traced_elements(&arg.value).join(" ")));
        }
        let declaration = matches!(fields[0].as_str(), "declare" | "typeset" | "local" | "export" | "readonly");
        let mut after = Vec::new();
        let parts: Vec<String> = fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                if let Some(arg) = decl.iter().find(|d| d.index == i) {
                    return arg.name.clone();
                }
                if declaration && i > 0 {
                    if let Some(eq) = f.find('=') {
                        if shell_parser::is_name(f[..eq].trim_end_matches('+')) {
                            after.push(format!("{}={}", &f[..eq], crate::text::xtrace_quote(&f[eq + 1..])));
                        }
                    }
                }
                crate::text::xtrace_quote(f)
            })
            .collect();
        self.trace_line(&parts.join(" "));
        for line in after {
            self.trace_line(&line);
        }
    }

    fn trace_assignments(&mut self, assignments: &[Assignment]) {
        for assignment in assignments {
            let value = match &assignment.value {
                AssignValue::Scalar(word) => {
                    let value = match &assignment.subscript {
                        // Not expanded again (that could run a substitution twice).
                        Some(_) => Some(shell_parser::printer::word_to_string(word)),
                        None => self.vars.get(&assignment.name).and_then(|v| v.value.first().map(str::to_string)),
                    };
                    crate::text::xtrace_quote(&value.unwrap_or_default())
                }
                AssignValue::Array(_) => {
                    // Bash shows an array assignment as written.
                    let text = shell_parser::printer::assignment_to_string(assignment);
                    let line = format!("{}{}\n", self.trace_prefix(), text);
                    self.write_err(&line);
                    continue;
                }
            };
            let op = if assignment.append { "+=" } else { "=" };
            let subscript = match &assignment.subscript {
                Some(sub) => format!("[{}]", shell_parser::printer::word_to_string(sub)),
                None => String::new(),
            };
            let line = format!("{}{}{}{}{}\n", self.trace_prefix(), assignment.name, subscript, op, value);
            self.write_err(&line);
        }
    }

    pub(crate) fn trace_prefix(&mut self) -> String {
        let ps4 = self.get_scalar("PS4").unwrap_or_default();
        let ps4 = self.expand_prompt_string(&ps4);
        // The first character repeats once per level of command substitution.
        let mut prefix = String::new();
        if let Some(first) = ps4.chars().next() {
            for _ in 0..self.subst_depth {
                prefix.push(first);
            }
        }
        prefix.push_str(&ps4);
        prefix
    }

    /// Writes one `set -x` line when tracing is on.
    pub(crate) fn trace_line(&mut self, text: &str) {
        if self.options.get(Opt::Xtrace) {
            let line = format!("{}{}\n", self.trace_prefix(), text);
            self.write_err(&line);
        }
    }
}

/// The elements of a `declare` array argument as bash's `set -x` shows them: keys quoted
/// for an associative array (`['k']='v'`), and for an indexed one only where an element
/// does not follow the one before (`a=(['2']='x' 'y')`).
fn traced_elements(value: &crate::vars::Value) -> Vec<String> {
    use crate::text::single_quote;
    match value {
        crate::vars::Value::Assoc(map) => {
            map.pairs_as_assigned().into_iter().map(|(k, v)| format!("[{}]={}", single_quote(k), single_quote(v))).collect()
        }
        crate::vars::Value::Indexed(map) => {
            let mut next = 0;
            map.iter()
                .map(|(&k, v)| {
                    let shown = if k == next { single_quote(v) } else { format!("[{}]={}", single_quote(&k.to_string()), single_quote(v)) };
                    next = k.wrapping_add(1);
                    shown
                })
                .collect()
        }
        other => other.values().iter().map(|v| single_quote(v)).collect(),
    }
}
