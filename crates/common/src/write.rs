//! What a command does when writing its output fails: a reader that went away (EPIPE) ends
//! it quietly, as SIGPIPE ends GNU's tools; anything else is `name: write error: reason`.

use std::io;

use crate::error::UError;
use crate::io::Io;

/// The status the shell sees when a GNU tool dies of SIGPIPE.
pub const SIGPIPE_STATUS: i32 = 141;

/// Reports a failed write (unless EPIPE) and returns the status to exit with.
pub fn write_failed(io: &mut Io, error: &io::Error) -> i32 {
    io.fail(UError::write(error))
}
