//! Command and process substitution: each runs in a new shell process (so it runs
//! concurrently and cannot change this shell), connected by a pipe.

use std::cell::RefCell;
use std::rc::Rc;

use shell_parser::ast::{Command, List, RedirOp, RedirTarget, Redirect, SimpleCommand, Word};

use crate::exec::child::{ChildKind, Task};
use crate::exec::Flow;
use crate::exec::inline_safe;
use crate::io::{MemFile, SavedFds, Target};
use crate::shell::Shell;

/// Process substitutions get descriptors counting down from here, as in bash
/// (`/dev/fd/63`).
const FIRST_PROCSUB_FD: u32 = 63;

impl Shell {
    /// `$(list)`: its output without trailing newlines. Sets `$?` to its status.
    pub(crate) fn command_substitution(&mut self, body: &Rc<List>) -> Result<String, Flow> {
        if body.items.is_empty() {
            self.subst_status = Some(0);
            return Ok(String::new());
        }
        if let Some(word) = file_candidate(body) {
            return self.file_substitution(word);
        }
        if let Some(simple) = inline_candidate(body) {
            if !self.is_shadowed(simple) {
                return Ok(self.inline_substitution(simple));
            }
        }
        if self.subst_depth + 1 > self.limits.substitution_depth {
            let limit = self.limits.substitution_depth;
            self.report(&format!("command substitution: nesting deeper than {} levels (the sandbox's substitutionDepth limit)", limit));
            self.status = 1;
            return Err(Flow::Abort);
        }
        let (read, write) = self.substitution_pipe("command substitution")?;
        let mut saved = SavedFds::default();
        self.fds.set_saving(1, Some(Target::Real(write)), &mut saved);
        let spawned = self.spawn_child_kind(&Task::List(body.clone()), ChildKind::Substitution, false);
        self.fds.restore(self.sys.as_mut(), saved);
        let pid = match spawned {
            Ok(pid) => pid,
            Err(error) => {
                self.sys.close(read);
                self.report(&format!("command substitution: {}", error));
                self.status = 1;
                return Err(Flow::Abort);
            }
        };
        let mut data = Vec::new();
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            match self.sys.read(read, &mut buf) {
                Ok(0) => break,
                Ok(n) => data.extend_from_slice(&buf[..n]),
                Err(crate::sys::Errno::INTR) | Err(crate::sys::Errno::AGAIN) => continue,
                Err(_) => break,
            }
        }
        self.sys.close(read);
        let status = self.wait_pid(pid);
        self.subst_status = Some(status);
        self.status = status;
        if self.cancelled.is_none() {
            let flow = self.check_poll();
            if flow != Flow::Normal {
                return Err(flow);
            }
        }
        self.drop_nul_bytes(&mut data);
        while data.last() == Some(&b'\n') {
            data.pop();
        }
        Ok(crate::text::from_bytes(&data))
    }

    /// `$(< file)`: the file's contents without trailing newlines, read by this shell.
    fn file_substitution(&mut self, word: &Word) -> Result<String, Flow> {
        let fields = self.expand_words(std::slice::from_ref(word))?;
        let path = match fields.as_slice() {
            [path] => path.clone(),
            _ => {
                let text = shell_parser::printer::word_to_string(word);
                self.report(&format!("{}: ambiguous redirect", text));
                self.subst_status = Some(1);
                return Ok(String::new());
            }
        };
        let text = match crate::cli::read_file(self, &path) {
            Ok(text) => text,
            Err(error) => {
                self.report(&format!("{}: {}", path, error.message()));
                self.subst_status = Some(1);
                return Ok(String::new());
            }
        };
        self.subst_status = Some(0);
        let mut data = crate::text::to_bytes(&text).into_owned();
        self.drop_nul_bytes(&mut data);
        Ok(crate::text::from_bytes(&data).trim_end_matches('\n').to_string())
    }

    /// `$(echo …)` run in this shell with its output captured (see `inline_safe`).
    fn inline_substitution(&mut self, simple: &SimpleCommand) -> String {
        let memory = Rc::new(RefCell::new(MemFile::default()));
        let mut saved = SavedFds::default();
        self.fds.set_saving(1, Some(Target::Memory(memory.clone())), &mut saved);
        let last_arg = std::mem::take(&mut self.last_arg);
        self.subshell_level += 1;
        self.subst_depth += 1;
        // As in a child, an exit or error only ends the substitution.
        let _ = self.exec_simple(simple);
        self.subst_depth -= 1;
        self.subshell_level -= 1;
        self.last_arg = last_arg;
        self.fds.restore(self.sys.as_mut(), saved);
        self.subst_status = Some(self.status);
        let mut data = std::mem::take(&mut memory.borrow_mut().data);
        self.drop_nul_bytes(&mut data);
        while data.last() == Some(&b'\n') {
            data.pop();
        }
        crate::text::from_bytes(&data)
    }

    /// Substituted output loses its NUL bytes, with bash's warning.
    fn drop_nul_bytes(&mut self, data: &mut Vec<u8>) {
        if data.contains(&0) {
            data.retain(|&b| b != 0);
            self.report("warning: command substitution: ignored null byte in input");
        }
    }

    /// Whether a function of the same name hides the builtin.
    pub(crate) fn is_shadowed(&self, simple: &SimpleCommand) -> bool {
        simple.words.first().and_then(|w| w.as_unquoted_literal()).map_or(true, |name| self.functions.contains_key(name))
    }

    /// The pipe a substitution reads or writes; failing to make one abandons the command
    /// (`what: error`, status 1), as bash does.
    fn substitution_pipe(&mut self, what: &str) -> Result<(crate::sys::Fd, crate::sys::Fd), Flow> {
        self.sys.pipe().map_err(|error| {
            self.report(&format!("{}: {}", what, error));
            self.status = 1;
            Flow::Abort
        })
    }

    /// `<(list)` / `>(list)`: starts the list on a pipe and returns `/dev/fd/N` naming this
    /// shell's end (closed when the command using it ends).
    pub(crate) fn process_substitution(&mut self, body: &Rc<List>, output: bool) -> Result<String, Flow> {
        let (read, write) = self.substitution_pipe("process substitution")?;
        let (child_end, our_end, child_fd) = if output { (read, write, 0) } else { (write, read, 1) };
        let mut saved = SavedFds::default();
        self.fds.set_saving(child_fd, Some(Target::Real(child_end)), &mut saved);
        let spawned = self.spawn_child_kind(&Task::List(body.clone()), ChildKind::Substitution, false);
        self.fds.restore(self.sys.as_mut(), saved);
        match spawned {
            Ok(pid) => {
                self.last_bg_pid = Some(pid);
                self.jobs.add_hidden(pid);
            }
            Err(error) => {
                self.sys.close(our_end);
                self.report(&format!("process substitution: {}", error));
                self.status = 1;
                return Err(Flow::Abort);
            }
        }
        let mut fd = FIRST_PROCSUB_FD;
        while self.fds.is_open(fd) && fd > 10 {
            fd -= 1;
        }
        self.fds.set(self.sys.as_mut(), fd, Some(Target::Real(our_end)));
        self.procsub_fds.push(fd);
        Ok(format!("/dev/fd/{}", fd))
    }

    /// Closes the process-substitution descriptors opened since `mark`.
    pub(crate) fn close_procsubs_from(&mut self, mark: usize) {
        while self.procsub_fds.len() > mark {
            if let Some(fd) = self.procsub_fds.pop() {
                self.fds.set(self.sys.as_mut(), fd, None);
            }
        }
    }
}

/// The file of `$(< file)`: one input redirection and nothing else.
fn file_candidate(body: &List) -> Option<&Word> {
    let simple = match body.items.as_slice() {
        [item] if !item.background && item.and_or.rest.is_empty() => match item.and_or.first.commands.as_slice() {
            [Command::Simple(simple)] if !item.and_or.first.negated && item.and_or.first.timed.is_none() => simple,
            _ => return None,
        },
        _ => return None,
    };
    if !simple.words.is_empty() || !simple.assignments.is_empty() {
        return None;
    }
    match simple.redirects.as_slice() {
        [Redirect { fd: None, op: RedirOp::Input, target: RedirTarget::Word(word) }] => Some(word),
        _ => None,
    }
}

/// The single command of `$( )` when it can run inline.
fn inline_candidate(body: &List) -> Option<&SimpleCommand> {
    let item = match body.items.as_slice() {
        [item] if !item.background && item.and_or.rest.is_empty() => item,
        _ => return None,
    };
    let pipeline = &item.and_or.first;
    if pipeline.negated || pipeline.timed.is_some() || pipeline.commands.len() != 1 {
        return None;
    }
    inline_safe(&pipeline.commands[0])
}
