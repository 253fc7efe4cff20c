//! The session-shell protocol (docs/abi.md, "The session shell"): the one long-lived shell of
//! a sandbox receives each run() here and reports its end with its state.

use crate::{check, raw, Errno};

/// Waits for the next run request and returns it (JSON, see docs/abi.md).
pub fn next_request() -> Result<Vec<u8>, Errno> {
    let mut len: u32 = 0;
    check(unsafe { raw::session_next(&mut len) })?;
    let mut buf = vec![0u8; len as usize];
    check(unsafe { raw::session_read(buf.as_mut_ptr(), len) })?;
    Ok(buf)
}

/// What the host wants the current run to do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    Continue,
    /// The deadline passed: end the run with status 124.
    TimedOut,
    /// The host cancelled the run (Ctrl-C): end it with status 130.
    Interrupted,
}

/// Call every ~1000 interpreter steps and after each wait.
pub fn poll() -> Poll {
    match unsafe { raw::session_poll() } {
        crate::errno::TIMEDOUT => Poll::TimedOut,
        crate::errno::INTR => Poll::Interrupted,
        _ => Poll::Continue,
    }
}

/// Ends the current run with `status` and the shell's serialized state.
pub fn done(status: u32, state: &[u8]) -> Result<(), Errno> {
    check(unsafe { raw::session_done(status, state.as_ptr(), state.len() as u32) })
}
