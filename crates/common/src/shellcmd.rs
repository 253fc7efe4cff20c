//! Running a shell command line (`sh -c TEXT`) with a pipe to its standard input or from
//! its standard output, as awk's `print | "cmd"` and `"cmd" | getline`, or with the
//! caller's streams (awk's `system()`). In the sandbox this goes through the kernel's
//! airlock pipe and spawn; natively through std::process.
//!
//! Callers should flush their own buffered stdout before starting a child that shares it.

use std::io::{self, Read, Write};

/// Which end of the child we talk to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// We read the child's standard output.
    FromChild,
    /// We write to the child's standard input.
    ToChild,
}

/// A running `sh -c` child with one pipe to it.
pub struct ShellChild {
    inner: imp::Child,
}

/// Starts `sh -c command`. `env`: `KEY=VALUE` entries to use instead of the inherited
/// environment.
pub fn spawn(command: &[u8], direction: Direction, env: Option<&[Vec<u8>]>) -> io::Result<ShellChild> {
    Ok(ShellChild { inner: imp::spawn(command, Some(direction), env)? })
}

/// Runs `sh -c command` with the caller's stdin/stdout/stderr and waits. Returns the exit
/// status as the shell shows it (128+N when killed by signal N).
pub fn run(command: &[u8], env: Option<&[Vec<u8>]>) -> io::Result<i32> {
    let child = imp::spawn(command, None, env)?;
    child.wait()
}

impl ShellChild {
    /// Closes our end of the pipe, waits for the child and returns its status.
    pub fn close(self) -> io::Result<i32> {
        self.inner.wait()
    }
}

impl Read for ShellChild {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf)
    }
}

impl Write for ShellChild {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(target_os = "wasi")]
mod imp {
    use super::Direction;
    use std::fs::File;
    use std::io::{self, Read, Write};
    use std::os::wasi::io::FromRawFd;

    fn to_io(e: airlock_sys::Errno) -> io::Error {
        io::Error::from_raw_os_error(e.0 as i32)
    }

    pub struct Child {
        pid: u32,
        pipe: Option<File>,
    }

    pub fn spawn(command: &[u8], direction: Option<Direction>, env: Option<&[Vec<u8>]>) -> io::Result<Child> {
        let mut req = airlock_sys::SpawnRequest::default();
        req.program = b"sh".to_vec();
        req.argv = vec![b"sh".to_vec(), b"-c".to_vec(), command.to_vec()];
        req.env = match env {
            Some(list) => list.to_vec(),
            None => std::env::vars_os()
                .map(|(k, v)| {
                    let mut e = crate::args::os_bytes(&k).to_vec();
                    e.push(b'=');
                    e.extend_from_slice(crate::args::os_bytes(&v));
                    e
                })
                .collect(),
        };
        let mut fds: Vec<(u32, u32)> = vec![(0, 0), (1, 1), (2, 2)];
        let mut ours = None;
        let mut theirs = None;
        if let Some(direction) = direction {
            let (read_end, write_end) = airlock_sys::pipe().map_err(to_io)?;
            let (child_fd, their_end, our_end) = match direction {
                Direction::FromChild => (1, write_end, read_end),
                Direction::ToChild => (0, read_end, write_end),
            };
            fds[child_fd as usize] = (child_fd, their_end);
            // SAFETY: both descriptors were just created by the kernel and are owned here.
            ours = Some(unsafe { File::from_raw_fd(our_end as i32) });
            theirs = Some(unsafe { File::from_raw_fd(their_end as i32) });
        }
        req.fds = fds.into_iter().map(|(child_fd, parent_fd)| airlock_sys::FdMapping { child_fd, parent_fd }).collect();
        let pid = airlock_sys::spawn(&req).map_err(to_io);
        // The child has its own reference to its end now; ours must close so EOF arrives.
        drop(theirs);
        Ok(Child { pid: pid?, pipe: ours })
    }

    impl Child {
        pub fn wait(mut self) -> io::Result<i32> {
            drop(self.pipe.take());
            match airlock_sys::wait(self.pid as i32, 0).map_err(to_io)? {
                Some(result) => Ok(result.status as i32),
                None => Err(io::Error::from_raw_os_error(airlock_sys::errno::os::CHILD)),
            }
        }

        pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match &mut self.pipe {
                Some(f) => f.read(buf),
                None => Ok(0),
            }
        }

        pub fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            match &mut self.pipe {
                Some(f) => f.write(buf),
                None => Err(io::Error::from_raw_os_error(airlock_sys::errno::os::BADF)),
            }
        }

        pub fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
}

#[cfg(not(target_os = "wasi"))]
mod imp {
    use super::Direction;
    use crate::args::bytes_os;
    use std::io::{self, Read, Write};
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};

    pub struct Child {
        child: std::process::Child,
    }

    pub fn spawn(command: &[u8], direction: Option<Direction>, env: Option<&[Vec<u8>]>) -> io::Result<Child> {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(bytes_os(command));
        if let Some(list) = env {
            cmd.env_clear();
            for entry in list {
                if let Some(eq) = entry.iter().position(|b| *b == b'=') {
                    cmd.env(bytes_os(&entry[..eq]), bytes_os(&entry[eq + 1..]));
                }
            }
        }
        match direction {
            Some(Direction::FromChild) => {
                cmd.stdout(Stdio::piped());
            }
            Some(Direction::ToChild) => {
                cmd.stdin(Stdio::piped());
            }
            None => {}
        }
        Ok(Child { child: cmd.spawn()? })
    }

    impl Child {
        pub fn wait(mut self) -> io::Result<i32> {
            drop(self.child.stdin.take());
            drop(self.child.stdout.take());
            let status = self.child.wait()?;
            Ok(match status.code() {
                Some(code) => code,
                None => 128 + status.signal().unwrap_or(0),
            })
        }

        pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match &mut self.child.stdout {
                Some(out) => out.read(buf),
                None => Ok(0),
            }
        }

        pub fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            match &mut self.child.stdin {
                Some(input) => input.write(buf),
                None => Err(io::Error::from_raw_os_error(airlock_sys::errno::os::BADF)),
            }
        }

        pub fn flush(&mut self) -> io::Result<()> {
            match &mut self.child.stdin {
                Some(input) => input.flush(),
                None => Ok(()),
            }
        }
    }
}
