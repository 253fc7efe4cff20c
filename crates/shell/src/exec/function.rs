//! Function calls: a new scope for `local`, positional parameters per call, FUNCNAME, the
//! RETURN trap, and a depth limit instead of a stack overflow.

use std::rc::Rc;

use shell_parser::ast::FunctionDef;

use super::Flow;
use crate::shell::{CallFrame, Shell};

impl Shell {
    /// Calls `def` with `argv` (argv[0] is the function's name).
    pub(crate) fn call_function(&mut self, def: &Rc<FunctionDef>, argv: &[String]) -> Flow {
        let sandbox_limit = self.limits.call_depth as usize;
        let limit = match self.get_scalar("FUNCNEST").and_then(|v| v.trim().parse::<usize>().ok()) {
            Some(n) if n > 0 => n.min(sandbox_limit),
            _ => sandbox_limit,
        };
        if self.frames.len() >= limit {
            // FUNCNEST's message is bash's; the sandbox's own bound says which limit it is.
            let which = if limit == sandbox_limit { " (the sandbox's callDepth limit)" } else { "" };
            self.report(&format!("{}: maximum function nesting level exceeded ({}){}", def.name, limit, which));
            self.status = 1;
            return Flow::Abort;
        }
        let saved_positional = std::mem::replace(&mut self.positional, argv[1..].to_vec());
        let saved_loop_depth = std::mem::replace(&mut self.loop_depth, 0);
        // What bash calls the file of a function defined by `bash -c` text: "environment".
        let source = match self.frames.last() {
            Some(frame) => frame.source.clone(),
            None if self.source_name.is_empty() => "environment".to_string(),
            None => self.source_name.clone(),
        };
        self.frames.push(CallFrame { name: def.name.clone(), source, call_line: self.lineno });
        self.vars.push_scope();
        let saved_errtrace = self.traps.enter_function(self.options.get(crate::options::Opt::Errtrace), self.options.get(crate::options::Opt::Functrace));
        let flow = if def.redirects.is_empty() {
            match &def.body {
                // The usual `f() { ...; }` skips a frame (see exec_pipeline).
                shell_parser::ast::CompoundCommand::Brace(list) => self.exec_list(list),
                other => self.exec_compound(other),
            }
        } else {
            match self.apply_redirects(&def.redirects) {
                Ok(saved) => {
                    let flow = self.exec_compound(&def.body);
                    self.fds.restore(self.sys.as_mut(), saved);
                    flow
                }
                Err(flow) => flow,
            }
        };
        let status = self.status;
        self.run_return_trap();
        self.status = status;
        self.traps.leave_function(saved_errtrace);
        if self.vars.pop_scope() {
            self.hash.clear();
        }
        self.frames.pop();
        self.loop_depth = saved_loop_depth;
        self.positional = saved_positional;
        match flow {
            Flow::Return | Flow::Break(_) | Flow::Continue(_) => Flow::Normal,
            other => other,
        }
    }
}
