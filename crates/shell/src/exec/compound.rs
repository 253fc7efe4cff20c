//! Compound commands: groups, conditionals, loops, `case`, `select`, `(( ))`.

use std::rc::Rc;

use shell_parser::ast::{ArithForCommand, CaseCommand, CaseTerminator, CompoundCommand, ForCommand, List, WhileCommand};

use super::Flow;
use crate::options::Shopt;
use crate::pattern::Pattern;
use crate::shell::Shell;

impl Shell {
    pub(crate) fn exec_compound(&mut self, compound: &CompoundCommand) -> Flow {
        match compound {
            CompoundCommand::Brace(list) => self.exec_list(list),
            CompoundCommand::Subshell(list) => self.run_subshell(&Rc::new(list.clone())),
            CompoundCommand::If(command) => {
                for (cond, body) in &command.branches {
                    propagate!(self.exec_condition(cond));
                    if self.status == 0 {
                        return self.exec_list(body);
                    }
                }
                match &command.else_body {
                    Some(body) => self.exec_list(body),
                    None => {
                        self.status = 0;
                        Flow::Normal
                    }
                }
            }
            CompoundCommand::For(command) => self.exec_for(command),
            CompoundCommand::ArithFor(command) => self.exec_arith_for(command),
            CompoundCommand::While(command) => self.exec_while(command),
            CompoundCommand::Case(command) => self.exec_case(command),
            CompoundCommand::Select(command) => self.exec_select(command),
            CompoundCommand::Arith(command) => self.exec_arith_command(command),
            CompoundCommand::Cond(command) => self.exec_cond_command(command),
        }
    }

    // Kept out of line: they sit on the recursion path of every function call, where
    // their locals would otherwise enlarge each frame.
    #[inline(never)]
    fn exec_arith_command(&mut self, command: &shell_parser::ast::ArithCommand) -> Flow {
        self.lineno = command.line;
        if self.options.get(crate::options::Opt::Xtrace) {
            let line = format!("{}(( {} ))\n", self.trace_prefix(), command.text);
            self.write_err(&line);
        }
        match self.eval_arith_source(&command.expr, &command.text) {
            Ok(value) => {
                self.status = (value == 0) as i32;
                Flow::Normal
            }
            Err(failure) => {
                if failure.message.is_empty() {
                    return Flow::Abort;
                }
                self.report(&format!("((: {}", failure.message));
                self.status = 1;
                if failure.fatal {
                    self.status = self.fatal_status();
                    return Flow::Exit;
                }
                Flow::Normal
            }
        }
    }

    #[inline(never)]
    fn exec_cond_command(&mut self, command: &shell_parser::ast::CondCommand) -> Flow {
        self.lineno = command.line;
        match self.eval_cond(&command.expr) {
            Ok(result) => {
                self.status = (!result) as i32;
                Flow::Normal
            }
            Err(flow) => flow,
        }
    }

    /// Runs an `if`/`while` condition, where `set -e` does not apply.
    fn exec_condition(&mut self, cond: &List) -> Flow {
        self.errexit_suppressed += 1;
        let flow = self.exec_list(cond);
        self.errexit_suppressed -= 1;
        flow
    }

    /// Interprets a loop body's flow: None when the loop goes on, else the flow the loop
    /// ends with. `break`/`continue` for this loop end here (a plain `break` ends it with
    /// Normal), deeper ones go on with one level less.
    fn loop_end(flow: Flow) -> Option<Flow> {
        match flow {
            Flow::Normal => None,
            Flow::Break(n) if n <= 1 => Some(Flow::Normal),
            Flow::Break(n) => Some(Flow::Break(n - 1)),
            Flow::Continue(n) if n <= 1 => None,
            Flow::Continue(n) => Some(Flow::Continue(n - 1)),
            other => Some(other),
        }
    }

    /// After a body that goes on: a pending signal or exhausted limit (`tick`) ends the loop.
    fn tick_end(&mut self) -> Option<Flow> {
        match self.tick() {
            Flow::Normal => None,
            poll => Some(poll),
        }
    }

    /// `loop_end` then `tick_end`: how `for` and `while` decide after each run of the body.
    fn body_end(&mut self, flow: Flow) -> Option<Flow> {
        Shell::loop_end(flow).or_else(|| self.tick_end())
    }

    /// The words `for`/`select` go over (the positional parameters without `in`).
    /// `for 1x in ...`: bash reports it when the loop runs, with status 1.
    #[inline(never)]
    fn loop_items(&mut self, command: &ForCommand) -> Result<Vec<String>, Flow> {
        if !shell_parser::is_name(&command.var) {
            self.report(&format!("`{}': not a valid identifier", command.var));
            self.status = 1;
            return Err(Flow::Normal);
        }
        match &command.words {
            Some(words) => self.expand_words(words),
            None => Ok(self.positional.clone()),
        }
    }

    #[inline(never)]
    fn exec_for(&mut self, command: &ForCommand) -> Flow {
        self.lineno = command.line;
        let items = match self.loop_items(command) {
            Ok(items) => items,
            Err(flow) => return flow,
        };
        self.status = 0;
        self.loop_depth += 1;
        let mut result = Flow::Normal;
        let trace = if self.options.get(crate::options::Opt::Xtrace) { Some(format!("for {} in {}", command.var, items.join(" "))) } else { None };
        for item in items {
            if let Some(trace) = &trace {
                self.trace_line(trace);
            }
            if let Err(error) = self.assign_scalar(&command.var, item, false) {
                self.report(&error.message());
                self.status = 1;
                break;
            }
            let flow = self.exec_list(&command.body);
            if let Some(end) = self.body_end(flow) {
                result = end;
                break;
            }
        }
        self.loop_depth -= 1;
        result
    }

    #[inline(never)]
    fn exec_arith_for(&mut self, command: &ArithForCommand) -> Flow {
        self.lineno = command.line;
        if let Some(init) = &command.init {
            if let Err(flow) = self.loop_arith(init) {
                return flow;
            }
        }
        self.status = 0;
        self.loop_depth += 1;
        let mut result = Flow::Normal;
        loop {
            if let Some(cond) = &command.cond {
                match self.loop_arith(cond) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(flow) => {
                        result = flow;
                        break;
                    }
                }
            }
            let flow = self.exec_list(&command.body);
            if let Some(end) = Shell::loop_end(flow) {
                result = end;
                break;
            }
            let status = self.status;
            if let Some(step) = &command.step {
                if let Err(flow) = self.loop_arith(step) {
                    result = flow;
                    break;
                }
            }
            self.status = status;
            if let Some(end) = self.tick_end() {
                result = end;
                break;
            }
        }
        self.loop_depth -= 1;
        result
    }

    fn loop_arith(&mut self, expr: &shell_parser::ast::Arith) -> Result<i64, Flow> {
        if self.options.get(crate::options::Opt::Xtrace) {
            let text = shell_parser::printer::arith_to_string(expr);
            self.trace_line(&format!("(( {} ))", text));
        }
        self.eval_arith(expr).map_err(|failure| {
            if failure.message.is_empty() {
                return Flow::Abort;
            }
            self.report(&format!("((: {}", failure.message));
            self.status = 1;
            if failure.fatal {
                self.status = 127;
                Flow::Exit
            } else {
                Flow::Abort
            }
        })
    }

    #[inline(never)]
    fn exec_while(&mut self, command: &WhileCommand) -> Flow {
        self.loop_depth += 1;
        let mut last_status = 0;
        let mut result = Flow::Normal;
        loop {
            let flow = self.exec_condition(&command.cond);
            if flow != Flow::Normal {
                match Shell::loop_end(flow) {
                    None => continue,
                    Some(end) => {
                        result = end;
                        break;
                    }
                }
            }
            if (self.status == 0) == command.until {
                break;
            }
            let flow = self.exec_list(&command.body);
            last_status = self.status;
            if let Some(end) = self.body_end(flow) {
                result = end;
                break;
            }
        }
        self.loop_depth -= 1;
        if result == Flow::Normal {
            self.status = last_status;
        }
        result
    }

    #[inline(never)]
    fn exec_case(&mut self, command: &CaseCommand) -> Flow {
        self.lineno = command.line;
        let subject = match self.expand_string(&command.subject) {
            Ok(subject) => subject,
            Err(flow) => return flow,
        };
        if self.options.get(crate::options::Opt::Xtrace) {
            let text = format!("case {} in", shell_parser::printer::word_to_string(&command.subject));
            self.trace_line(&text);
        }
        let nocase = self.options.shopt(Shopt::Nocasematch);
        let extglob = self.options.shopt(Shopt::Extglob);
        self.status = 0;
        let mut index = 0;
        let mut fall_through = false;
        while index < command.arms.len() {
            let arm = &command.arms[index];
            let mut matched = fall_through;
            if !matched {
                for pattern in &arm.patterns {
                    let text = match self.expand_pattern(pattern) {
                        Ok(text) => text,
                        Err(flow) => return flow,
                    };
                    if Pattern::new(&text, extglob, nocase).matches(&subject) {
                        matched = true;
                        break;
                    }
                }
            }
            fall_through = false;
            if matched {
                self.status = 0;
                propagate!(self.exec_list(&arm.body));
                match arm.terminator {
                    CaseTerminator::Break => return Flow::Normal,
                    CaseTerminator::FallThrough => fall_through = true,
                    CaseTerminator::Continue => {}
                }
            }
            index += 1;
        }
        Flow::Normal
    }

    #[inline(never)]
    fn exec_select(&mut self, command: &ForCommand) -> Flow {
        let items = match self.loop_items(command) {
            Ok(items) => items,
            Err(flow) => return flow,
        };
        if items.is_empty() {
            self.status = 0;
            return Flow::Normal;
        }
        self.loop_depth += 1;
        let mut result = Flow::Normal;
        let mut show_menu = true;
        loop {
            if show_menu {
                let width = items.len().to_string().len();
                let mut menu = String::new();
                for (i, item) in items.iter().enumerate() {
                    menu.push_str(&format!("{:>width$}) {}\n", i + 1, item, width = width));
                }
                self.write_err(&menu);
            }
            if self.options.get(crate::options::Opt::Xtrace) {
                let text = format!("select {} in {}", command.var, items.join(" "));
                self.trace_line(&text);
            }
            let prompt = self.get_scalar("PS3").unwrap_or_else(|| "#? ".to_string());
            self.write_err(&prompt);
            let line = match self.read_line_from(0) {
                Some(line) => line,
                None => {
                    self.write_err("\n");
                    self.status = 1;
                    break;
                }
            };
            self.set_var("REPLY", &line);
            if line.trim().is_empty() {
                show_menu = true;
                continue;
            }
            show_menu = false;
            let choice = line.trim().parse::<usize>().ok().filter(|n| *n >= 1 && *n <= items.len());
            let value = choice.map(|n| items[n - 1].clone()).unwrap_or_default();
            self.set_var(&command.var, &value);
            let flow = self.exec_list(&command.body);
            if let Some(end) = Shell::loop_end(flow) {
                result = end;
                break;
            }
        }
        self.loop_depth -= 1;
        result
    }
}
