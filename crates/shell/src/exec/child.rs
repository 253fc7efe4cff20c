//! Child shells. A subshell `( )`, a pipeline stage that is shell code, `$( )`, `<( )` and
//! a background job run in a new process of this same program, started with the parent's
//! state and the commands to run in its spawn blob — so they run concurrently with the
//! parent and cannot change it.

use std::rc::Rc;

use shell_parser::ast::{Command, List};
use shell_parser::codec::{from_bytes, to_bytes, Codec, DecodeError, Reader, Writer};

use super::Flow;
use crate::sys::{Errno, Sys, Program, SpawnRequest};
use crate::io::FdTable;
use crate::options::{Opt, Shopt};
use crate::shell::{Mode, Shell};
use crate::state::State;

/// What a child shell runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Task {
    List(Rc<List>),
    Command(Command),
    /// A file that is not a program, run as a script by a fresh shell.
    Script { path: String, args: Vec<String> },
}

/// Why the child exists (some shell behaviour differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildKind {
    /// `( )`, a pipeline stage, a background job.
    Subshell,
    /// `$( )`, `<( )`: `set -e` is off inside unless `inherit_errexit`.
    Substitution,
}

struct Blob {
    state: State,
    task: Task,
    kind: ChildKind,
}

impl Codec for Task {
    fn encode(&self, w: &mut Writer) {
        match self {
            Task::List(list) => {
                w.u8(0);
                list.encode(w);
            }
            Task::Command(command) => {
                w.u8(1);
                command.encode(w);
            }
            Task::Script { path, args } => {
                w.u8(2);
                path.encode(w);
                args.encode(w);
            }
        }
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        Ok(match r.u8()? {
            0 => Task::List(Codec::decode(r)?),
            1 => Task::Command(Codec::decode(r)?),
            2 => Task::Script { path: Codec::decode(r)?, args: Codec::decode(r)? },
            _ => return Err(DecodeError),
        })
    }
}

impl Codec for Blob {
    fn encode(&self, w: &mut Writer) {
        self.state.encode(w);
        self.task.encode(w);
        w.u8(match self.kind {
            ChildKind::Subshell => 0,
            ChildKind::Substitution => 1,
        });
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        let state = State::decode(r)?;
        let task = Task::decode(r)?;
        let kind = if r.u8()? == 1 { ChildKind::Substitution } else { ChildKind::Subshell };
        Ok(Blob { state, task, kind })
    }
}

/// Argument that tells the program it is a child shell.
pub const CHILD_FLAG: &str = "--airlock-child";

impl Shell {
    pub(crate) fn spawn_child(&mut self, task: &Task, background: bool) -> Result<u32, Errno> {
        self.spawn_child_kind(task, ChildKind::Subshell, background)
    }

    /// Starts a child shell running `task` with the current descriptors.
    pub(crate) fn spawn_child_kind(&mut self, task: &Task, kind: ChildKind, background: bool) -> Result<u32, Errno> {
        if self.subshell_level >= crate::shell::MAX_SUBSHELL_DEPTH {
            // Reported by the caller as bash reports a failed fork.
            return Err(Errno::AGAIN);
        }
        let fds = self.child_fds()?;
        let mut state = self.snapshot();
        if kind == ChildKind::Substitution {
            state.subst_depth += 1;
        }
        let blob = Blob { state, task: task.clone(), kind };
        let request = SpawnRequest {
            program: Program::SelfShell,
            argv: vec![self.arg0.as_bytes().to_vec(), CHILD_FLAG.as_bytes().to_vec()],
            env: self.child_environment(),
            fds,
            blob: to_bytes(&blob),
            new_group: background,
        };
        self.sys.spawn(&request)
    }

    /// Runs a subshell body in a child process and waits for it.
    #[inline(never)]
    pub(crate) fn run_subshell(&mut self, list: &Rc<List>) -> Flow {
        match self.spawn_child(&Task::List(list.clone()), false) {
            Ok(pid) => {
                self.status = self.wait_pid(pid);
                self.check_poll()
            }
            Err(error) => {
                self.report(&format!("fork: {}", error));
                self.status = 1;
                Flow::Normal
            }
        }
    }
}

/// The main program of a child shell: restore, run, exit with the status.
pub fn run_child(sys: Box<dyn Sys>) -> i32 {
    let mut sys = sys;
    let bytes = sys.blob();
    let blob: Blob = match from_bytes(&bytes) {
        Ok(blob) => blob,
        Err(_) => {
            let _ = sys.write(2, b"bash: cannot read the state passed to this child shell\n");
            return 2;
        }
    };
    if let Task::Script { path, args } = &blob.task {
        let environment: Vec<String> = blob
            .state
            .vars
            .iter()
            .filter(|(_, _, var)| var.has(crate::vars::attr::EXPORT))
            .filter_map(|(name, _, var)| var.value.as_scalar().map(|v| format!("{}={}", name, v)))
            .collect();
        let mut shell = Shell::new(sys, Mode::Script);
        shell.limits = crate::shell::Limits { call_depth: blob.state.limits.0, substitution_depth: blob.state.limits.1 };
        shell.init_variables(&environment);
        return crate::cli::run_script_file(&mut shell, path, args.clone());
    }
    let mut shell = Shell::new(sys, Mode::Child);
    let open_fds = blob.state.open_fds.clone();
    shell.restore(blob.state);
    shell.fds = FdTable::identity(&open_fds);
    shell.subshell_level += 1;
    let seed = shell.sys.random_u32();
    shell.random.reseed(seed);
    shell.traps.reset_for_subshell();
    // `( )` and a compound pipeline stage are outside any loop (`break` there says so);
    // `$( )` and a simple command in a pipeline keep the loops around them, as in bash.
    let compound = matches!(&blob.task, Task::Command(Command::Compound(..)));
    if compound || (blob.kind == ChildKind::Subshell && matches!(&blob.task, Task::List(_))) {
        shell.loop_depth = 0;
    }
    if blob.kind == ChildKind::Substitution && !shell.options.shopt(Shopt::InheritErrexit) {
        shell.options.set[Opt::Errexit as usize] = false;
    }
    let flow = match &blob.task {
        Task::List(list) => shell.exec_list(list),
        Task::Command(command) => shell.exec_command(command),
        Task::Script { .. } => Flow::Normal,
    };
    let _ = flow;
    shell.finish()
}
