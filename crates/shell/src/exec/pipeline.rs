//! Pipelines of two or more commands. Every stage is its own process, connected by
//! kernel pipes, so stages stream concurrently: a program is spawned directly, shell code
//! (builtins, functions, compound commands) runs in a child shell. With `lastpipe` the last
//! stage runs in this shell, as in bash.

use shell_parser::ast::{Command, ParamOp, Pipeline, SimpleCommand, Word, WordPart};

use super::child::Task;
use super::{CommandKind, Flow};
use crate::sys::Fd;
use crate::io::{SavedFds, Target};
use crate::options::{Opt, Shopt};
use crate::shell::Shell;

/// How a stage is running.
enum Stage {
    Process(u32),
    Done(i32),
}

impl Shell {
    #[inline(never)]
    pub(crate) fn exec_multi_pipeline(&mut self, pipeline: &Pipeline) -> Flow {
        let count = pipeline.commands.len();
        let lastpipe = self.options.shopt(Shopt::Lastpipe);
        let mut stages = Vec::with_capacity(count);
        let mut input: Option<Fd> = None;
        let mut flow = Flow::Normal;
        // A first stage that is `echo`/`printf` runs here, once the others are started.
        let inline_first = if lastpipe { None } else { inline_safe(&pipeline.commands[0]).filter(|simple| !self.is_shadowed(simple)) };
        let mut first_output = None;
        if let Some(simple) = inline_first {
            // Its trace comes first, as the stages start in order (its words are plain).
            if self.options.get(Opt::Xtrace) {
                if let Ok(fields) = self.expand_words(&simple.words) {
                    let text = fields.iter().map(|f| crate::text::xtrace_quote(f)).collect::<Vec<_>>().join(" ");
                    self.trace_line(&text);
                }
            }
        }
        for (index, command) in pipeline.commands.iter().enumerate() {
            let last = index + 1 == count;
            let (next_input, output) = if last {
                (None, None)
            } else {
                match self.sys.pipe() {
                    Ok((read, write)) => (Some(read), Some(write)),
                    Err(error) => {
                        self.report(&format!("pipe error: {}", error));
                        if let Some(fd) = input {
                            self.sys.close(fd);
                        }
                        self.status = 1;
                        return Flow::Normal;
                    }
                }
            };
            if index == 0 && inline_first.is_some() {
                first_output = output;
                stages.push(Stage::Done(0));
                input = next_input;
                continue;
            }
            let mut saved = SavedFds::default();
            if let Some(fd) = input {
                self.fds.set_saving(0, Some(Target::Real(fd)), &mut saved);
            }
            if let Some(fd) = output {
                self.fds.set_saving(1, Some(Target::Real(fd)), &mut saved);
                if pipeline.pipe_stderr.get(index) == Some(&true) {
                    self.fds.set_saving(2, Some(Target::Real(fd)), &mut saved);
                }
            }
            let stage = if last && lastpipe {
                flow = self.exec_command(command);
                Stage::Done(self.status)
            } else {
                self.spawn_stage(command)
            };
            // The stage has its copies; ours close now so end-of-file reaches readers.
            self.fds.restore(self.sys.as_mut(), saved);
            stages.push(stage);
            input = next_input;
        }
        if let (Some(simple), Some(fd)) = (inline_first, first_output) {
            let mut saved = SavedFds::default();
            self.fds.set_saving(1, Some(Target::Real(fd)), &mut saved);
            if pipeline.pipe_stderr.first() == Some(&true) {
                self.fds.set_saving(2, Some(Target::Real(fd)), &mut saved);
            }
            let last_arg = std::mem::take(&mut self.last_arg);
            self.subshell_level += 1;
            self.writing_to_pipe = true;
            self.trace_muted = true;
            let _ = self.exec_simple(simple);
            self.trace_muted = false;
            self.writing_to_pipe = false;
            self.subshell_level -= 1;
            self.last_arg = last_arg;
            self.fds.restore(self.sys.as_mut(), saved);
            stages[0] = Stage::Done(if self.broken_pipe { 141 } else { self.status });
            self.broken_pipe = false;
        }
        let mut statuses = Vec::with_capacity(count);
        for stage in stages {
            statuses.push(match stage {
                Stage::Process(pid) => self.wait_pid(pid),
                Stage::Done(status) => status,
            });
        }
        self.status = if self.options.get(Opt::Pipefail) {
            statuses.iter().rev().find(|&&s| s != 0).copied().unwrap_or(0)
        } else {
            statuses.last().copied().unwrap_or(0)
        };
        self.pipestatus = statuses;
        if flow != Flow::Normal {
            return flow;
        }
        self.check_poll()
    }

    /// Starts one stage: a program directly when that cannot change anything (plain
    /// words, no assignments by expansion), otherwise a child shell.
    fn spawn_stage(&mut self, command: &Command) -> Stage {
        if let Command::Simple(simple) = command {
            if let Some(stage) = self.spawn_program_stage(simple) {
                return stage;
            }
        }
        match self.spawn_child(&Task::Command(command.clone()), false) {
            Ok(pid) => Stage::Process(pid),
            Err(error) => {
                self.report(&format!("fork: {}", error));
                Stage::Done(1)
            }
        }
    }

    fn spawn_program_stage(&mut self, simple: &SimpleCommand) -> Option<Stage> {
        if !simple.assignments.is_empty() || !simple.words.iter().all(word_is_pure) || !simple.redirects.is_empty() {
            return None;
        }
        if self.options.get(Opt::Nounset) || self.traps.has_debug() {
            return None;
        }
        let fields = self.expand_words(&simple.words).ok()?;
        let name = fields.first()?;
        let path = match self.resolve_command(name, true) {
            CommandKind::External(path) => path,
            _ => return None,
        };
        self.lineno = simple.line;
        if self.options.get(Opt::Xtrace) {
            let line = format!("{}{}\n", self.trace_prefix(), fields.iter().map(|f| crate::text::xtrace_quote(f)).collect::<Vec<_>>().join(" "));
            self.write_err(&line);
        }
        Some(match self.spawn_program(&path, &fields, false) {
            Ok(pid) => Stage::Process(pid),
            Err(status) => Stage::Done(status),
        })
    }
}

/// A builtin that only writes its arguments (`echo`, `printf` without `-v`) with plain
/// words and no redirections: running it in this shell is the same as in a child, and
/// saves a process for `$(echo …)` and `echo … | cmd`.
pub(crate) fn inline_safe(command: &Command) -> Option<&SimpleCommand> {
    let simple = match command {
        Command::Simple(simple) => simple,
        _ => return None,
    };
    if !simple.assignments.is_empty() || !simple.redirects.is_empty() || !simple.words.iter().all(word_is_pure) {
        return None;
    }
    if simple.words.iter().any(|w| w.parts.iter().any(names_process_state)) {
        return None;
    }
    let name = simple.words.first()?.as_unquoted_literal()?;
    let is_printf_v = name == "printf" && simple.words.get(1).and_then(|w| w.as_static()).map_or(false, |a| a.starts_with("-v"));
    if matches!(name, "echo" | "printf" | "true" | "false" | ":") && !is_printf_v {
        Some(simple)
    } else {
        None
    }
}

/// Parameters whose value depends on the process (a child sees different ones).
fn names_process_state(part: &WordPart) -> bool {
    match part {
        WordPart::DoubleQuoted(parts) => parts.iter().any(names_process_state),
        WordPart::Param(param) => match &param.param {
            shell_parser::ast::Param::Var { name, .. } => matches!(name.as_str(), "RANDOM" | "SRANDOM" | "BASHPID" | "BASH_SUBSHELL" | "_"),
            shell_parser::ast::Param::Special(c) => *c == '_',
            _ => false,
        },
        _ => false,
    }
}

/// A word whose expansion has no side effects and cannot fail: expanding it in the
/// parent is the same as expanding it in the stage's own process.
fn word_is_pure(word: &Word) -> bool {
    word.parts.iter().all(part_is_pure)
}

fn part_is_pure(part: &WordPart) -> bool {
    match part {
        WordPart::Literal(_) | WordPart::Quoted(_) | WordPart::AnsiQuoted(_) | WordPart::Tilde(_) => true,
        WordPart::DoubleQuoted(parts) => parts.iter().all(part_is_pure),
        WordPart::Brace(_) => true,
        WordPart::Param(param) => match &param.op {
            ParamOp::None | ParamOp::Length => !param.indirect && subscript_is_pure(&param.param),
            ParamOp::Default { word, .. } | ParamOp::Alternate { word, .. } => !param.indirect && subscript_is_pure(&param.param) && word_is_pure(word),
            _ => false,
        },
        _ => false,
    }
}

fn subscript_is_pure(param: &shell_parser::ast::Param) -> bool {
    match param {
        shell_parser::ast::Param::Var { index: Some(shell_parser::ast::Subscript::Index(word)), .. } => {
            word.parts.iter().all(|p| matches!(p, WordPart::Literal(t) if t.bytes().all(|c| c.is_ascii_digit())))
        }
        _ => true,
    }
}
