//! Errors in GNU's shape: `name: subject: reason`, with glibc's wording for errno values
//! (WASI's libc words some differently, e.g. ELOOP), and the exit status the command uses.

use std::io;

/// An error a command reports and the status it exits with. The registry prints it as
/// `name: message` (plus GNU's `Try 'name --help'` line for a usage error); an empty message
/// prints nothing (the command has said what it had to, or printed its help).
#[derive(Debug)]
pub struct UError {
    pub status: i32,
    pub message: String,
    pub usage: bool,
}

impl UError {
    pub fn new(status: i32, message: impl Into<String>) -> UError {
        UError { status, message: message.into(), usage: false }
    }

    /// Ends the command with `status` and no message.
    pub fn exit(status: i32) -> UError {
        UError::new(status, String::new())
    }

    /// A usage error: the message, then GNU's hint to try --help.
    pub fn usage(status: i32, message: impl std::fmt::Display) -> UError {
        UError { status, message: message.to_string(), usage: true }
    }

    /// A failed write of the output: EPIPE ends the command quietly with SIGPIPE's status (as
    /// SIGPIPE ends GNU's tools), anything else is `write error: reason`.
    pub fn write(error: &io::Error) -> UError {
        if is_broken_pipe(error) {
            return UError::exit(crate::write::SIGPIPE_STATUS);
        }
        UError::new(1, format!("write error: {}", strerror(error)))
    }

    /// `subject: reason` from an io::Error, as GNU tools print file errors.
    pub fn io(status: i32, subject: impl std::fmt::Display, error: &io::Error) -> UError {
        UError::new(status, format!("{}: {}", subject, strerror(error)))
    }
}

/// A bare message is GNU's `error (EXIT_FAILURE, 0, ...)`: status 1. It lets a command's
/// helpers word their errors as `Result<_, String>` and `?` them into the command's result.
impl From<String> for UError {
    fn from(message: String) -> UError {
        UError::new(1, message)
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

/// glibc messages by errno: the one table, airlock-sys's (this target's numbering).
fn errno_message(code: i32) -> Option<&'static str> {
    airlock_sys::errno::os_message(code)
}

/// Whether an error is EPIPE: commands stop quietly when their reader went away.
pub fn is_broken_pipe(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::BrokenPipe
}
