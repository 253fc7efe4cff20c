//! Running the syntax tree. Control flow (`break`, `return`, `exit`, and errors that abandon
//! the current command line) travels up as a returned [`Flow`] value; the exit status is
//! `Shell::status`.

/// Returns early with any flow other than `Normal`.
#[macro_export]
macro_rules! propagate {
    ($flow:expr) => {
        match $flow {
            $crate::exec::Flow::Normal => {}
            other => return other,
        }
    };
}

mod background;
pub mod child;
mod compound;
pub(crate) mod cond;
mod external;
mod function;
mod pipeline;
mod simple;

pub use external::CommandKind;
pub(crate) use pipeline::inline_safe;

use shell_parser::ast::{AndOr, AndOrOp, Command, CompoundCommand, List, Pipeline};

use crate::sys::Poll;
use crate::options::Opt;
use crate::shell::Shell;

/// What the rest of the program should do after a command.
#[must_use]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Normal,
    /// `break N` (N levels still to leave, counting this one).
    Break(u32),
    /// `continue N`
    Continue(u32),
    /// `return` from a function or sourced file.
    Return,
    /// `exit`, a fatal error, or `set -e`: leave the shell.
    Exit,
    /// An expansion error in a non-interactive shell: abandon the current command line
    /// (bash's return to the top level), with `$?` set.
    Abort,
}


/// Statements between session polls.
const POLL_INTERVAL: u32 = 1000;

impl Shell {
    pub fn exec_list(&mut self, list: &List) -> Flow {
        if self.nesting >= crate::shell::MAX_NESTING {
            return self.too_deep();
        }
        self.nesting += 1;
        let mut flow = Flow::Normal;
        for item in &list.items {
            flow = if item.background { self.exec_background(&item.and_or) } else { self.exec_and_or(&item.and_or) };
            if flow != Flow::Normal {
                break;
            }
        }
        self.nesting -= 1;
        flow
    }

    #[inline(never)]
    fn too_deep(&mut self) -> Flow {
        let message = match self.frames.last() {
            Some(frame) => format!("{}: maximum function nesting level exceeded ({})", frame.name, self.frames.len()),
            None => "maximum nesting level exceeded".to_string(),
        };
        self.report(&message);
        self.status = 1;
        Flow::Abort
    }

    pub(crate) fn exec_and_or(&mut self, and_or: &AndOr) -> Flow {
        let has_rest = !and_or.rest.is_empty();
        if has_rest {
            self.errexit_suppressed += 1;
        }
        let flow = self.exec_pipeline(&and_or.first);
        if has_rest {
            self.errexit_suppressed -= 1;
        }
        propagate!(flow);
        let count = and_or.rest.len();
        for (i, (op, pipeline)) in and_or.rest.iter().enumerate() {
            let run = match op {
                AndOrOp::And => self.status == 0,
                AndOrOp::Or => self.status != 0,
            };
            if !run {
                continue;
            }
            let last = i + 1 == count;
            if !last {
                self.errexit_suppressed += 1;
            }
            let flow = self.exec_pipeline(pipeline);
            if !last {
                self.errexit_suppressed -= 1;
            }
            propagate!(flow);
        }
        Flow::Normal
    }

    /// Runs a pipeline. The usual case — one command, not negated or timed — takes a
    /// short path: it is on the recursion path of every function call, and each frame
    /// here costs engine stack in the sandbox.
    pub(crate) fn exec_pipeline(&mut self, pipeline: &Pipeline) -> Flow {
        if pipeline.commands.len() != 1 || pipeline.negated || pipeline.timed.is_some() {
            return self.exec_pipeline_general(pipeline);
        }
        propagate!(self.tick());
        let command = &pipeline.commands[0];
        let flow = match command {
            Command::Simple(simple) => self.exec_simple(simple),
            Command::Compound(compound, redirects) if redirects.is_empty() => self.exec_compound(compound),
            other => self.exec_command(other),
        };
        if !is_grouping(command) {
            self.pipestatus.clear();
            self.pipestatus.push(self.status);
        }
        propagate!(flow);
        if self.status != 0 && self.errexit_suppressed == 0 && checks_errexit(pipeline) {
            return self.command_failed();
        }
        Flow::Normal
    }

    #[inline(never)]
    fn exec_pipeline_general(&mut self, pipeline: &Pipeline) -> Flow {
        propagate!(self.tick());
        let started = pipeline.timed.map(|_| self.times_now());
        if pipeline.negated {
            self.errexit_suppressed += 1;
        }
        let flow = match pipeline.commands.len() {
            0 => {
                self.status = 0;
                Flow::Normal
            }
            1 => {
                let flow = self.exec_command(&pipeline.commands[0]);
                if !is_grouping(&pipeline.commands[0]) {
                    self.pipestatus.clear();
                    self.pipestatus.push(self.status);
                }
                flow
            }
            _ => self.exec_multi_pipeline(pipeline),
        };
        if pipeline.negated {
            self.errexit_suppressed -= 1;
            self.status = (self.status == 0) as i32;
        }
        if let (Some(started), Some(mode)) = (started, pipeline.timed) {
            self.report_times(started, mode);
        }
        propagate!(flow);
        if self.status != 0 && !pipeline.negated && self.errexit_suppressed == 0 && checks_errexit(pipeline) {
            return self.command_failed();
        }
        Flow::Normal
    }

    /// A command failed where `set -e` applies: run the ERR trap, then exit if -e is on.
    #[inline(never)]
    pub(crate) fn command_failed(&mut self) -> Flow {
        let status = self.status;
        self.run_err_trap();
        self.status = status;
        if self.options.get(Opt::Errexit) {
            return Flow::Exit;
        }
        Flow::Normal
    }

    #[inline(never)]
    pub(crate) fn exec_command(&mut self, command: &Command) -> Flow {
        match command {
            Command::Simple(simple) => self.exec_simple(simple),
            Command::Compound(compound, redirects) => {
                if redirects.is_empty() {
                    return self.exec_compound(compound);
                }
                let procsub_mark = self.procsub_fds.len();
                let saved = match self.apply_redirects(redirects) {
                    Ok(saved) => saved,
                    Err(flow) => {
                        self.close_procsubs_from(procsub_mark);
                        // A group or loop whose redirection fails ran nothing that could
                        // trip `set -e`: the failed redirection does.
                        if flow == Flow::Normal && is_grouping(command) && self.errexit_suppressed == 0 {
                            return self.command_failed();
                        }
                        return flow;
                    }
                };
                let flow = self.exec_compound(compound);
                self.fds.restore(self.sys.as_mut(), saved);
                self.close_procsubs_from(procsub_mark);
                flow
            }
            Command::Function(def) => {
                self.status = if self.define_function(def) { 0 } else { 1 };
                Flow::Normal
            }
        }
    }

    /// Counts a statement; every [`POLL_INTERVAL`] asks the kernel's session whether the run
    /// should stop (deadline, cancellation).
    #[inline]
    pub(crate) fn tick(&mut self) -> Flow {
        self.steps += 1;
        if self.steps < POLL_INTERVAL {
            return Flow::Normal;
        }
        self.steps = 0;
        self.check_poll()
    }

    /// Asks the kernel whether the run should stop; ends it with 124 or 130 if so.
    #[inline(never)]
    pub(crate) fn check_poll(&mut self) -> Flow {
        if let Some(status) = self.cancelled {
            self.status = status;
            return Flow::Exit;
        }
        match self.sys.poll() {
            Poll::Continue => Flow::Normal,
            Poll::TimedOut => {
                self.cancelled = Some(124);
                self.status = 124;
                Flow::Exit
            }
            Poll::Interrupted => {
                self.cancelled = Some(130);
                self.status = 130;
                Flow::Exit
            }
        }
    }
}

/// Brace groups and flow-control compounds report their inner commands' failures
/// themselves; subshells, `(( ))` and `[[ ]]` are checked like simple commands.
fn checks_errexit(pipeline: &Pipeline) -> bool {
    if pipeline.commands.len() != 1 {
        return true;
    }
    match &pipeline.commands[0] {
        Command::Simple(_) => true,
        Command::Compound(compound, _) => {
            matches!(**compound, CompoundCommand::Subshell(_) | CompoundCommand::Arith(_) | CompoundCommand::Cond(_))
        }
        Command::Function(_) => false,
    }
}

/// Compound commands (and definitions) that leave PIPESTATUS as their last inner
/// pipeline set it.
fn is_grouping(command: &Command) -> bool {
    match command {
        Command::Compound(compound, _) => !matches!(**compound, CompoundCommand::Subshell(_) | CompoundCommand::Arith(_) | CompoundCommand::Cond(_)),
        Command::Function(_) => true,
        Command::Simple(_) => false,
    }
}
