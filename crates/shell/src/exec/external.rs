//! Finding commands (functions, builtins, `PATH`) and running programs.

use std::rc::Rc;

use shell_parser::ast::FunctionDef;

use super::Flow;
use crate::builtins::{self, BuiltinFn};
use crate::sys::{Access, Errno, FileKind, Program, SpawnRequest};
use crate::io::{FdTable, Target, PIPE_CAPACITY};
use crate::shell::Shell;

pub enum CommandKind {
    Function(Rc<FunctionDef>),
    Builtin(BuiltinFn),
    External(String),
    NotFound,
}

impl Shell {
    /// What `name` runs: a function (unless `functions` is false, as for `command`), a
    /// builtin, or a program found on `PATH`.
    #[inline(never)]
    pub fn resolve_command(&mut self, name: &str, functions: bool) -> CommandKind {
        self.resolve_command_with(name, functions, true)
    }

    /// `resolve_command`, with `use_hash` false for a command with its own temporary
    /// `PATH`, which bash searches without the hash table.
    pub fn resolve_command_with(&mut self, name: &str, functions: bool, use_hash: bool) -> CommandKind {
        if functions {
            if let Some(def) = self.functions.get(name) {
                return CommandKind::Function(def.clone());
            }
        }
        if let Some(builtin) = builtins::lookup(name) {
            return CommandKind::Builtin(builtin);
        }
        if name.contains('/') {
            return CommandKind::External(name.to_string());
        }
        match self.search_program(name, use_hash) {
            Some(path) => CommandKind::External(path),
            None => CommandKind::NotFound,
        }
    }

    /// The hashed path of `name`, if it is still there (a hashed program that has gone is
    /// forgotten, and searched again).
    pub fn hashed_program(&mut self, name: &str) -> Option<String> {
        let path = self.hash.lookup(name)?;
        if self.sys.stat(&path, true).map_or(false, |s| s.kind != FileKind::Dir) {
            return Some(path);
        }
        self.hash.remove(name);
        None
    }

    /// Searches `PATH` (remembering hits, as `hash` shows). A file that exists but is not
    /// executable is returned when nothing better is found, so running it reports
    /// "Permission denied" like bash.
    pub fn find_program(&mut self, name: &str) -> Option<String> {
        self.search_program(name, true)
    }

    /// `find_program`; with `use_hash` false the hash table is neither read nor filled.
    pub fn search_program(&mut self, name: &str, use_hash: bool) -> Option<String> {
        if use_hash {
            if let Some(path) = self.hashed_program(name) {
                return Some(path);
            }
        }
        let search = self.get_scalar("PATH").unwrap_or_default();
        let mut fallback = None;
        for dir in search.split(':') {
            let dir = if dir.is_empty() { "." } else { dir };
            let candidate = if dir.ends_with('/') { format!("{}{}", dir, name) } else { format!("{}/{}", dir, name) };
            match self.sys.stat(&candidate, true) {
                Ok(stat) if stat.kind != FileKind::Dir => {
                    if self.sys.access(&candidate, Access::Execute) {
                        if use_hash && self.options.get(crate::options::Opt::Hashall) {
                            // Found by running it: bash counts that as the first hit.
                            self.hash.insert(name, &candidate, 1);
                        }
                        return Some(candidate);
                    }
                    if fallback.is_none() {
                        fallback = Some(candidate);
                    }
                }
                _ => {}
            }
        }
        fallback
    }

    /// Runs a program and waits for it.
    #[inline(never)]
    pub(crate) fn run_external(&mut self, path: &str, argv: &[String]) -> Flow {
        match self.spawn_program(path, argv, false) {
            Ok(pid) => {
                self.status = self.wait_pid(pid);
                self.check_poll()
            }
            Err(status) => {
                self.status = status;
                Flow::Normal
            }
        }
    }

    /// Starts a program with the current descriptors and exported variables. On failure,
    /// reports it like bash and returns the status (126/127).
    pub(crate) fn spawn_program(&mut self, path: &str, argv: &[String], background: bool) -> Result<u32, i32> {
        let fds = match self.child_fds() {
            Ok(fds) => fds,
            Err(error) => {
                self.report(&format!("{}: {}", argv[0], error));
                return Err(1);
            }
        };
        let request = SpawnRequest {
            program: Program::Path(path.to_string()),
            argv: argv.iter().map(|a| crate::text::to_bytes(a).into_owned()).collect(),
            env: self.child_environment(),
            fds,
            blob: Vec::new(),
            new_group: background,
        };
        match self.sys.spawn(&request) {
            Ok(pid) => Ok(pid),
            Err(Errno::NOEXEC) => self.spawn_script(path, argv, background),
            Err(error) => {
                let is_dir = self.sys.stat(path, true).map_or(false, |s| s.kind == FileKind::Dir);
                let (message, status) = match error {
                    Errno::NOENT if !path.contains('/') => ("command not found".to_string(), 127),
                    Errno::NOENT => (Errno::NOENT.message().to_string(), 127),
                    _ if is_dir => ("Is a directory".to_string(), 126),
                    other => (other.message().to_string(), 126),
                };
                self.report(&format!("{}: {}", argv[0], message));
                Err(status)
            }
        }
    }

    /// A file that is not a program is run as a shell script by a new shell, as bash does
    /// (not a subshell: only the environment carries over).
    fn spawn_script(&mut self, path: &str, argv: &[String], background: bool) -> Result<u32, i32> {
        let task = crate::exec::child::Task::Script { path: path.to_string(), args: argv[1..].to_vec() };
        match self.spawn_child(&task, background) {
            Ok(pid) => Ok(pid),
            Err(error) => {
                self.report(&format!("{}: {}", argv[0], error));
                Err(126)
            }
        }
    }

    /// `KEY=VALUE` for every exported variable.
    pub(crate) fn child_environment(&self) -> Vec<Vec<u8>> {
        let mut environment = self.vars.environment();
        environment.extend(self.function_environment());
        environment.into_iter().map(|e| crate::text::to_bytes(&e).into_owned()).collect()
    }

    /// The descriptor mapping for a child: every open virtual descriptor, with in-memory
    /// ones (here-documents) turned into real ones first.
    pub(crate) fn child_fds(&mut self) -> Result<Vec<(u32, u32)>, Errno> {
        let mut fds = Vec::new();
        for fd in self.fds.open_fds() {
            let target = match self.fds.get(fd) {
                Some(target) => target.clone(),
                None => continue,
            };
            let real = match target {
                Target::Real(real) => real,
                Target::Memory(memory) => {
                    let real = self.materialize(&memory.borrow().data[memory.borrow().pos..].to_vec())?;
                    self.fds.replace_memory(&memory, real);
                    real
                }
            };
            fds.push((fd, real));
        }
        Ok(fds)
    }

    /// A readable real descriptor with `data` in it: a pipe, or a temporary file when the
    /// data would not fit in a pipe's buffer.
    pub(crate) fn materialize(&mut self, data: &[u8]) -> Result<u32, Errno> {
        if data.len() <= PIPE_CAPACITY {
            let (read, write) = self.sys.pipe()?;
            let result = crate::io::write_target(self.sys.as_mut(), &FdTable::adopt(write), data);
            self.sys.close(write);
            result?;
            return Ok(read);
        }
        let tmp = self.get_scalar("TMPDIR").filter(|t| !t.is_empty()).unwrap_or_else(|| "/tmp".to_string());
        let path = format!("{}/.sh-heredoc-{}-{}", tmp, self.sys.getpid(), self.next_temp());
        let flags = crate::sys::OpenFlags { write: true, create: true, truncate: true, exclusive: true, ..Default::default() };
        let fd = self.sys.open(&path, flags, 0o600)?;
        let result = crate::io::write_target(self.sys.as_mut(), &FdTable::adopt(fd), data);
        self.sys.close(fd);
        result?;
        let read = self.sys.open(&path, crate::sys::OpenFlags::read_only(), 0);
        let _ = self.sys.unlink(&path);
        read
    }

    /// Waits for one child; its status as the shell reports it (128+N for signal N).
    pub(crate) fn wait_pid(&mut self, pid: u32) -> i32 {
        loop {
            match self.sys.wait(pid as i32, false) {
                Ok(Some(exited)) => return exited.status,
                Ok(None) => continue,
                Err(Errno::INTR) => continue,
                Err(_) => return 127,
            }
        }
    }
}
