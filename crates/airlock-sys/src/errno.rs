//! Every errno the sandbox's code names, in one table: WASI's number (the sandbox's ABI: the
//! kernel returns these), Linux's (native builds), and glibc's message, which GNU tools and
//! bash print. `wasi`, `linux` and `os` (this target's, as `io::Error::raw_os_error` gives it)
//! are generated from the one table, so no code writes an errno number of its own.

macro_rules! errnos {
    ($($name:ident = $wasi:literal, $linux:literal, $text:literal;)*) => {
        /// WASI's numbering.
        pub mod wasi {
            $(pub const $name: u16 = $wasi;)*
        }
        /// Linux's numbering.
        pub mod linux {
            $(pub const $name: i32 = $linux;)*
        }
        /// This target's numbering (WASI's on wasm32-wasi, else Linux's).
        pub mod os {
            $(pub const $name: i32 = if cfg!(target_os = "wasi") { $wasi } else { $linux };)*
        }
        impl crate::Errno {
            $(pub const $name: crate::Errno = crate::Errno($wasi);)*
        }
        /// glibc's message for a WASI errno.
        pub fn message(code: u16) -> Option<&'static str> {
            match code {
                $($wasi => Some($text),)*
                _ => None,
            }
        }
        /// WASI's number for a Linux errno (the native shell speaks WASI's numbering).
        pub fn wasi_from_linux(code: i32) -> Option<u16> {
            match code {
                $($linux => Some($wasi),)*
                _ => None,
            }
        }
    };
}

errnos! {
    PERM = 63, 1, "Operation not permitted";
    NOENT = 44, 2, "No such file or directory";
    SRCH = 71, 3, "No such process";
    INTR = 27, 4, "Interrupted system call";
    IO = 29, 5, "Input/output error";
    NXIO = 60, 6, "No such device or address";
    NOEXEC = 45, 8, "Exec format error";
    BADF = 8, 9, "Bad file descriptor";
    CHILD = 12, 10, "No child processes";
    AGAIN = 6, 11, "Resource temporarily unavailable";
    NOMEM = 48, 12, "Cannot allocate memory";
    ACCES = 2, 13, "Permission denied";
    BUSY = 10, 16, "Device or resource busy";
    EXIST = 20, 17, "File exists";
    XDEV = 75, 18, "Invalid cross-device link";
    NOTDIR = 54, 20, "Not a directory";
    ISDIR = 31, 21, "Is a directory";
    INVAL = 28, 22, "Invalid argument";
    MFILE = 33, 24, "Too many open files";
    NOTTY = 59, 25, "Inappropriate ioctl for device";
    FBIG = 22, 27, "File too large";
    NOSPC = 51, 28, "No space left on device";
    SPIPE = 70, 29, "Illegal seek";
    ROFS = 69, 30, "Read-only file system";
    PIPE = 64, 32, "Broken pipe";
    DEADLK = 16, 35, "Resource deadlock avoided";
    NAMETOOLONG = 37, 36, "File name too long";
    NOSYS = 52, 38, "Function not implemented";
    NOTEMPTY = 55, 39, "Directory not empty";
    LOOP = 32, 40, "Too many levels of symbolic links";
    NOTSUP = 58, 95, "Operation not supported";
    NOBUFS = 42, 105, "No buffer space available";
    TIMEDOUT = 73, 110, "Connection timed out";
    CONNREFUSED = 14, 111, "Connection refused";
}

/// Success (WASI's 0).
pub const SUCCESS: u16 = 0;
pub use wasi::*;

/// glibc's message for this target's errno (an `io::Error`'s raw number).
pub fn os_message(code: i32) -> Option<&'static str> {
    if cfg!(target_os = "wasi") {
        message(u16::try_from(code).ok()?)
    } else {
        message(wasi_from_linux(code)?)
    }
}
