//! The OS interface inside the sandbox: WASI preview1 through Rust's std for files, and the
//! `airlock` imports (crates/airlock-sys) for processes, pipes, modes, the working
//! directory and the session protocol.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::mem::ManuallyDrop;
use std::os::wasi::io::{FromRawFd, IntoRawFd, RawFd};
use std::time::Instant;

use airlock_sys::{FdMapping, FLAG_IGNORE_SIGPIPE, FLAG_NEW_GROUP};

use super::{Access, Errno, Exited, Fd, FileKind, FileStat, Sys, OpenFlags, Poll, Program, SpawnRequest};

/// The uid every sandbox process runs as (the kernel's `callerOf`).
const SANDBOX_UID: u32 = 1000;

/// Where child shells are started from (a fixed path, so a script's PATH cannot break
/// subshells).
const SELF_PATH: &str = "/usr/bin/bash";

pub struct WasiSys {
    started: Instant,
    session: bool,
}

impl WasiSys {
    pub fn new(session: bool) -> WasiSys {
        WasiSys { started: Instant::now(), session }
    }
}

fn io_errno(error: std::io::Error) -> Errno {
    match error.raw_os_error() {
        Some(code) => Errno(code as u16),
        None => match error.kind() {
            std::io::ErrorKind::NotFound => Errno::NOENT,
            std::io::ErrorKind::PermissionDenied => Errno::ACCES,
            std::io::ErrorKind::AlreadyExists => Errno::EXIST,
            std::io::ErrorKind::BrokenPipe => Errno::PIPE,
            std::io::ErrorKind::Interrupted => Errno::INTR,
            _ => Errno::IO,
        },
    }
}

fn sys(error: airlock_sys::Errno) -> Errno {
    error
}

/// Borrows a raw descriptor as a File without taking ownership.
fn borrowed(fd: Fd) -> ManuallyDrop<File> {
    // SAFETY: the File is never dropped (ManuallyDrop), so the descriptor stays the
    // caller's; the shell's fd table owns it.
    ManuallyDrop::new(unsafe { File::from_raw_fd(fd as RawFd) })
}

fn kind_from_mode(mode: u32) -> FileKind {
    match mode & 0o170000 {
        0o100000 => FileKind::File,
        0o040000 => FileKind::Dir,
        0o120000 => FileKind::Symlink,
        0o020000 => FileKind::CharDevice,
        0o060000 => FileKind::BlockDevice,
        0o010000 => FileKind::Fifo,
        0o140000 => FileKind::Socket,
        _ => FileKind::Unknown,
    }
}

/// WASI's filestat (size, times, inode), which std only exposes through an unstable
/// extension trait.
#[repr(C)]
#[derive(Default)]
struct Filestat {
    dev: u64,
    ino: u64,
    filetype: u8,
    nlink: u64,
    size: u64,
    atim: u64,
    mtim: u64,
    ctim: u64,
}

fn stat_from(raw: &Filestat, ext: Option<airlock_sys::fs::StatExt>) -> FileStat {
    let kind = match ext {
        Some(ext) if ext.mode & 0o170000 != 0 => kind_from_mode(ext.mode),
        _ => match raw.filetype {
            1 => FileKind::BlockDevice,
            2 => FileKind::CharDevice,
            3 => FileKind::Dir,
            4 => FileKind::File,
            5 | 6 => FileKind::Socket,
            7 => FileKind::Symlink,
            _ => FileKind::Unknown,
        },
    };
    FileStat {
        kind,
        perm: ext.map_or(0o644, |e| e.mode & 0o7777),
        size: raw.size,
        mtime_ns: raw.mtim as i128,
        uid: ext.map_or(SANDBOX_UID, |e| e.uid),
        gid: ext.map_or(SANDBOX_UID, |e| e.gid),
        dev: raw.dev,
        ino: raw.ino,
    }
}

/// The root preopen `/` (found once, like wasi-libc does).
fn root_fd() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static ROOT: AtomicU32 = AtomicU32::new(u32::MAX);
    let known = ROOT.load(Ordering::Relaxed);
    if known != u32::MAX {
        return known;
    }
    let mut found = 3;
    for fd in 3..1024u32 {
        let mut prestat = [0u32; 2];
        // SAFETY: prestat is the 8 bytes of __wasi_prestat_t.
        if unsafe { fd_prestat_get(fd, prestat.as_mut_ptr()) } != 0 {
            break;
        }
        if prestat[0] & 0xff != 0 || prestat[1] != 1 {
            continue;
        }
        let mut name = [0u8; 1];
        // SAFETY: the buffer holds the one byte the kernel said the name has.
        if unsafe { fd_prestat_dir_name(fd, name.as_mut_ptr(), 1) } == 0 && name[0] == b'/' {
            found = fd;
            break;
        }
    }
    ROOT.store(found, Ordering::Relaxed);
    found
}

/// A path relative to the root preopen, as WASI path calls want it.
fn root_relative(path: &str) -> String {
    let absolute = if path.starts_with('/') {
        path.to_string()
    } else {
        let cwd = std::env::current_dir().map(|p| p.to_string_lossy().into_owned()).unwrap_or_else(|_| "/".to_string());
        format!("{}/{}", cwd.trim_end_matches('/'), path)
    };
    let relative = absolute.trim_start_matches('/');
    if relative.is_empty() {
        ".".to_string()
    } else {
        relative.to_string()
    }
}

fn path_stat(path: &str, follow: bool) -> Result<Filestat, Errno> {
    let relative = root_relative(path);
    let mut raw = Filestat::default();
    // SAFETY: raw is a valid filestat buffer; the path pointer and length match.
    let code = unsafe { path_filestat_get(root_fd(), follow as u32, relative.as_ptr(), relative.len(), &mut raw) };
    if code != 0 {
        return Err(Errno(code));
    }
    Ok(raw)
}

#[link(wasm_import_module = "wasi_snapshot_preview1")]
extern "C" {
    fn random_get(buf: *mut u8, len: usize) -> u16;
    fn fd_filestat_get(fd: u32, out: *mut Filestat) -> u16;
    fn path_filestat_get(fd: u32, flags: u32, path: *const u8, path_len: usize, out: *mut Filestat) -> u16;
    fn fd_prestat_get(fd: u32, out: *mut u32) -> u16;
    fn fd_prestat_dir_name(fd: u32, buf: *mut u8, len: u32) -> u16;
    fn fd_fdstat_get(fd: u32, out: *mut u8) -> u16;
}

/// The highest descriptor looked at for inherited ones: scripts use single digits, and
/// `{var}>` starts at 10.
const MAX_INHERITED_FD: u32 = 64;

impl Sys for WasiSys {
    fn inherited_fds(&mut self) -> Vec<Fd> {
        let root = root_fd();
        let mut fds = Vec::new();
        for fd in 3..=MAX_INHERITED_FD {
            let mut prestat = [0u32; 2];
            // SAFETY: prestat is the 8 bytes of __wasi_prestat_t. The kernel answers a
            // descriptor that is not a preopened directory with another tag, and a closed
            // one with EBADF.
            if fd == root || unsafe { fd_prestat_get(fd, prestat.as_mut_ptr()) } != 0 {
                continue;
            }
            if prestat[0] & 0xff != 0 {
                fds.push(fd);
            }
        }
        fds
    }

    fn read(&mut self, fd: Fd, buf: &mut [u8]) -> Result<usize, Errno> {
        borrowed(fd).read(buf).map_err(io_errno)
    }

    fn write(&mut self, fd: Fd, data: &[u8]) -> Result<usize, Errno> {
        borrowed(fd).write(data).map_err(io_errno)
    }

    fn seek_relative(&mut self, fd: Fd, delta: i64) -> Result<u64, Errno> {
        borrowed(fd).seek(SeekFrom::Current(delta)).map_err(io_errno)
    }

    fn open(&mut self, path: &str, flags: OpenFlags, _mode: u32) -> Result<Fd, Errno> {
        let mut options = std::fs::OpenOptions::new();
        options.read(flags.read || !flags.write);
        options.write(flags.write && !flags.append);
        options.append(flags.append);
        options.truncate(flags.truncate);
        if flags.exclusive {
            options.create_new(true);
        } else {
            options.create(flags.create);
        }
        let file = options.open(path).map_err(io_errno)?;
        Ok(file.into_raw_fd() as Fd)
    }

    fn close(&mut self, fd: Fd) {
        // SAFETY: the shell owns `fd` and closes it once.
        drop(unsafe { File::from_raw_fd(fd as RawFd) });
    }

    fn pipe(&mut self) -> Result<(Fd, Fd), Errno> {
        airlock_sys::pipe().map_err(sys)
    }

    fn fstat(&mut self, fd: Fd) -> Result<FileStat, Errno> {
        let mut raw = Filestat::default();
        // SAFETY: raw is a valid filestat buffer.
        let code = unsafe { fd_filestat_get(fd, &mut raw) };
        if code != 0 {
            return Err(Errno(code));
        }
        Ok(stat_from(&raw, airlock_sys::fs::fd_stat_ext(fd).ok()))
    }

    fn stat(&mut self, path: &str, follow: bool) -> Result<FileStat, Errno> {
        let raw = path_stat(path, follow)?;
        Ok(stat_from(&raw, airlock_sys::fs::stat_ext(path, follow).ok()))
    }

    fn access(&mut self, path: &str, access: Access) -> bool {
        let stat = match self.stat(path, true) {
            Ok(stat) => stat,
            Err(_) => return false,
        };
        let bit = match access {
            Access::Read => 4,
            Access::Write => 2,
            Access::Execute => 1,
        };
        let shift = if stat.uid == SANDBOX_UID {
            6
        } else if stat.gid == SANDBOX_UID {
            3
        } else {
            0
        };
        (stat.perm >> shift) & bit != 0
    }

    fn read_dir(&mut self, path: &str) -> Result<Vec<String>, Errno> {
        let entries = std::fs::read_dir(path).map_err(io_errno)?;
        Ok(entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
    }

    fn read_link(&mut self, path: &str) -> Result<String, Errno> {
        std::fs::read_link(path).map(|p| p.to_string_lossy().into_owned()).map_err(io_errno)
    }

    fn unlink(&mut self, path: &str) -> Result<(), Errno> {
        std::fs::remove_file(path).map_err(io_errno)
    }

    fn chdir(&mut self, path: &str) -> Result<(), Errno> {
        airlock_sys::change_dir(path).map_err(io_errno)
    }

    fn getcwd(&mut self) -> Result<String, Errno> {
        std::env::current_dir().map(|p| p.to_string_lossy().into_owned()).map_err(io_errno)
    }

    fn umask(&mut self, mask: Option<u32>) -> u32 {
        airlock_sys::umask(mask).unwrap_or(0o022)
    }

    fn is_tty(&mut self, fd: Fd) -> bool {
        // As wasi-libc's isatty decides: a character device that cannot seek.
        const RIGHT_FD_SEEK: u64 = 1 << 2;
        const RIGHT_FD_TELL: u64 = 1 << 5;
        let mut fdstat = [0u8; 24];
        // SAFETY: fdstat is the 24 bytes of __wasi_fdstat_t.
        if unsafe { fd_fdstat_get(fd, fdstat.as_mut_ptr()) } != 0 {
            return false;
        }
        let mut rights = [0u8; 8];
        rights.copy_from_slice(&fdstat[8..16]);
        let rights = u64::from_le_bytes(rights);
        fdstat[0] == 2 && rights & (RIGHT_FD_SEEK | RIGHT_FD_TELL) == 0
    }

    fn spawn(&mut self, request: &SpawnRequest) -> Result<u32, Errno> {
        let program = match &request.program {
            Program::Path(path) => path.as_bytes().to_vec(),
            Program::SelfShell => SELF_PATH.as_bytes().to_vec(),
        };
        let spawn = airlock_sys::SpawnRequest {
            // Child shells handle EPIPE themselves (see `builtins::write_out`); programs
            // are ended by it, as by SIGPIPE.
            flags: if request.new_group { FLAG_NEW_GROUP } else { 0 }
                | if request.program == Program::SelfShell { FLAG_IGNORE_SIGPIPE } else { 0 },
            program,
            argv: request.argv.clone(),
            env: request.env.clone(),
            cwd: Vec::new(),
            fds: request.fds.iter().map(|&(child_fd, parent_fd)| FdMapping { child_fd, parent_fd }).collect(),
            blob: request.blob.clone(),
        };
        airlock_sys::spawn(&spawn).map_err(sys)
    }

    fn wait(&mut self, pid: i32, nohang: bool) -> Result<Option<Exited>, Errno> {
        let options = if nohang { airlock_sys::WNOHANG } else { 0 };
        match airlock_sys::wait(pid, options) {
            Ok(Some(result)) => Ok(Some(Exited { pid: result.pid, status: result.status as i32 })),
            Ok(None) => Ok(None),
            Err(error) => Err(sys(error)),
        }
    }

    fn kill(&mut self, pid: i32, signal: u32) -> Result<(), Errno> {
        airlock_sys::kill(pid, signal).map_err(sys)
    }

    fn getpid(&mut self) -> u32 {
        airlock_sys::getpid()
    }

    fn getppid(&mut self) -> u32 {
        airlock_sys::getppid()
    }

    fn now_ns(&mut self) -> i128 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as i128).unwrap_or(0)
    }

    fn monotonic_ns(&mut self) -> u64 {
        self.started.elapsed().as_nanos() as u64
    }

    fn random_u32(&mut self) -> u32 {
        let mut bytes = [0u8; 4];
        // SAFETY: bytes is 4 writable bytes.
        unsafe {
            random_get(bytes.as_mut_ptr(), 4);
        }
        u32::from_le_bytes(bytes)
    }

    fn wait_readable(&mut self, _fd: Fd, _timeout_ms: u64) -> Result<bool, Errno> {
        // The kernel's poll_oneoff has no descriptor subscriptions: `read -t` reads
        // without a timeout.
        Err(Errno::NOSYS)
    }

    fn blob(&mut self) -> Vec<u8> {
        airlock_sys::spawn_blob().unwrap_or_default()
    }

    fn poll(&mut self) -> Poll {
        if !self.session {
            // Any call checks the run's deadline; the kernel ends us past it.
            let _ = airlock_sys::deadline_remaining_ms();
            return Poll::Continue;
        }
        match airlock_sys::session::poll() {
            airlock_sys::session::Poll::Continue => Poll::Continue,
            airlock_sys::session::Poll::TimedOut => Poll::TimedOut,
            airlock_sys::session::Poll::Interrupted => Poll::Interrupted,
        }
    }

    fn environment(&mut self) -> Vec<String> {
        std::env::vars_os().map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy())).collect()
    }

    fn session_next(&mut self) -> Option<Vec<u8>> {
        airlock_sys::session::next_request().ok()
    }

    fn session_done(&mut self, status: i32, state: &[u8]) {
        let _ = airlock_sys::session::done(status as u32, state);
    }
}
