//! What `head` and `tail` share for each file operand: opening it (a directory opens to
//! nothing, and reads as EISDIR, as in GNU), the `==> NAME <==` header, the read/write
//! failure split and its report, and the block loop over a reader; `rev` uses the failure
//! split. tail reaches it through the registry (`crate::registry::cmd_head::operands`).

use std::ffi::OsStr;
use std::io::{self, BufRead, Write};

use common::args::os_bytes;
use common::io::{open_input, quote, Input};
use common::{strerror, Io, UError};

/// A failed read goes on to the next file; a failed write ends the command.
pub enum Failure {
    Read(io::Error),
    Write(io::Error),
}

/// An opened operand: its name as headers and messages show it, and its input (None for a
/// directory).
pub struct Operand<'a> {
    pub display: String,
    pub is_stdin: bool,
    pub input: Option<Input<'a>>,
}

/// Opens `file` (`-`: `stdin`); the error is GNU's `cannot open 'F' for reading: reason`.
pub fn open<'a>(file: &OsStr, stdin: &'a mut dyn BufRead) -> Result<Operand<'a>, String> {
    let is_stdin = os_bytes(file) == b"-";
    let display = if is_stdin { "standard input".to_string() } else { file.to_string_lossy().into_owned() };
    let is_dir = !is_stdin && std::fs::metadata(file).map(|m| m.is_dir()).unwrap_or(false);
    let input = if is_dir {
        None
    } else {
        Some(open_input(file, stdin).map_err(|e| format!("cannot open {} for reading: {}", quote(file), strerror(&e)))?)
    };
    Ok(Operand { display, is_stdin, input })
}

/// Runs `f` on the operand's reader; a directory fails as a read of EISDIR.
pub fn read(input: Option<&mut Input>, f: impl FnOnce(&mut Input) -> Result<(), Failure>) -> Result<(), Failure> {
    match input {
        None => Err(Failure::Read(io::Error::from_raw_os_error(airlock_sys::errno::os::ISDIR))),
        Some(i) => f(i),
    }
}

/// `==> NAME <==`, with a blank line before all but the first.
pub fn header(out: &mut dyn Write, first: &mut bool, display: &str) -> Result<(), UError> {
    let header = format!("{}==> {} <==\n", if *first { "" } else { "\n" }, display);
    *first = false;
    out.write_all(header.as_bytes()).map_err(|e| UError::write(&e))
}

/// The status a file's result leaves: 1 after a read error (reported), a write error ends the
/// command.
pub fn report(io: &mut Io, result: Result<(), Failure>, display: &str) -> Result<i32, UError> {
    match result {
        Ok(()) => Ok(0),
        Err(Failure::Read(e)) => {
            io.error(format!("error reading {}: {}", quote(OsStr::new(display)), strerror(&e)));
            Ok(1)
        }
        Err(Failure::Write(e)) => Err(UError::write(&e)),
    }
}

/// Calls `f` with each block the reader holds, consuming as much as `f` says; stops at EOF
/// or when `f` returns `None`.
pub fn each_block(reader: &mut dyn BufRead, mut f: impl FnMut(&[u8]) -> Result<Option<usize>, Failure>) -> Result<(), Failure> {
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        };
        if buf.is_empty() {
            return Ok(());
        }
        let len = buf.len();
        match f(buf)? {
            Some(used) => reader.consume(used.min(len)),
            None => return Ok(()),
        }
    }
}
