//! File modes, which WASI preview1 does not carry: `st_mode`, owner and link count by path or
//! descriptor, and chmod. Paths are resolved like wasi-libc does: absolute, or relative to
//! the process's working directory, through the root preopen.

use crate::{check, raw, Errno};

/// A full `struct stat` (WASI's filestat lacks the mode; Rust 1.63's std hides ino/nlink).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatExt {
    /// File type and permission bits, as Linux's `st_mode`.
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub nlink: u32,
    pub ino: u64,
    pub dev: u64,
    pub size: u64,
    pub atime_ns: u64,
    pub mtime_ns: u64,
    pub ctime_ns: u64,
}

/// The wire layout (docs/abi.md `airlock_stat`): 4 × u32 then 6 × u64, little-endian.
#[repr(C)]
#[derive(Default)]
struct RawStat {
    mode: u32,
    uid: u32,
    gid: u32,
    nlink: u32,
    ino: u64,
    dev: u64,
    size: u64,
    atime_ns: u64,
    mtime_ns: u64,
    ctime_ns: u64,
}

/// The descriptor of the root preopen `/`. The kernel installs it at the lowest free
/// descriptor >= 3 at spawn (after any the parent mapped), so it is found by scanning like
/// wasi-libc does, once.
fn root_fd() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static ROOT: AtomicU32 = AtomicU32::new(0);
    let known = ROOT.load(Ordering::Relaxed);
    if known != 0 {
        return known;
    }
    let found = raw::find_root_preopen().unwrap_or(3);
    ROOT.store(found, Ordering::Relaxed);
    found
}

fn absolute(path: &str) -> Result<String, Errno> {
    if path.starts_with('/') {
        return Ok(path.trim_start_matches('/').to_string());
    }
    let cwd = std::env::current_dir().map_err(|_| Errno(crate::errno::NOENT))?;
    let joined = cwd.join(path);
    Ok(joined.to_string_lossy().trim_start_matches('/').to_string())
}

fn with_path<T>(path: &str, f: impl FnOnce(&[u8]) -> Result<T, Errno>) -> Result<T, Errno> {
    let relative = absolute(path)?;
    let bytes = if relative.is_empty() { b".".to_vec() } else { relative.into_bytes() };
    f(&bytes)
}

fn decode(raw: RawStat) -> StatExt {
    StatExt {
        mode: raw.mode,
        uid: raw.uid,
        gid: raw.gid,
        nlink: raw.nlink,
        ino: raw.ino,
        dev: raw.dev,
        size: raw.size,
        atime_ns: raw.atime_ns,
        mtime_ns: raw.mtime_ns,
        ctime_ns: raw.ctime_ns,
    }
}

/// `stat` (follow = true) or `lstat` (follow = false) of a path.
pub fn stat_ext(path: &str, follow: bool) -> Result<StatExt, Errno> {
    with_path(path, |bytes| {
        let mut out = RawStat::default();
        check(unsafe { raw::path_stat_ext(root_fd(), follow as u32, bytes.as_ptr(), bytes.len() as u32, &mut out as *mut RawStat as *mut u8) })?;
        Ok(decode(out))
    })
}

/// `fstat` of a descriptor.
pub fn fd_stat_ext(fd: u32) -> Result<StatExt, Errno> {
    let mut out = RawStat::default();
    check(unsafe { raw::fd_stat_ext(fd, &mut out as *mut RawStat as *mut u8) })?;
    Ok(decode(out))
}

/// `chmod` (follows symlinks, as chmod(2) does).
pub fn chmod(path: &str, mode: u32) -> Result<(), Errno> {
    with_path(path, |bytes| check(unsafe { raw::path_chmod(root_fd(), 1, bytes.as_ptr(), bytes.len() as u32, mode) }))
}

/// Capacity and usage of the sandbox filesystem (for `df`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsStats {
    pub total_bytes: u64,
    pub used_bytes: u64,
    pub total_inodes: u64,
    pub used_inodes: u64,
}

pub fn fs_stats() -> Result<FsStats, Errno> {
    let mut out = [0u64; 4];
    check(unsafe { raw::fs_stats(out.as_mut_ptr()) })?;
    Ok(FsStats { total_bytes: out[0], used_bytes: out[1], total_inodes: out[2], used_inodes: out[3] })
}
