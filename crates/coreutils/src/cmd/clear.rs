//! `clear`: prints the terminal's clear sequence (xterm's: home, erase screen, erase
//! scrollback). The sandbox's terminal is xterm-compatible, so `$TERM` is not consulted;
//! `-x` keeps the scrollback, `-T TERM` is accepted for compatibility.

use std::ffi::OsString;

use common::args::{ArgError, UsageError};
use common::{Command, Io, UError};

const SPEC: &str = "keep-scrollback=x term=T: version=V";

const USAGE: &str = "Usage: clear [options]\n\nOptions:\n  -T TERM     use this instead of $TERM\n  -V          print curses-version\n  -x          do not try to clear scrollback\n";

/// ncurses' clear has no --help or --version (only -V), and answers a bad option or an
/// operand with its usage on stderr.
const CLEAR: Command = Command { standard: "", usage_error: Some(UsageError(usage_error)), ..Command::compact("clear", SPEC, USAGE) };

fn usage_error(io: &mut Io, error: ArgError) -> UError {
    io.error(error);
    let _ = io.stderr.write_all(USAGE.as_bytes());
    UError::exit(1)
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let seen = CLEAR.seen(&args, io)?;
    let scrollback = !seen.flag("keep-scrollback");
    if !seen.operands.is_empty() {
        let _ = io.stderr.write_all(USAGE.as_bytes());
        return Ok(1);
    }
    let sequence: &[u8] = if scrollback { b"\x1b[H\x1b[2J\x1b[3J" } else { b"\x1b[H\x1b[2J" };
    let _ = io.out(sequence);
    Ok(0)
}
