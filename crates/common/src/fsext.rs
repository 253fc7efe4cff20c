//! File metadata as `struct stat` gives it (mode, owner, inode, link count, times in ns),
//! the same natively and on WASI, where std's Metadata lacks the mode and, in Rust 1.63,
//! the inode and link count (those come from the `airlock` stat import there).

use std::io;
use std::path::Path;

/// File type bits of `mode` (Linux `S_IFMT` values).
pub const S_IFMT: u32 = 0o170000;
pub const S_IFREG: u32 = 0o100000;
pub const S_IFDIR: u32 = 0o040000;
pub const S_IFLNK: u32 = 0o120000;
pub const S_IFCHR: u32 = 0o020000;
pub const S_IFIFO: u32 = 0o010000;
pub const S_IFBLK: u32 = 0o060000;
pub const S_IFSOCK: u32 = 0o140000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub nlink: u64,
    pub ino: u64,
    pub dev: u64,
    pub size: u64,
    pub atime_ns: i128,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    /// st_blocks as the host filesystem reports it (native builds only).
    #[cfg(not(target_os = "wasi"))]
    pub native_blocks: u64,
}

impl Meta {
    pub fn file_type(&self) -> u32 {
        self.mode & S_IFMT
    }
    pub fn is_dir(&self) -> bool {
        self.file_type() == S_IFDIR
    }
    pub fn is_file(&self) -> bool {
        self.file_type() == S_IFREG
    }
    pub fn is_symlink(&self) -> bool {
        self.file_type() == S_IFLNK
    }
    /// Permission bits (including setuid/setgid/sticky).
    pub fn permissions(&self) -> u32 {
        self.mode & 0o7777
    }
    /// 512-byte blocks, as `st_blocks` (the VFS has no blocks: size rounded up to 4 KiB).
    pub fn blocks(&self) -> u64 {
        #[cfg(target_os = "wasi")]
        {
            if self.is_file() || self.is_dir() {
                return (self.size + 4095) / 4096 * 8;
            }
            0
        }
        #[cfg(not(target_os = "wasi"))]
        {
            self.native_blocks
        }
    }
}

/// stat (follow = true) or lstat (follow = false).
pub fn metadata(path: &Path, follow: bool) -> io::Result<Meta> {
    imp::metadata(path, follow)
}

/// chmod.
pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    imp::set_mode(path, mode)
}

/// Sets the umask and returns the previous one (`None` only reads it).
pub fn umask(mask: Option<u32>) -> u32 {
    imp::umask(mask)
}

#[cfg(target_os = "wasi")]
mod imp {
    use super::Meta;
    use std::io;
    use std::path::Path;

    fn to_io(e: airlock_sys::Errno) -> io::Error {
        io::Error::from_raw_os_error(e.0 as i32)
    }

    pub fn metadata(path: &Path, follow: bool) -> io::Result<Meta> {
        let text = path.to_str().ok_or_else(|| io::Error::from_raw_os_error(airlock_sys::errno::os::INVAL))?;
        let s = airlock_sys::fs::stat_ext(text, follow).map_err(to_io)?;
        Ok(Meta {
            mode: s.mode,
            uid: s.uid,
            gid: s.gid,
            nlink: s.nlink as u64,
            ino: s.ino,
            dev: s.dev,
            size: s.size,
            atime_ns: s.atime_ns as i128,
            mtime_ns: s.mtime_ns as i128,
            ctime_ns: s.ctime_ns as i128,
        })
    }

    pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
        let text = path.to_str().ok_or_else(|| io::Error::from_raw_os_error(airlock_sys::errno::os::INVAL))?;
        airlock_sys::fs::chmod(text, mode).map_err(to_io)
    }

    pub fn umask(mask: Option<u32>) -> u32 {
        // Read by setting and restoring: kernels before the fix of proc_umask's "only read"
        // value (0xffffffff arrives in JS as -1) set the umask to 0o777 on a plain read.
        let set = mask.unwrap_or(0o022);
        let previous = airlock_sys::umask(Some(set)).unwrap_or(0o022);
        if mask.is_none() {
            let _ = airlock_sys::umask(Some(previous));
        }
        previous
    }
}

#[cfg(not(target_os = "wasi"))]
mod imp {
    use super::Meta;
    use std::io;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::path::Path;

    pub fn metadata(path: &Path, follow: bool) -> io::Result<Meta> {
        let m = if follow { std::fs::metadata(path)? } else { std::fs::symlink_metadata(path)? };
        Ok(Meta {
            mode: m.mode(),
            uid: m.uid(),
            gid: m.gid(),
            nlink: m.nlink(),
            ino: m.ino(),
            dev: m.dev(),
            size: m.size(),
            atime_ns: m.atime() as i128 * 1_000_000_000 + m.atime_nsec() as i128,
            mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
            ctime_ns: m.ctime() as i128 * 1_000_000_000 + m.ctime_nsec() as i128,
            native_blocks: m.blocks(),
        })
    }

    pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }

    pub fn umask(mask: Option<u32>) -> u32 {
        // SAFETY: umask has no memory-safety preconditions.
        unsafe {
            let previous = libc::umask(mask.unwrap_or(0o022) as libc::mode_t);
            if mask.is_none() {
                libc::umask(previous);
            }
            previous as u32
        }
    }
}
