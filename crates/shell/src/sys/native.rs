//! The OS interface on Linux (development and the native compatibility runs): real files and
//! processes through libc. Spawning follows the sandbox's contract: the child gets exactly
//! the descriptors listed, and a child shell (this same binary) gets its blob through an
//! extra descriptor named in its arguments.

use std::ffi::CString;
use std::time::Instant;

use super::{Access, Errno, Exited, Fd, FileKind, FileStat, Sys, OpenFlags, Poll, Program, SpawnRequest};

pub struct NativeSys {
    blob_fd: Option<i32>,
    self_exe: String,
    started: Instant,
}

/// Names the descriptor a child shell reads its blob from.
const BLOB_FD_FLAG: &str = "--airlock-blob-fd=";

impl NativeSys {
    pub fn new(args: &[String]) -> NativeSys {
        // The shell handles EPIPE itself (a builtin's write then ends the shell with 141, as
        // SIGPIPE would), so it can write into pipelines without risking its own life.
        // SAFETY: setting a signal disposition has no preconditions.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
        let blob_fd = args.iter().find_map(|a| a.strip_prefix(BLOB_FD_FLAG)).and_then(|n| n.parse().ok());
        let self_exe = std::env::current_exe().map(|p| p.to_string_lossy().into_owned()).unwrap_or_else(|_| "/proc/self/exe".to_string());
        NativeSys { blob_fd, self_exe, started: Instant::now() }
    }
}

fn errno() -> Errno {
    from_os(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
}

/// Linux errno to the WASI numbering the shell uses (an errno the table lacks is EIO).
fn from_os(code: i32) -> Errno {
    Errno(airlock_sys::errno::wasi_from_linux(code).unwrap_or(airlock_sys::errno::IO))
}

fn cstring(text: &str) -> Result<CString, Errno> {
    CString::new(text.as_bytes()).map_err(|_| Errno::INVAL)
}

fn cbytes(bytes: &[u8]) -> CString {
    CString::new(bytes.iter().copied().filter(|&b| b != 0).collect::<Vec<u8>>()).unwrap_or_default()
}

fn stat_from(st: &libc::stat) -> FileStat {
    let kind = match st.st_mode & libc::S_IFMT {
        libc::S_IFREG => FileKind::File,
        libc::S_IFDIR => FileKind::Dir,
        libc::S_IFLNK => FileKind::Symlink,
        libc::S_IFCHR => FileKind::CharDevice,
        libc::S_IFBLK => FileKind::BlockDevice,
        libc::S_IFIFO => FileKind::Fifo,
        libc::S_IFSOCK => FileKind::Socket,
        _ => FileKind::Unknown,
    };
    FileStat {
        kind,
        perm: st.st_mode & 0o7777,
        size: st.st_size as u64,
        mtime_ns: st.st_mtime as i128 * 1_000_000_000 + st.st_mtime_nsec as i128,
        uid: st.st_uid,
        gid: st.st_gid,
        dev: st.st_dev as u64,
        ino: st.st_ino as u64,
    }
}

impl Sys for NativeSys {
    fn read(&mut self, fd: Fd, buf: &mut [u8]) -> Result<usize, Errno> {
        // SAFETY: buf is valid for buf.len() bytes.
        let n = unsafe { libc::read(fd as i32, buf.as_mut_ptr() as *mut libc::c_void, buf.len()) };
        if n < 0 {
            Err(errno())
        } else {
            Ok(n as usize)
        }
    }

    fn write(&mut self, fd: Fd, data: &[u8]) -> Result<usize, Errno> {
        // SAFETY: data is valid for data.len() bytes.
        let n = unsafe { libc::write(fd as i32, data.as_ptr() as *const libc::c_void, data.len()) };
        if n < 0 {
            Err(errno())
        } else {
            Ok(n as usize)
        }
    }

    fn seek_relative(&mut self, fd: Fd, delta: i64) -> Result<u64, Errno> {
        // SAFETY: lseek has no memory preconditions.
        let n = unsafe { libc::lseek(fd as i32, delta, libc::SEEK_CUR) };
        if n < 0 {
            Err(errno())
        } else {
            Ok(n as u64)
        }
    }

    fn open(&mut self, path: &str, flags: OpenFlags, mode: u32) -> Result<Fd, Errno> {
        let path = cstring(path)?;
        let mut oflags = match (flags.read, flags.write) {
            (true, true) => libc::O_RDWR,
            (false, true) => libc::O_WRONLY,
            _ => libc::O_RDONLY,
        };
        if flags.create {
            oflags |= libc::O_CREAT;
        }
        if flags.truncate {
            oflags |= libc::O_TRUNC;
        }
        if flags.append {
            oflags |= libc::O_APPEND;
        }
        if flags.exclusive {
            oflags |= libc::O_EXCL;
        }
        oflags |= libc::O_CLOEXEC;
        // SAFETY: path is a valid C string.
        let fd = unsafe { libc::open(path.as_ptr(), oflags, mode as libc::c_uint) };
        if fd < 0 {
            Err(errno())
        } else {
            Ok(fd as Fd)
        }
    }

    fn close(&mut self, fd: Fd) {
        // SAFETY: closing a descriptor number has no memory preconditions.
        unsafe {
            libc::close(fd as i32);
        }
    }

    fn pipe(&mut self) -> Result<(Fd, Fd), Errno> {
        let mut fds = [0i32; 2];
        // SAFETY: fds has room for the two descriptors.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
            return Err(errno());
        }
        Ok((fds[0] as Fd, fds[1] as Fd))
    }

    fn fstat(&mut self, fd: Fd) -> Result<FileStat, Errno> {
        // SAFETY: st is written by fstat before being read.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd as i32, &mut st) } < 0 {
            return Err(errno());
        }
        Ok(stat_from(&st))
    }

    fn stat(&mut self, path: &str, follow: bool) -> Result<FileStat, Errno> {
        let path = cstring(path)?;
        // SAFETY: st is written by stat before being read; path is a valid C string.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        let result = unsafe { if follow { libc::stat(path.as_ptr(), &mut st) } else { libc::lstat(path.as_ptr(), &mut st) } };
        if result < 0 {
            return Err(errno());
        }
        Ok(stat_from(&st))
    }

    fn access(&mut self, path: &str, access: Access) -> bool {
        let path = match cstring(path) {
            Ok(path) => path,
            Err(_) => return false,
        };
        let mode = match access {
            Access::Read => libc::R_OK,
            Access::Write => libc::W_OK,
            Access::Execute => libc::X_OK,
        };
        // SAFETY: path is a valid C string.
        unsafe { libc::access(path.as_ptr(), mode) == 0 }
    }

    fn read_dir(&mut self, path: &str) -> Result<Vec<String>, Errno> {
        let entries = std::fs::read_dir(path).map_err(|e| from_os(e.raw_os_error().unwrap_or(0)))?;
        Ok(entries.filter_map(|e| e.ok()).map(|e| crate::text::from_bytes(std::os::unix::ffi::OsStrExt::as_bytes(e.file_name().as_os_str()))).collect())
    }

    fn read_link(&mut self, path: &str) -> Result<String, Errno> {
        std::fs::read_link(path).map(|p| p.to_string_lossy().into_owned()).map_err(|e| from_os(e.raw_os_error().unwrap_or(0)))
    }

    fn unlink(&mut self, path: &str) -> Result<(), Errno> {
        std::fs::remove_file(path).map_err(|e| from_os(e.raw_os_error().unwrap_or(0)))
    }

    fn chdir(&mut self, path: &str) -> Result<(), Errno> {
        std::env::set_current_dir(path).map_err(|e| from_os(e.raw_os_error().unwrap_or(0)))
    }

    fn getcwd(&mut self) -> Result<String, Errno> {
        std::env::current_dir().map(|p| p.to_string_lossy().into_owned()).map_err(|e| from_os(e.raw_os_error().unwrap_or(0)))
    }

    fn umask(&mut self, mask: Option<u32>) -> u32 {
        // SAFETY: umask has no preconditions; reading it means setting and restoring.
        unsafe {
            match mask {
                Some(mask) => libc::umask(mask as libc::mode_t) as u32,
                None => {
                    let old = libc::umask(0o022);
                    libc::umask(old);
                    old as u32
                }
            }
        }
    }

    fn is_tty(&mut self, fd: Fd) -> bool {
        // SAFETY: isatty has no memory preconditions.
        unsafe { libc::isatty(fd as i32) == 1 }
    }

    fn spawn(&mut self, request: &SpawnRequest) -> Result<u32, Errno> {
        spawn(self, request)
    }

    fn wait(&mut self, pid: i32, nohang: bool) -> Result<Option<Exited>, Errno> {
        let mut status = 0;
        let flags = if nohang { libc::WNOHANG } else { 0 };
        loop {
            // SAFETY: status is a valid out-pointer.
            let got = unsafe { libc::waitpid(pid, &mut status, flags) };
            if got < 0 {
                let error = errno();
                if error == Errno::INTR {
                    continue;
                }
                return Err(error);
            }
            if got == 0 {
                return Ok(None);
            }
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else if libc::WIFSIGNALED(status) {
                128 + libc::WTERMSIG(status)
            } else {
                continue;
            };
            return Ok(Some(Exited { pid: got as u32, status: code }));
        }
    }

    fn kill(&mut self, pid: i32, signal: u32) -> Result<(), Errno> {
        // SAFETY: kill has no memory preconditions.
        if unsafe { libc::kill(pid, signal as i32) } < 0 {
            return Err(errno());
        }
        Ok(())
    }

    fn getpid(&mut self) -> u32 {
        std::process::id()
    }

    fn getppid(&mut self) -> u32 {
        // SAFETY: getppid cannot fail.
        unsafe { libc::getppid() as u32 }
    }

    fn now_ns(&mut self) -> i128 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as i128).unwrap_or(0)
    }

    fn monotonic_ns(&mut self) -> u64 {
        self.started.elapsed().as_nanos() as u64
    }

    fn random_u32(&mut self) -> u32 {
        let mut value = 0u32;
        // SAFETY: value is 4 writable bytes.
        unsafe {
            libc::getrandom(&mut value as *mut u32 as *mut libc::c_void, 4, 0);
        }
        value
    }

    fn wait_readable(&mut self, fd: Fd, timeout_ms: u64) -> Result<bool, Errno> {
        let mut poll = libc::pollfd { fd: fd as i32, events: libc::POLLIN, revents: 0 };
        // SAFETY: poll reads one pollfd.
        let n = unsafe { libc::poll(&mut poll, 1, timeout_ms.min(i32::MAX as u64) as i32) };
        if n < 0 {
            return Err(errno());
        }
        Ok(n > 0)
    }

    fn blob(&mut self) -> Vec<u8> {
        let fd = match self.blob_fd.take() {
            Some(fd) => fd as Fd,
            None => return Vec::new(),
        };
        let mut data = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n) = self.read(fd, &mut buf) {
            if n == 0 {
                break;
            }
            data.extend_from_slice(&buf[..n]);
        }
        self.close(fd);
        data
    }

    fn poll(&mut self) -> Poll {
        Poll::Continue
    }

    fn environment(&mut self) -> Vec<String> {
        std::env::vars_os()
            .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
            .collect()
    }

    fn session_next(&mut self) -> Option<Vec<u8>> {
        None
    }

    fn session_done(&mut self, _status: i32, _state: &[u8]) {}
}

/// fork + exec with exactly the requested descriptors; exec errors come back through a
/// close-on-exec pipe.
fn spawn(sys: &mut NativeSys, request: &SpawnRequest) -> Result<u32, Errno> {
    let mut fds = request.fds.clone();
    let mut argv: Vec<CString> = request.argv.iter().map(|a| cbytes(a)).collect();
    let mut memfd = None;
    let path = match &request.program {
        Program::SelfShell => {
            let name = cstring("shell-blob")?;
            // SAFETY: name is a valid C string.
            let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
            if fd < 0 {
                return Err(errno());
            }
            let mut rest: &[u8] = &request.blob;
            while !rest.is_empty() {
                let n = sys.write(fd as Fd, rest)?;
                rest = &rest[n..];
            }
            sys.seek_relative(fd as Fd, -(request.blob.len() as i64))?;
            let child_fd = fds.iter().map(|(c, _)| *c).max().unwrap_or(2).max(2) + 1;
            fds.push((child_fd, fd as Fd));
            argv.push(cstring(&format!("{}{}", BLOB_FD_FLAG, child_fd))?);
            memfd = Some(fd);
            sys.self_exe.clone()
        }
        Program::Path(path) => resolve_path(path, &request.env),
    };
    let path = cstring(&path)?;
    let env: Vec<CString> = request.env.iter().map(|e| cbytes(e)).collect();
    let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    let mut env_ptrs: Vec<*const libc::c_char> = env.iter().map(|e| e.as_ptr()).collect();
    env_ptrs.push(std::ptr::null());
    let mut report = [0i32; 2];
    // SAFETY: report has room for two descriptors.
    if unsafe { libc::pipe2(report.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(errno());
    }
    // SAFETY: the shell is single-threaded, so the child may run ordinary code until exec.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        let error = errno();
        sys.close(report[0] as Fd);
        sys.close(report[1] as Fd);
        return Err(error);
    }
    if pid == 0 {
        // SAFETY: in the child; every pointer stays valid until execve or _exit.
        unsafe {
            if request.new_group {
                libc::setpgid(0, 0);
            }
            // Programs get the default SIGPIPE (an ignored signal would be inherited).
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            let report_fd = libc::fcntl(report[1], libc::F_DUPFD_CLOEXEC, 4000);
            // First copy every source out of the way, then place them: a mapping may
            // overwrite another's source.
            let mut staged = Vec::with_capacity(fds.len());
            for (i, (child, parent)) in fds.iter().enumerate() {
                let temp = libc::fcntl(*parent as i32, libc::F_DUPFD, 3000 + i as i32);
                staged.push((*child as i32, temp));
            }
            for fd in 0..3000 {
                if !staged.iter().any(|(c, _)| *c == fd) {
                    libc::close(fd);
                }
            }
            for (child, temp) in &staged {
                if *temp >= 0 {
                    libc::dup2(*temp, *child);
                } else {
                    libc::close(*child);
                }
            }
            for (_, temp) in &staged {
                if *temp >= 0 {
                    libc::close(*temp);
                }
            }
            libc::execve(path.as_ptr(), argv_ptrs.as_ptr(), env_ptrs.as_ptr());
            let code = *libc::__errno_location();
            libc::write(report_fd, &code as *const i32 as *const libc::c_void, 4);
            libc::_exit(127);
        }
    }
    sys.close(report[1] as Fd);
    if let Some(fd) = memfd {
        sys.close(fd as Fd);
    }
    let mut code = 0i32;
    // SAFETY: code is 4 writable bytes.
    let n = unsafe { libc::read(report[0], &mut code as *mut i32 as *mut libc::c_void, 4) };
    sys.close(report[0] as Fd);
    if n == 4 {
        let mut status = 0;
        // SAFETY: reaping the failed child.
        unsafe {
            libc::waitpid(pid, &mut status, 0);
        }
        return Err(from_os(code));
    }
    Ok(pid as u32)
}

/// A program name without a slash, searched on the child's PATH (like execvp).
fn resolve_path(program: &str, env: &[Vec<u8>]) -> String {
    if program.contains('/') {
        return program.to_string();
    }
    let path = env
        .iter()
        .find_map(|e| e.strip_prefix(b"PATH=").map(|p| String::from_utf8_lossy(p).into_owned()))
        .unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".to_string());
    for dir in path.split(':') {
        let dir = if dir.is_empty() { "." } else { dir };
        let candidate = format!("{}/{}", dir, program);
        if std::path::Path::new(&candidate).is_file() {
            return candidate;
        }
    }
    program.to_string()
}
