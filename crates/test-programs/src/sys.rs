//! `probe sys OP ARGS...`: one system call made directly, for the syscall parity test
//! (tests/parity): path operations through raw WASI preview1 calls on the root preopen
//! (paths must be absolute), process and descriptor operations through the `airlock`
//! imports. Prints `ok [detail]` or `err <WASI errno>`.

use std::io::{self, Write};

const ROOT_FD: u32 = 3;
const LOOKUP_SYMLINK_FOLLOW: u32 = 1;
const OFLAGS_CREAT: u32 = 1;
const OFLAGS_DIRECTORY: u32 = 2;
const OFLAGS_EXCL: u32 = 4;
const OFLAGS_TRUNC: u32 = 8;
const FDFLAGS_APPEND: u32 = 1;
const RIGHTS_FD_READ: u64 = 1 << 1;
const RIGHTS_FD_WRITE: u64 = 1 << 6;
const RIGHTS_FD_READDIR: u64 = 1 << 14;
const EINVAL: u32 = 28;

#[link(wasm_import_module = "wasi_snapshot_preview1")]
extern "C" {
    fn path_open(fd: u32, dirflags: u32, path: *const u8, path_len: u32, oflags: u32, rights_base: u64, rights_inheriting: u64, fdflags: u32, fd_out: *mut u32) -> u32;
    fn fd_close(fd: u32) -> u32;
    fn fd_read(fd: u32, iovs: *const u32, iovs_len: u32, nread: *mut u32) -> u32;
    fn fd_write(fd: u32, iovs: *const u32, iovs_len: u32, nwritten: *mut u32) -> u32;
    fn fd_readdir(fd: u32, buf: *mut u8, buf_len: u32, cookie: u64, used: *mut u32) -> u32;
    fn path_unlink_file(fd: u32, path: *const u8, path_len: u32) -> u32;
    fn path_remove_directory(fd: u32, path: *const u8, path_len: u32) -> u32;
    fn path_create_directory(fd: u32, path: *const u8, path_len: u32) -> u32;
    fn path_rename(fd: u32, old: *const u8, old_len: u32, new_fd: u32, new: *const u8, new_len: u32) -> u32;
    fn path_symlink(old: *const u8, old_len: u32, fd: u32, new: *const u8, new_len: u32) -> u32;
    fn path_readlink(fd: u32, path: *const u8, path_len: u32, buf: *mut u8, buf_len: u32, used: *mut u32) -> u32;
    fn path_filestat_get(fd: u32, flags: u32, path: *const u8, path_len: u32, out: *mut u8) -> u32;
}

#[link(wasm_import_module = "airlock")]
extern "C" {
    fn path_stat_ext(dirfd: u32, flags: u32, path: *const u8, path_len: u32, out: *mut u8) -> u16;
}

/// A path relative to the root preopen.
fn rel(path: &str) -> &[u8] {
    let relative = path.trim_start_matches('/');
    if relative.is_empty() {
        b"."
    } else {
        relative.as_bytes()
    }
}

use super::arg;

/// A signed argument (pids may be -1).
fn number(args: &[String], index: usize) -> io::Result<i64> {
    arg(args, index)?.parse().map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "not a number"))
}

/// `ok DETAIL` for errno 0, `err N` otherwise.
fn outcome(code: u32, detail: impl FnOnce() -> String) -> String {
    if code == 0 {
        let text = detail();
        if text.is_empty() {
            "ok".to_string()
        } else {
            format!("ok {}", text)
        }
    } else {
        format!("err {}", code)
    }
}

fn filetype_name(filetype: u8) -> &'static str {
    match filetype {
        2 => "chardev",
        3 => "dir",
        4 => "file",
        7 => "symlink",
        _ => "other",
    }
}

fn mode_name(mode: u32) -> &'static str {
    match mode & 0o170000 {
        0o040000 => "dir",
        0o100000 => "file",
        0o120000 => "symlink",
        0o020000 => "chardev",
        _ => "other",
    }
}

/// open PATH FLAGS: FLAGS a comma list of rdonly wronly rdwr creat excl trunc directory nofollow append.
fn open(path: &str, flags: &str) -> u32 {
    let (mut oflags, mut rights, mut fdflags, mut dirflags) = (0, 0u64, 0, LOOKUP_SYMLINK_FOLLOW);
    for flag in flags.split(',') {
        match flag {
            "rdonly" => rights |= RIGHTS_FD_READ | RIGHTS_FD_READDIR,
            "wronly" => rights |= RIGHTS_FD_WRITE,
            "rdwr" => rights |= RIGHTS_FD_READ | RIGHTS_FD_WRITE,
            "creat" => oflags |= OFLAGS_CREAT,
            "excl" => oflags |= OFLAGS_EXCL,
            "trunc" => oflags |= OFLAGS_TRUNC,
            "directory" => oflags |= OFLAGS_DIRECTORY,
            "nofollow" => dirflags = 0,
            "append" => fdflags |= FDFLAGS_APPEND,
            _ => return EINVAL,
        }
    }
    let path = rel(path);
    let mut fd = 0;
    let code = unsafe { path_open(ROOT_FD, dirflags, path.as_ptr(), path.len() as u32, oflags, rights, rights, fdflags, &mut fd) };
    if code == 0 {
        unsafe { fd_close(fd) };
    }
    code
}

fn filestat(path: &str, follow: bool) -> String {
    let path = rel(path);
    let mut stat = [0u8; 64];
    let code = unsafe { path_filestat_get(ROOT_FD, if follow { LOOKUP_SYMLINK_FOLLOW } else { 0 }, path.as_ptr(), path.len() as u32, stat.as_mut_ptr()) };
    outcome(code, || filetype_name(stat[16]).to_string())
}

fn stat_ext(path: &str, follow: bool) -> String {
    let path = rel(path);
    let mut stat = [0u8; 64];
    let code = unsafe { path_stat_ext(ROOT_FD, if follow { LOOKUP_SYMLINK_FOLLOW } else { 0 }, path.as_ptr(), path.len() as u32, stat.as_mut_ptr()) };
    let mode = u32::from_le_bytes([stat[0], stat[1], stat[2], stat[3]]);
    outcome(code as u32, || mode_name(mode).to_string())
}

fn readlink(path: &str) -> String {
    let path = rel(path);
    let mut buf = [0u8; 4096];
    let mut used = 0;
    let code = unsafe { path_readlink(ROOT_FD, path.as_ptr(), path.len() as u32, buf.as_mut_ptr(), buf.len() as u32, &mut used) };
    outcome(code, || String::from_utf8_lossy(&buf[..used as usize]).into_owned())
}

/// The names in a directory (without `.` and `..`), sorted, comma separated.
fn readdir(path: &str) -> String {
    let path = rel(path);
    let mut fd = 0;
    let code = unsafe { path_open(ROOT_FD, LOOKUP_SYMLINK_FOLLOW, path.as_ptr(), path.len() as u32, OFLAGS_DIRECTORY, RIGHTS_FD_READDIR, RIGHTS_FD_READDIR, 0, &mut fd) };
    if code != 0 {
        return format!("err {}", code);
    }
    let mut names = Vec::new();
    let mut buf = vec![0u8; 65536];
    let mut used = 0;
    let code = unsafe { fd_readdir(fd, buf.as_mut_ptr(), buf.len() as u32, 0, &mut used) };
    unsafe { fd_close(fd) };
    if code != 0 {
        return format!("err {}", code);
    }
    let mut offset = 0;
    while offset + 24 <= used as usize {
        let length = u32::from_le_bytes([buf[offset + 16], buf[offset + 17], buf[offset + 18], buf[offset + 19]]) as usize;
        let name = String::from_utf8_lossy(&buf[offset + 24..offset + 24 + length]).into_owned();
        if name != "." && name != ".." {
            names.push(name);
        }
        offset += 24 + length;
    }
    names.sort();
    format!("ok {}", names.join(","))
}

fn with_path(path: &str, call: unsafe extern "C" fn(u32, *const u8, u32) -> u32) -> String {
    let path = rel(path);
    outcome(unsafe { call(ROOT_FD, path.as_ptr(), path.len() as u32) }, String::new)
}

fn airlock(result: Result<String, airlock_sys::Errno>) -> String {
    match result {
        Ok(detail) => outcome(0, || detail),
        Err(errno) => format!("err {}", errno.0),
    }
}

/// A pipe whose write end is closed reads end of file at once: the byte count read.
fn pipe_eof() -> Result<String, airlock_sys::Errno> {
    let (read_end, write_end) = airlock_sys::pipe()?;
    unsafe { fd_close(write_end) };
    let mut buf = [0u8; 16];
    let iov: [u32; 2] = [buf.as_mut_ptr() as u32, buf.len() as u32];
    let mut nread = 0;
    let code = unsafe { fd_read(read_end, iov.as_ptr(), 1, &mut nread) };
    unsafe { fd_close(read_end) };
    if code != 0 {
        return Err(airlock_sys::Errno(code as u16));
    }
    Ok(nread.to_string())
}

/// Writing to a pipe's read end.
fn pipe_write_read_end() -> Result<String, airlock_sys::Errno> {
    let (read_end, write_end) = airlock_sys::pipe()?;
    let byte = [b'x'];
    let iov: [u32; 2] = [byte.as_ptr() as u32, 1];
    let mut written = 0;
    let code = unsafe { fd_write(read_end, iov.as_ptr(), 1, &mut written) };
    unsafe {
        fd_close(read_end);
        fd_close(write_end);
    }
    if code != 0 {
        return Err(airlock_sys::Errno(code as u16));
    }
    Ok(written.to_string())
}

/// Starts PROGRAM (no arguments, the probe's environment, stdio inherited) and waits for it.
fn spawn(program: &str) -> Result<String, airlock_sys::Errno> {
    let mut request = airlock_sys::SpawnRequest::new(program, &[program]);
    request.env = std::env::vars().map(|(k, v)| format!("{}={}", k, v).into_bytes()).collect();
    let pid = airlock_sys::spawn(&request)?;
    airlock_sys::wait(pid as i32, 0)?;
    Ok(String::new())
}

pub fn run(args: &[String], out: &mut impl Write) -> io::Result<()> {
    let line = match arg(args, 0)? {
        "open" => outcome(open(arg(args, 1)?, arg(args, 2)?), String::new),
        "unlink" => with_path(arg(args, 1)?, path_unlink_file),
        "rmdir" => with_path(arg(args, 1)?, path_remove_directory),
        "mkdir" => with_path(arg(args, 1)?, path_create_directory),
        "rename" => {
            let (from, to) = (rel(arg(args, 1)?), rel(arg(args, 2)?));
            outcome(unsafe { path_rename(ROOT_FD, from.as_ptr(), from.len() as u32, ROOT_FD, to.as_ptr(), to.len() as u32) }, String::new)
        }
        "symlink" => {
            let (target, path) = (arg(args, 1)?.as_bytes(), rel(arg(args, 2)?));
            outcome(unsafe { path_symlink(target.as_ptr(), target.len() as u32, ROOT_FD, path.as_ptr(), path.len() as u32) }, String::new)
        }
        "stat" => filestat(arg(args, 1)?, true),
        "lstat" => filestat(arg(args, 1)?, false),
        "stat-ext" => stat_ext(arg(args, 1)?, true),
        "lstat-ext" => stat_ext(arg(args, 1)?, false),
        "readlink" => readlink(arg(args, 1)?),
        "readdir" => readdir(arg(args, 1)?),
        "pipe-eof" => airlock(pipe_eof()),
        "pipe-write-read-end" => airlock(pipe_write_read_end()),
        "dup" => airlock(airlock_sys::dup(number(args, 1)? as u32, 0).map(|fd| {
            unsafe { fd_close(fd) };
            String::new()
        })),
        "dup2" => airlock(airlock_sys::dup2(number(args, 1)? as u32, number(args, 2)? as u32).map(|_| String::new())),
        "spawn" => airlock(spawn(arg(args, 1)?)),
        "wait" => airlock(airlock_sys::wait(number(args, 1)? as i32, 0).map(|_| String::new())),
        "kill" => {
            let pid = match arg(args, 1)? {
                "self" => airlock_sys::getpid() as i32,
                _ => number(args, 1)? as i32,
            };
            airlock(airlock_sys::kill(pid, number(args, 2)? as u32).map(|_| String::new()))
        }
        "sleep" => {
            std::thread::sleep(std::time::Duration::from_millis(number(args, 1)? as u64));
            "ok".to_string()
        }
        "net" => {
            let request = airlock_sys::net::Request { method: "GET", url: arg(args, 1)?, headers: Vec::new(), body: Vec::new(), flags: 0, timeout_ms: 0 };
            airlock(airlock_sys::net::send(&request).map(|response| response.status.to_string()).map_err(|e| e.errno))
        }
        other => return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("unknown sys call '{}'", other))),
    };
    writeln!(out, "{}", line)
}
