//! The shell's state as bytes: what a child shell (subshell, pipeline stage, `$( )`)
//! starts from, and what the session shell hands the kernel after each run.

use std::rc::Rc;

use shell_parser::ast::FunctionDef;
use shell_parser::codec::{from_bytes, to_bytes, Codec, DecodeError, Reader, Writer};
use shell_parser::codec_struct;

use crate::shell::{CallFrame, Mode, Shell};
use crate::vars::{Assoc, Value, Var, Variables};

/// Bumped whenever the layout changes: saved session state of another version is not
/// restored (a fresh session starts instead).
pub const STATE_VERSION: u32 = 5;

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub version: u32,
    pub vars: Vec<(String, u32, Var)>,
    pub scope_count: u32,
    pub functions: Vec<Rc<FunctionDef>>,
    pub aliases: Vec<(String, String)>,
    pub set_options: Vec<bool>,
    pub shopt_options: Vec<bool>,
    pub extra_flags: String,
    pub positional: Vec<String>,
    pub arg0: String,
    pub cwd: String,
    pub dirstack: Vec<String>,
    pub status: i32,
    pub pipestatus: Vec<i32>,
    pub last_bg_pid: Option<u32>,
    pub shell_pid: u32,
    pub traps: Vec<(String, String)>,
    pub frames: Vec<CallFrame>,
    pub loop_depth: u32,
    pub subst_depth: u32,
    /// The sandbox's limits (`Limits`): call depth, substitution depth.
    pub limits: (u32, u32),
    pub subshell_level: u32,
    pub lineno: u32,
    pub mode: u8,
    pub error_prefix: String,
    pub source_name: String,
    pub open_fds: Vec<u32>,
    /// `(name, path, hits)`, oldest first.
    pub hash: Vec<(String, String, u32)>,
    /// Nanoseconds since the shell started (SECONDS continues in children).
    pub elapsed_ns: u64,
    pub errexit_suppressed: u32,
    pub last_arg: String,
    pub random: (u32, u32),
    /// Background jobs (a child shell can list them: `$(jobs -p)`).
    pub jobs: Vec<(u32, Vec<u32>, String)>,
    pub history: Vec<String>,
    pub function_attrs: Vec<(String, u8)>,
}

codec_struct!(State {
    version, vars, scope_count, functions, aliases, set_options, shopt_options, extra_flags, positional, arg0, cwd,
    dirstack, status, pipestatus, last_bg_pid, shell_pid, traps, frames, loop_depth, subst_depth, limits,
    subshell_level,
    lineno, mode, error_prefix, source_name, open_fds, hash, elapsed_ns, errexit_suppressed, last_arg, random, jobs,
    history, function_attrs,
});
codec_struct!(CallFrame { name, source, call_line });

impl Codec for Var {
    fn encode(&self, w: &mut Writer) {
        self.attrs.encode(w);
        self.value.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        let attrs = u16::decode(r)?;
        Ok(Var { attrs, value: Value::decode(r)? })
    }
}

impl Codec for Value {
    fn encode(&self, w: &mut Writer) {
        match self {
            Value::Unset => w.u8(0),
            Value::Scalar(s) => {
                w.u8(1);
                s.encode(w);
            }
            Value::Indexed(map) => {
                w.u8(2);
                map.encode(w);
            }
            Value::Assoc(assoc) => {
                w.u8(3);
                assoc.pairs_in_order().encode(w);
            }
        }
    }
    fn decode(r: &mut Reader) -> Result<Self, DecodeError> {
        Ok(match r.u8()? {
            0 => Value::Unset,
            1 => Value::Scalar(String::decode(r)?),
            2 => Value::Indexed(Codec::decode(r)?),
            3 => Value::Assoc(Assoc::from_ordered_pairs(Codec::decode(r)?)),
            _ => return Err(DecodeError),
        })
    }
}

fn mode_code(mode: Mode) -> u8 {
    match mode {
        Mode::Command => 0,
        Mode::Script => 1,
        Mode::Session => 2,
        Mode::Child => 3,
    }
}

fn mode_from(code: u8) -> Mode {
    match code {
        0 => Mode::Command,
        1 => Mode::Script,
        2 => Mode::Session,
        _ => Mode::Child,
    }
}

impl Shell {
    /// Everything a copy of this shell needs.
    pub fn snapshot(&mut self) -> State {
        let mut functions: Vec<Rc<FunctionDef>> = self.functions.values().cloned().collect();
        functions.sort_by(|a, b| a.name.cmp(&b.name));
        let elapsed_ns = self.sys.monotonic_ns().wrapping_sub(self.start_ns);
        State {
            version: STATE_VERSION,
            vars: self.vars.all_slots(),
            scope_count: self.vars.depth(),
            functions,
            aliases: self.aliases.map.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            set_options: self.options.set.clone(),
            shopt_options: self.options.shopt.clone(),
            extra_flags: self.options.extra_flags.clone(),
            positional: self.positional.clone(),
            arg0: self.arg0.clone(),
            cwd: self.cwd.clone(),
            dirstack: self.dirstack.clone(),
            status: self.status,
            pipestatus: self.pipestatus.clone(),
            last_bg_pid: self.last_bg_pid,
            shell_pid: self.shell_pid,
            traps: self.traps.to_pairs(),
            frames: self.frames.clone(),
            loop_depth: self.loop_depth,
            subst_depth: self.subst_depth,
            limits: (self.limits.call_depth, self.limits.substitution_depth),
            subshell_level: self.subshell_level,
            lineno: self.lineno,
            mode: mode_code(self.mode),
            error_prefix: self.error_prefix.clone(),
            source_name: self.source_name.clone(),
            open_fds: self.fds.open_fds(),
            hash: self.hash.to_triples(),
            elapsed_ns,
            errexit_suppressed: self.errexit_suppressed,
            last_arg: self.last_arg.clone(),
            random: (self.random.seed, self.random.last),
            jobs: self.jobs.list.iter().filter(|j| j.status.is_none()).map(|j| (j.id, j.pids.clone(), j.command.clone())).collect(),
            history: self.history.clone(),
            function_attrs: self.function_attrs.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        }
    }

    /// Takes over a snapshot (descriptors are set up by the caller).
    pub fn restore(&mut self, state: State) {
        self.vars = Variables::from_slots(state.vars, state.scope_count);
        self.functions = state.functions.into_iter().map(|f| (f.name.clone(), f)).collect();
        *self.aliases.map.borrow_mut() = state.aliases.into_iter().collect();
        if state.set_options.len() == self.options.set.len() {
            self.options.set = state.set_options;
        }
        if state.shopt_options.len() == self.options.shopt.len() {
            self.options.shopt = state.shopt_options;
        }
        self.options.extra_flags = state.extra_flags;
        self.positional = state.positional;
        self.arg0 = state.arg0;
        self.cwd = state.cwd;
        self.dirstack = state.dirstack;
        self.status = state.status;
        self.pipestatus = state.pipestatus;
        self.last_bg_pid = state.last_bg_pid;
        self.shell_pid = state.shell_pid;
        self.traps = crate::traps::Traps::from_pairs(state.traps);
        self.frames = state.frames;
        self.loop_depth = state.loop_depth;
        self.subst_depth = state.subst_depth;
        self.limits = crate::shell::Limits { call_depth: state.limits.0, substitution_depth: state.limits.1 };
        self.subshell_level = state.subshell_level;
        self.lineno = state.lineno;
        self.mode = mode_from(state.mode);
        self.error_prefix = state.error_prefix;
        self.source_name = state.source_name;
        self.hash = crate::programs::ProgramTable::from_triples(state.hash);
        self.start_ns = self.sys.monotonic_ns().wrapping_sub(state.elapsed_ns);
        self.errexit_suppressed = state.errexit_suppressed;
        self.last_arg = state.last_arg;
        self.random.seed = state.random.0;
        self.random.last = state.random.1;
        self.jobs.list = state.jobs.into_iter().map(|(id, pids, command)| crate::jobs::Job { id, pids, command, status: None }).collect();
        self.history = state.history;
        self.function_attrs = state.function_attrs.into_iter().collect();
    }

    pub fn state_bytes(&mut self) -> Vec<u8> {
        to_bytes(&self.snapshot())
    }
}

/// Decodes saved state, refusing other versions.
pub fn decode_state(bytes: &[u8]) -> Result<State, DecodeError> {
    let state: State = from_bytes(bytes)?;
    if state.version != STATE_VERSION {
        return Err(DecodeError);
    }
    Ok(state)
}
