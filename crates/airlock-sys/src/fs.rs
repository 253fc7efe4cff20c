//! File modes, which WASI preview1 does not carry: `st_mode`, owner and link count by path or
//! descriptor, and chmod. Paths are resolved like wasi-libc does: absolute, or relative to
//! the process's working directory, through the root preopen.

use crate::{check, raw, Errno};

/// The part of `struct stat` WASI's filestat lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatExt {
    /// File type and permission bits, as Linux's `st_mode`.
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub nlink: u32,
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

fn decode(out: [u32; 4]) -> StatExt {
    StatExt { mode: out[0], uid: out[1], gid: out[2], nlink: out[3] }
}

/// `stat` (follow = true) or `lstat` (follow = false) of a path.
pub fn stat_ext(path: &str, follow: bool) -> Result<StatExt, Errno> {
    with_path(path, |bytes| {
        let mut out = [0u32; 4];
        check(unsafe { raw::path_stat_ext(root_fd(), follow as u32, bytes.as_ptr(), bytes.len() as u32, out.as_mut_ptr()) })?;
        Ok(decode(out))
    })
}

/// `fstat` of a descriptor.
pub fn fd_stat_ext(fd: u32) -> Result<StatExt, Errno> {
    let mut out = [0u32; 4];
    check(unsafe { raw::fd_stat_ext(fd, out.as_mut_ptr()) })?;
    Ok(decode(out))
}

/// `chmod` (follows symlinks, as chmod(2) does).
pub fn chmod(path: &str, mode: u32) -> Result<(), Errno> {
    with_path(path, |bytes| check(unsafe { raw::path_chmod(root_fd(), 1, bytes.as_ptr(), bytes.len() as u32, mode) }))
}
