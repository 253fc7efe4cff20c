//! Running another program and waiting for it, with the few settings that xargs and
//! find -exec/-execdir need beyond `process::run_and_wait`: standard input from
//! /dev/null (the child must not eat the caller's input), a working directory, and extra
//! environment variables. Through the kernel's airlock spawn in the sandbox, through
//! std::process natively. Callers flush their own buffered stdout first.

use std::ffi::OsString;
use std::io;
use std::path::PathBuf;

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// exit(N). In the sandbox a child killed by signal N also reports 128+N here.
    Code(i32),
    /// Killed by signal N (native builds only).
    Signal(i32),
}

/// A program to run: argv[0] is searched on PATH like execvp.
#[derive(Debug, Clone)]
pub struct Command {
    argv: Vec<OsString>,
    stdin_null: bool,
    cwd: Option<PathBuf>,
    env: Vec<(OsString, OsString)>,
}

impl Command {
    pub fn new(argv: Vec<OsString>) -> Command {
        Command { argv, stdin_null: false, cwd: None, env: Vec::new() }
    }

    /// Gives the child /dev/null as standard input.
    pub fn stdin_null(mut self, yes: bool) -> Command {
        self.stdin_null = yes;
        self
    }

    /// Runs the child in `dir`.
    pub fn cwd(mut self, dir: PathBuf) -> Command {
        self.cwd = Some(dir);
        self
    }

    /// Sets one environment variable for the child (on top of ours).
    pub fn env(mut self, key: OsString, value: OsString) -> Command {
        self.env.push((key, value));
        self
    }

    /// Starts the child and waits for it. ENOENT (not found) and EACCES (not executable)
    /// come back as errors so callers can print GNU's message and use 127/126.
    pub fn run(&self) -> io::Result<Exit> {
        imp::run(self)
    }
}

#[cfg(target_os = "wasi")]
mod imp {
    use super::{Command, Exit};
    use crate::args::os_bytes;
    use std::io;
    use std::os::wasi::io::AsRawFd;

    fn to_io(e: airlock_sys::Errno) -> io::Error {
        io::Error::from_raw_os_error(e.0 as i32)
    }

    pub fn run(cmd: &Command) -> io::Result<Exit> {
        let mut req = airlock_sys::SpawnRequest::default();
        req.program = cmd.argv.first().map(|a| os_bytes(a).to_vec()).unwrap_or_default();
        req.argv = cmd.argv.iter().map(|a| os_bytes(a).to_vec()).collect();
        let mut env: Vec<(Vec<u8>, Vec<u8>)> = std::env::vars_os().map(|(k, v)| (os_bytes(&k).to_vec(), os_bytes(&v).to_vec())).collect();
        for (k, v) in &cmd.env {
            let k = os_bytes(k).to_vec();
            env.retain(|(old, _)| *old != k);
            env.push((k, os_bytes(v).to_vec()));
        }
        req.env = env
            .into_iter()
            .map(|(mut k, v)| {
                k.push(b'=');
                k.extend_from_slice(&v);
                k
            })
            .collect();
        if let Some(dir) = &cmd.cwd {
            let absolute = if dir.is_absolute() { dir.clone() } else { std::env::current_dir()?.join(dir) };
            req.cwd = os_bytes(absolute.as_os_str()).to_vec();
        }
        // /dev/null stays open until the child has been started.
        let null = if cmd.stdin_null { Some(std::fs::File::open("/dev/null")?) } else { None };
        req.fds = (0..3u32)
            .map(|fd| airlock_sys::FdMapping { child_fd: fd, parent_fd: if fd == 0 { null.as_ref().map_or(0, |f| f.as_raw_fd() as u32) } else { fd } })
            .collect();
        let pid = airlock_sys::spawn(&req).map_err(to_io)?;
        drop(null);
        match airlock_sys::wait(pid as i32, 0).map_err(to_io)? {
            Some(result) => Ok(Exit::Code(result.status as i32)),
            None => Err(io::Error::from_raw_os_error(airlock_sys::errno::os::CHILD)),
        }
    }
}

#[cfg(not(target_os = "wasi"))]
mod imp {
    use super::{Command, Exit};
    use std::io;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::process::Stdio;

    pub fn run(cmd: &Command) -> io::Result<Exit> {
        let program = cmd.argv.first().ok_or_else(|| io::Error::from_raw_os_error(airlock_sys::errno::os::NOENT))?;
        let mut c = std::process::Command::new(program);
        c.arg0(program).args(&cmd.argv[1..]);
        if cmd.stdin_null {
            c.stdin(Stdio::null());
        }
        if let Some(dir) = &cmd.cwd {
            c.current_dir(dir);
        }
        for (k, v) in &cmd.env {
            c.env(k, v);
        }
        let status = c.status()?;
        Ok(match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(sig)) => Exit::Signal(sig),
            _ => Exit::Code(1),
        })
    }
}
