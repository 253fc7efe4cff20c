//! Starting another command and waiting for it (xargs, find -exec, env, timeout, nice):
//! through the kernel's `airlock` spawn in the sandbox, through std::process natively.

use std::ffi::OsString;
use std::io;

/// How a child ended: its exit status, or 128+N when killed by signal N (as the shell shows).
pub type Status = i32;

/// Runs `argv` (argv[0] searched on PATH) with inherited stdin/stdout/stderr and the
/// process's environment, waits, and returns its status. ENOENT/EACCES come back as Err so
/// callers can print GNU's message and use 127/126.
pub fn run_and_wait(argv: &[OsString]) -> io::Result<Status> {
    imp::run_and_wait(argv, None)
}

/// The same with an explicit environment (`KEY=VALUE` strings).
pub fn run_and_wait_env(argv: &[OsString], env: &[OsString]) -> io::Result<Status> {
    imp::run_and_wait(argv, Some(env))
}

/// Starts `argv` in its own process group and returns a handle to wait or kill it.
pub fn start(argv: &[OsString], env: Option<&[OsString]>) -> io::Result<Child> {
    imp::start(argv, env)
}

pub use imp::Child;

#[cfg(target_os = "wasi")]
mod imp {
    use super::Status;
    use crate::args::os_bytes;
    use std::ffi::OsString;
    use std::io;

    fn to_io(e: airlock_sys::Errno) -> io::Error {
        io::Error::from_raw_os_error(e.0 as i32)
    }

    fn request(argv: &[OsString], env: Option<&[OsString]>) -> airlock_sys::SpawnRequest {
        let mut req = airlock_sys::SpawnRequest::default();
        req.program = argv.first().map(|a| os_bytes(a).to_vec()).unwrap_or_default();
        req.argv = argv.iter().map(|a| os_bytes(a).to_vec()).collect();
        req.env = match env {
            Some(list) => list.iter().map(|e| os_bytes(e).to_vec()).collect(),
            None => std::env::vars_os()
                .map(|(k, v)| {
                    let mut e = os_bytes(&k).to_vec();
                    e.push(b'=');
                    e.extend_from_slice(os_bytes(&v));
                    e
                })
                .collect(),
        };
        req.fds = (0..3).map(|fd| airlock_sys::FdMapping { child_fd: fd, parent_fd: fd }).collect();
        req
    }

    pub fn run_and_wait(argv: &[OsString], env: Option<&[OsString]>) -> io::Result<Status> {
        let child = start(argv, env)?;
        child.wait()
    }

    pub struct Child {
        pub pid: u32,
    }

    impl Child {
        pub fn wait(&self) -> io::Result<Status> {
            match airlock_sys::wait(self.pid as i32, 0).map_err(to_io)? {
                Some(result) => Ok(result.status as Status),
                None => Err(io::Error::from_raw_os_error(airlock_sys::errno::os::CHILD)),
            }
        }

        /// Non-blocking wait: Some(status) when it has ended.
        pub fn try_wait(&self) -> io::Result<Option<Status>> {
            Ok(airlock_sys::wait(self.pid as i32, airlock_sys::WNOHANG).map_err(to_io)?.map(|r| r.status as Status))
        }

        /// Signals the child's process group.
        pub fn kill(&self, signal: u32) -> io::Result<()> {
            airlock_sys::kill(-(self.pid as i32), signal).map_err(to_io)
        }
    }

    pub fn start(argv: &[OsString], env: Option<&[OsString]>) -> io::Result<Child> {
        let mut req = request(argv, env);
        req.flags |= airlock_sys::FLAG_NEW_GROUP;
        Ok(Child { pid: airlock_sys::spawn(&req).map_err(to_io)? })
    }
}

#[cfg(not(target_os = "wasi"))]
mod imp {
    use super::Status;
    use crate::args::os_bytes;
    use std::ffi::OsString;
    use std::io;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::process::Command;

    fn command(argv: &[OsString], env: Option<&[OsString]>) -> io::Result<Command> {
        let program = argv.first().ok_or_else(|| io::Error::from_raw_os_error(airlock_sys::errno::os::NOENT))?;
        let mut cmd = Command::new(program);
        cmd.arg0(program).args(&argv[1..]);
        if let Some(list) = env {
            cmd.env_clear();
            for entry in list {
                let bytes = os_bytes(entry);
                if let Some(eq) = bytes.iter().position(|b| *b == b'=') {
                    cmd.env(crate::args::bytes_os(&bytes[..eq]), crate::args::bytes_os(&bytes[eq + 1..]));
                }
            }
        }
        Ok(cmd)
    }

    fn status_of(status: std::process::ExitStatus) -> Status {
        match status.code() {
            Some(code) => code,
            None => 128 + status.signal().unwrap_or(0),
        }
    }

    pub fn run_and_wait(argv: &[OsString], env: Option<&[OsString]>) -> io::Result<Status> {
        Ok(status_of(command(argv, env)?.status()?))
    }

    pub struct Child {
        child: std::cell::RefCell<std::process::Child>,
        pub pid: u32,
    }

    impl Child {
        pub fn wait(&self) -> io::Result<Status> {
            Ok(status_of(self.child.borrow_mut().wait()?))
        }
        pub fn try_wait(&self) -> io::Result<Option<Status>> {
            Ok(self.child.borrow_mut().try_wait()?.map(status_of))
        }
        pub fn kill(&self, signal: u32) -> io::Result<()> {
            // SAFETY: kill has no memory-safety preconditions.
            let rc = unsafe { libc::kill(-(self.pid as i32), signal as i32) };
            if rc == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        }
    }

    pub fn start(argv: &[OsString], env: Option<&[OsString]>) -> io::Result<Child> {
        let mut cmd = command(argv, env)?;
        // SAFETY: setpgid is async-signal-safe, as pre_exec requires.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setpgid(0, 0) == 0 {
                    Ok(())
                } else {
                    Err(io::Error::last_os_error())
                }
            });
        }
        let child = cmd.spawn()?;
        let pid = child.id();
        Ok(Child { child: std::cell::RefCell::new(child), pid })
    }
}
