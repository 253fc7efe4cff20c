//! Errors in GNU's shape: `name: subject: reason`, with glibc's wording for errno values
//! (WASI's libc words some differently, e.g. ELOOP), and the exit status the command uses.

use std::io;

/// An error a command reports and the status it exits with.
#[derive(Debug)]
pub struct UError {
    pub status: i32,
    pub message: String,
}

impl UError {
    pub fn new(status: i32, message: impl Into<String>) -> UError {
        UError { status, message: message.into() }
    }

    /// `subject: reason` from an io::Error, as GNU tools print file errors.
    pub fn io(status: i32, subject: &str, error: &io::Error) -> UError {
        UError::new(status, format!("{}: {}", subject, strerror(error)))
    }
}

impl std::fmt::Display for UError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// glibc's message for an io::Error (without Rust's " (os error N)" suffix).
pub fn strerror(error: &io::Error) -> String {
    if let Some(code) = error.raw_os_error() {
        if let Some(message) = errno_message(code) {
            return message.to_string();
        }
    }
    let text = error.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// glibc messages by errno. On WASI the numbers are WASI's; natively, Linux's.
fn errno_message(code: i32) -> Option<&'static str> {
    #[cfg(target_os = "wasi")]
    let name = wasi_errno_name(code)?;
    #[cfg(not(target_os = "wasi"))]
    let name = linux_errno_name(code)?;
    Some(match name {
        "ENOENT" => "No such file or directory",
        "EACCES" => "Permission denied",
        "EPERM" => "Operation not permitted",
        "EEXIST" => "File exists",
        "ENOTDIR" => "Not a directory",
        "EISDIR" => "Is a directory",
        "ENOTEMPTY" => "Directory not empty",
        "EROFS" => "Read-only file system",
        "ENOSPC" => "No space left on device",
        "ELOOP" => "Too many levels of symbolic links",
        "EINVAL" => "Invalid argument",
        "EPIPE" => "Broken pipe",
        "EBADF" => "Bad file descriptor",
        "ENAMETOOLONG" => "File name too long",
        "EXDEV" => "Invalid cross-device link",
        "ENOSYS" => "Function not implemented",
        "ENOTSUP" => "Operation not supported",
        "EBUSY" => "Device or resource busy",
        "EFBIG" => "File too large",
        "ENOEXEC" => "Exec format error",
        "ESPIPE" => "Illegal seek",
        "EAGAIN" => "Resource temporarily unavailable",
        "EDEADLK" => "Resource deadlock avoided",
        "ECHILD" => "No child processes",
        "ESRCH" => "No such process",
        "EINTR" => "Interrupted system call",
        "ENOMEM" => "Cannot allocate memory",
        "EMFILE" => "Too many open files",
        "ETIMEDOUT" => "Connection timed out",
        "ECONNREFUSED" => "Connection refused",
        "EIO" => "Input/output error",
        "ENXIO" => "No such device or address",
        "ENOTTY" => "Inappropriate ioctl for device",
        _ => return None,
    })
}

#[cfg(target_os = "wasi")]
fn wasi_errno_name(code: i32) -> Option<&'static str> {
    Some(match code {
        2 => "EACCES",
        6 => "EAGAIN",
        8 => "EBADF",
        10 => "EBUSY",
        12 => "ECHILD",
        14 => "ECONNREFUSED",
        16 => "EDEADLK",
        20 => "EEXIST",
        22 => "EFBIG",
        27 => "EINTR",
        28 => "EINVAL",
        29 => "EIO",
        31 => "EISDIR",
        32 => "ELOOP",
        33 => "EMFILE",
        37 => "ENAMETOOLONG",
        44 => "ENOENT",
        45 => "ENOEXEC",
        48 => "ENOMEM",
        51 => "ENOSPC",
        52 => "ENOSYS",
        54 => "ENOTDIR",
        55 => "ENOTEMPTY",
        58 => "ENOTSUP",
        59 => "ENOTTY",
        60 => "ENXIO",
        63 => "EPERM",
        64 => "EPIPE",
        69 => "EROFS",
        70 => "ESPIPE",
        71 => "ESRCH",
        73 => "ETIMEDOUT",
        75 => "EXDEV",
        _ => return None,
    })
}

#[cfg(not(target_os = "wasi"))]
fn linux_errno_name(code: i32) -> Option<&'static str> {
    Some(match code {
        1 => "EPERM",
        2 => "ENOENT",
        3 => "ESRCH",
        4 => "EINTR",
        5 => "EIO",
        6 => "ENXIO",
        8 => "ENOEXEC",
        9 => "EBADF",
        10 => "ECHILD",
        11 => "EAGAIN",
        12 => "ENOMEM",
        13 => "EACCES",
        16 => "EBUSY",
        17 => "EEXIST",
        18 => "EXDEV",
        20 => "ENOTDIR",
        21 => "EISDIR",
        22 => "EINVAL",
        24 => "EMFILE",
        25 => "ENOTTY",
        27 => "EFBIG",
        28 => "ENOSPC",
        29 => "ESPIPE",
        30 => "EROFS",
        32 => "EPIPE",
        35 => "EDEADLK",
        36 => "ENAMETOOLONG",
        38 => "ENOSYS",
        39 => "ENOTEMPTY",
        40 => "ELOOP",
        95 => "ENOTSUP",
        110 => "ETIMEDOUT",
        111 => "ECONNREFUSED",
        _ => return None,
    })
}

/// Whether an error is EPIPE: commands stop quietly when their reader went away.
pub fn is_broken_pipe(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::BrokenPipe
}
