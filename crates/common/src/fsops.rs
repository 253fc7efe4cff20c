//! File operations std lacks on Rust 1.63 or on WASI: setting times (`touch`, `cp -p`),
//! creating symlinks, and filesystem capacity (`df`). On WASI they go through wasi-libc,
//! which std already links, so the working directory is honoured the same way.

use std::ffi::CString;
use std::io;
use std::path::Path;

/// A time to set: a value, now, or leave unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetTime {
    At(i64, u32),
    Now,
    Omit,
}

/// Filesystem capacity: block size and counts as statvfs gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsUsage {
    pub block_size: u64,
    pub blocks: u64,
    pub free: u64,
    pub available: u64,
    pub files: u64,
    pub files_free: u64,
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(crate::args::os_bytes(path.as_os_str()).to_vec()).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// utimensat(AT_FDCWD, path, times, follow ? 0 : AT_SYMLINK_NOFOLLOW).
pub fn set_times(path: &Path, atime: SetTime, mtime: SetTime, follow: bool) -> io::Result<()> {
    let mtime = if cfg!(target_os = "wasi") { explicit_mtime(path, mtime, follow)? } else { mtime };
    imp::set_times(&c_path(path)?, atime, mtime, follow)
}

/// The wasi-libc that Rust's wasm32-wasi target ships ignores UTIME_NOW and UTIME_OMIT in
/// the mtime slot of utimensat (it sends them as a time, or fails with EINVAL), so on WASI
/// the mtime is always passed as a value: the current one for Omit, the clock for Now.
fn explicit_mtime(path: &Path, mtime: SetTime, follow: bool) -> io::Result<SetTime> {
    let ns = match mtime {
        SetTime::At(..) => return Ok(mtime),
        SetTime::Omit => crate::fsext::metadata(path, follow)?.mtime_ns,
        SetTime::Now => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as i128).unwrap_or(0),
    };
    Ok(SetTime::At(ns.div_euclid(1_000_000_000) as i64, ns.rem_euclid(1_000_000_000) as u32))
}

/// symlink(target, link).
pub fn symlink(target: &Path, link: &Path) -> io::Result<()> {
    imp::symlink(&c_path(target)?, &c_path(link)?)
}

/// Copies the bytes of `src` into `dst` (created or truncated; an existing file keeps its
/// mode, a new one gets `new_mode` minus the umask). std::fs::copy cannot be used: on WASI
/// it fails setting permissions.
pub fn copy_data(src: &Path, dst: &Path, new_mode: u32) -> io::Result<u64> {
    let mut input = std::fs::File::open(src)?;
    let existed = crate::fsext::metadata(dst, true).is_ok();
    let mut output = std::fs::OpenOptions::new().write(true).create(true).truncate(true).open(dst)?;
    if !existed {
        let _ = crate::fsext::set_mode(dst, new_mode & !crate::fsext::umask(None));
    }
    let mut buffer = vec![0u8; crate::io::BUFFER_SIZE];
    let mut total = 0u64;
    loop {
        let n = match std::io::Read::read(&mut input, &mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        std::io::Write::write_all(&mut output, &buffer[..n])?;
        total += n as u64;
    }
    Ok(total)
}

/// Whether descriptor `fd` is a terminal (ls chooses columns and quoting by it).
pub fn is_terminal(fd: i32) -> bool {
    imp::is_terminal(fd)
}

/// Capacity of the filesystem holding `path` (natively statvfs; in the sandbox, the VFS's
/// limits from the kernel, in 1 KiB blocks).
pub fn fs_usage(path: &Path) -> io::Result<FsUsage> {
    imp::fs_usage(path)
}

#[cfg(target_os = "wasi")]
mod imp {
    use super::{FsUsage, SetTime};
    use std::ffi::CStr;
    use std::io;
    use std::path::Path;

    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i32,
    }

    extern "C" {
        fn utimensat(dirfd: i32, path: *const u8, times: *const Timespec, flags: i32) -> i32;
        #[link_name = "symlink"]
        fn c_symlink(target: *const u8, link: *const u8) -> i32;
        // wasi-libc (without threads) keeps errno in a plain global; it has no __errno_location.
        static mut errno: i32;
        fn isatty(fd: i32) -> i32;
    }

    pub fn is_terminal(fd: i32) -> bool {
        // SAFETY: isatty only inspects the descriptor.
        unsafe { isatty(fd) == 1 }
    }

    const AT_FDCWD: i32 = -2;
    const AT_SYMLINK_NOFOLLOW: i32 = 1;
    const UTIME_NOW: i32 = -1;
    const UTIME_OMIT: i32 = -2;

    fn last_error() -> io::Error {
        // SAFETY: a plain i32 global of wasi-libc, read right after the failing call.
        io::Error::from_raw_os_error(unsafe { errno })
    }

    fn spec(t: SetTime) -> Timespec {
        match t {
            SetTime::At(sec, nsec) => Timespec { sec, nsec: nsec as i32 },
            SetTime::Now => Timespec { sec: 0, nsec: UTIME_NOW },
            SetTime::Omit => Timespec { sec: 0, nsec: UTIME_OMIT },
        }
    }

    pub fn set_times(path: &CStr, atime: SetTime, mtime: SetTime, follow: bool) -> io::Result<()> {
        let times = [spec(atime), spec(mtime)];
        let flags = if follow { 0 } else { AT_SYMLINK_NOFOLLOW };
        // SAFETY: path is NUL-terminated and times points at two timespecs.
        let rc = unsafe { utimensat(AT_FDCWD, path.as_ptr() as *const u8, times.as_ptr(), flags) };
        if rc == 0 {
            Ok(())
        } else {
            Err(last_error())
        }
    }

    pub fn symlink(target: &CStr, link: &CStr) -> io::Result<()> {
        // SAFETY: both are NUL-terminated strings.
        let rc = unsafe { c_symlink(target.as_ptr() as *const u8, link.as_ptr() as *const u8) };
        if rc == 0 {
            Ok(())
        } else {
            Err(last_error())
        }
    }

    pub fn fs_usage(_path: &Path) -> io::Result<FsUsage> {
        let s = airlock_sys::fs::fs_stats().map_err(|e| io::Error::from_raw_os_error(e.0 as i32))?;
        let blocks = s.total_bytes / 1024;
        let used = (s.used_bytes + 1023) / 1024;
        let free = blocks.saturating_sub(used);
        Ok(FsUsage { block_size: 1024, blocks, free, available: free, files: s.total_inodes, files_free: s.total_inodes.saturating_sub(s.used_inodes) })
    }
}

#[cfg(not(target_os = "wasi"))]
mod imp {
    use super::{FsUsage, SetTime};
    use std::ffi::CStr;
    use std::io;
    use std::path::Path;

    fn spec(t: SetTime) -> libc::timespec {
        match t {
            SetTime::At(sec, nsec) => libc::timespec { tv_sec: sec as libc::time_t, tv_nsec: nsec as _ },
            SetTime::Now => libc::timespec { tv_sec: 0, tv_nsec: libc::UTIME_NOW },
            SetTime::Omit => libc::timespec { tv_sec: 0, tv_nsec: libc::UTIME_OMIT },
        }
    }

    pub fn set_times(path: &CStr, atime: SetTime, mtime: SetTime, follow: bool) -> io::Result<()> {
        let times = [spec(atime), spec(mtime)];
        let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
        // SAFETY: path is NUL-terminated and times points at two timespecs.
        if unsafe { libc::utimensat(libc::AT_FDCWD, path.as_ptr(), times.as_ptr(), flags) } == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    pub fn is_terminal(fd: i32) -> bool {
        // SAFETY: isatty only inspects the descriptor.
        unsafe { libc::isatty(fd) == 1 }
    }

    pub fn symlink(target: &CStr, link: &CStr) -> io::Result<()> {
        // SAFETY: both are NUL-terminated strings.
        if unsafe { libc::symlink(target.as_ptr(), link.as_ptr()) } == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    pub fn fs_usage(path: &Path) -> io::Result<FsUsage> {
        let c = super::c_path(path)?;
        // SAFETY: statvfs fills the zeroed struct; the path is NUL-terminated.
        let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(FsUsage {
            block_size: s.f_frsize as u64,
            blocks: s.f_blocks as u64,
            free: s.f_bfree as u64,
            available: s.f_bavail as u64,
            files: s.f_files as u64,
            files_free: s.f_ffree as u64,
        })
    }
}
