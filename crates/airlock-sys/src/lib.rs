//! The `airlock` host-import ABI: what a sandbox process may ask of the kernel beyond WASI
//! preview1 (process creation, waiting, pipes, descriptor duplication, its own cwd).
//!
//! The ABI is versioned (`ABI_VERSION`) and documented in `docs/abi.md`; the kernel's
//! side lives in `src/kernel/abi/airlock.ts`. Every function returns a WASI errno
//! (0 = success). On targets other than wasm32-wasi the calls fail with `ENOSYS`, so code
//! that uses this crate still builds and unit-tests natively.

#![deny(unsafe_op_in_unsafe_fn)]

mod raw;
pub mod spawn;

pub use spawn::{FdMapping, SpawnRequest, FLAG_IGNORE_SIGPIPE, FLAG_NEW_GROUP};

pub mod fs;
pub mod net;
pub mod session;

/// Version of the `airlock` import module this crate speaks.
pub const ABI_VERSION: u32 = 1;

/// WASI errno values (`errno::NOENT`), with Linux's and this target's numbering beside them.
pub mod errno;

/// An errno returned by the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Errno(pub u16);

impl Errno {
    /// The message libc's `strerror` gives for this errno, for GNU-shaped error lines.
    pub fn message(self) -> &'static str {
        errno::message(self.0).unwrap_or("Unknown error")
    }
}

impl std::fmt::Display for Errno {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Errno {}

fn check(code: u16) -> Result<(), Errno> {
    if code == 0 {
        Ok(())
    } else {
        Err(Errno(code))
    }
}

/// Options for [`wait`].
pub const WNOHANG: u32 = 1;

/// How a child ended: an exit status 0..=255; a process killed by signal N reports 128+N,
/// as the shell shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitResult {
    pub pid: u32,
    pub status: u32,
}

/// Starts a process. See [`SpawnRequest`].
pub fn spawn(request: &SpawnRequest) -> Result<u32, Errno> {
    let bytes = request.encode();
    let mut pid: u32 = 0;
    check(unsafe { raw::proc_spawn(bytes.as_ptr(), bytes.len() as u32, &mut pid) })?;
    Ok(pid)
}

/// Waits for a child (`pid` > 0) or any child (`pid` = -1). With `WNOHANG`, returns
/// `Ok(None)` when no child has ended yet.
pub fn wait(pid: i32, options: u32) -> Result<Option<WaitResult>, Errno> {
    let mut out_pid: u32 = 0;
    let mut status: u32 = 0;
    check(unsafe { raw::proc_wait(pid, options, &mut out_pid, &mut status) })?;
    if out_pid == 0 {
        Ok(None)
    } else {
        Ok(Some(WaitResult { pid: out_pid, status }))
    }
}

/// Sends a signal (numbers as on Linux: 2 INT, 9 KILL, 15 TERM; 0 checks existence).
pub fn kill(pid: i32, signal: u32) -> Result<(), Errno> {
    check(unsafe { raw::proc_kill(pid, signal) })
}

/// This process's id.
pub fn getpid() -> u32 {
    unsafe { raw::proc_getpid() }
}

/// The parent's id (0 for the first process of a session).
pub fn getppid() -> u32 {
    unsafe { raw::proc_getppid() }
}

/// Creates a pipe: `(read_end, write_end)`.
pub fn pipe() -> Result<(u32, u32), Errno> {
    let mut fds = [0u32; 2];
    check(unsafe { raw::fd_pipe(fds.as_mut_ptr()) })?;
    Ok((fds[0], fds[1]))
}

/// Duplicates `fd` onto the lowest free descriptor at or above `min`.
pub fn dup(fd: u32, min: u32) -> Result<u32, Errno> {
    let mut out: u32 = 0;
    check(unsafe { raw::fd_dup(fd, min, &mut out) })?;
    Ok(out)
}

/// Makes `target` refer to what `fd` refers to, closing `target` first.
pub fn dup2(fd: u32, target: u32) -> Result<(), Errno> {
    check(unsafe { raw::fd_dup2(fd, target) })
}

/// The bytes the parent attached to this process at spawn (empty when none).
pub fn spawn_blob() -> Result<Vec<u8>, Errno> {
    let mut size: u32 = 0;
    check(unsafe { raw::proc_blob_size(&mut size) })?;
    let mut buf = vec![0u8; size as usize];
    if size > 0 {
        check(unsafe { raw::proc_blob_read(buf.as_mut_ptr(), size) })?;
    }
    Ok(buf)
}

/// Tells the kernel this process's working directory (for spawn, /proc and relative paths
/// that other processes resolve through `/proc/<pid>/cwd`).
pub fn set_cwd(path: &str) -> Result<(), Errno> {
    check(unsafe { raw::proc_cwd_set(path.as_ptr(), path.len() as u32) })
}

/// The working directory the kernel gave this process.
pub fn get_cwd() -> Result<String, Errno> {
    let mut buf = vec![0u8; 4096];
    let mut len: u32 = 0;
    check(unsafe { raw::proc_cwd_get(buf.as_mut_ptr(), buf.len() as u32, &mut len) })?;
    buf.truncate(len as usize);
    String::from_utf8(buf).map_err(|_| Errno(errno::INVAL))
}

/// Milliseconds left before the run's deadline (`None` when there is no deadline).
pub fn deadline_remaining_ms() -> Option<u64> {
    let mut ms: u64 = 0;
    let code = unsafe { raw::deadline_remaining(&mut ms) };
    if code == 0 {
        Some(ms)
    } else {
        None
    }
}

/// The version of the `airlock` ABI the kernel speaks (0 outside the sandbox).
pub fn abi_version() -> u32 {
    unsafe { raw::abi_version() }
}

/// The tool name the kernel resolved for this process (multicall binaries dispatch on it).
pub fn tool_name() -> Option<String> {
    let mut buf = vec![0u8; 256];
    let mut len: u32 = 0;
    let code = unsafe { raw::proc_tool_name(buf.as_mut_ptr(), buf.len() as u32, &mut len) };
    if code != 0 {
        return None;
    }
    buf.truncate(len as usize);
    String::from_utf8(buf).ok()
}

/// Sets the umask and returns the previous one; `None` reads it without changing it.
pub fn umask(mask: Option<u32>) -> Result<u32, Errno> {
    let mut previous: u32 = 0;
    check(unsafe { raw::proc_umask(mask.unwrap_or(0xffff_ffff), &mut previous) })?;
    Ok(previous)
}

/// Makes the process start in the kernel's idea of its cwd: wasi-libc keeps its own cwd,
/// initialised to `/`, which relative paths are resolved against. Call first in `main`.
pub fn init_process() {
    if let Ok(cwd) = get_cwd() {
        let _ = std::env::set_current_dir(cwd);
    }
}

/// Changes directory in both wasi-libc and the kernel.
pub fn change_dir(path: &str) -> std::io::Result<()> {
    std::env::set_current_dir(path)?;
    let cwd = std::env::current_dir()?;
    set_cwd(&cwd.to_string_lossy()).map_err(|e| std::io::Error::new(std::io::ErrorKind::Other, e))
}

/// Allocation for the kernel: the asyncify data buffer must come from the program's own
/// allocator (a page the kernel grew itself would later be handed out by malloc and corrupt
/// the saved stack). Every airlock binary links this crate, so every binary exports it.
#[no_mangle]
pub extern "C" fn airlock_alloc(size: u32) -> *mut u8 {
    let layout = match std::alloc::Layout::from_size_align(size as usize, 16) {
        Ok(layout) => layout,
        Err(_) => return std::ptr::null_mut(),
    };
    // SAFETY: the layout has a non-zero size checked by the kernel, which never frees it
    // (the buffer lives as long as the process).
    unsafe { std::alloc::alloc(layout) }
}
