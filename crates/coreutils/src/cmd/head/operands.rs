//! What `head` and `tail` share: the `-n`/`-c` count, and the loop over the file operands:
//! opening each (a directory opens to nothing, and reads as EISDIR, as in GNU), the
//! `==> NAME <==` header, the read/write failure split and its report; and the block loop
//! over a reader. `rev` uses the failure split. tail reaches it through the registry
//! (`crate::registry::cmd_head::operands`).

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, Write};

use common::args::os_bytes;
use common::io::{open_input, quote, Input};
use common::size::{parse_size, SizeError, HEAD_SUFFIXES};
use common::{strerror, Io, UError};

/// A failed read goes on to the next file; a failed write ends the command.
pub use common::io::Failure;

/// A `-n`/`-c` value: its sign (`b'+'`, `b'-'` or 0) and its number, which may have a
/// size suffix. A number too large to represent is `u64::MAX` when `too_large_is_all`
/// (tail's "everything"), else an error; both errors are GNU's words.
pub fn parse_count(text: &OsStr, bytes: bool, too_large_is_all: bool) -> Result<(u8, u64), String> {
    let s = text.to_string_lossy();
    let sign = match s.as_bytes().first() {
        Some(b'+') => b'+',
        Some(b'-') => b'-',
        _ => 0,
    };
    let digits = if sign == 0 { &s[..] } else { &s[1..] };
    let what = if bytes { "bytes" } else { "lines" };
    match parse_size(digits, HEAD_SUFFIXES) {
        Ok(n) => Ok((sign, n)),
        Err(SizeError::TooLarge) if too_large_is_all => Ok((sign, u64::MAX)),
        Err(SizeError::TooLarge) => Err(format!("invalid number of {}: {}: Value too large for defined data type", what, quote(text))),
        Err(SizeError::Invalid) => Err(format!("invalid number of {}: {}", what, quote(text))),
    }
}

/// An opened operand: its name as headers and messages show it, and its input (None for a
/// directory).
struct Operand<'a> {
    display: String,
    input: Option<Input<'a>>,
}

/// head's and tail's loop over `files`: opens each (a failure is reported and leaves status
/// 1), prints its header when `headers`, runs `f` on it with standard output, and reports the
/// result. `after` sees each file with, once opened, its display name and its input (None
/// for a directory), or None when it could not be opened. A write error ends the loop.
pub fn each_operand(
    io: &mut Io,
    files: &[OsString],
    headers: bool,
    mut f: impl FnMut(&mut Input, &mut dyn Write) -> Result<(), Failure>,
    mut after: impl FnMut(&OsString, Option<(&str, Option<Input>)>),
) -> Result<i32, UError> {
    let mut status = 0;
    let mut first = true;
    for file in files {
        let mut operand = match open(file, &mut *io.stdin) {
            Ok(o) => o,
            Err(message) => {
                io.error(message);
                status = 1;
                after(file, None);
                continue;
            }
        };
        if headers {
            header(io.stdout, &mut first, &operand.display)?;
        }
        let result = read(operand.input.as_mut(), |i| f(i, io.stdout));
        // `after` takes the input first: it may borrow standard input, which `report` needs.
        let Operand { display, input } = operand;
        after(file, Some((&display, input)));
        status |= report(io, result, &display)?;
    }
    Ok(status)
}

/// Opens `file` (`-`: `stdin`); the error is GNU's `cannot open 'F' for reading: reason`.
fn open<'a>(file: &OsStr, stdin: &'a mut dyn BufRead) -> Result<Operand<'a>, String> {
    let is_stdin = os_bytes(file) == b"-";
    let display = if is_stdin { "standard input".to_string() } else { file.to_string_lossy().into_owned() };
    let is_dir = !is_stdin && std::fs::metadata(file).map(|m| m.is_dir()).unwrap_or(false);
    let input = if is_dir {
        None
    } else {
        Some(open_input(file, stdin).map_err(|e| format!("cannot open {} for reading: {}", quote(file), strerror(&e)))?)
    };
    Ok(Operand { display, input })
}

/// Runs `f` on the operand's reader; a directory fails as a read of EISDIR.
fn read(input: Option<&mut Input>, f: impl FnOnce(&mut Input) -> Result<(), Failure>) -> Result<(), Failure> {
    match input {
        None => Err(Failure::Read(io::Error::from_raw_os_error(airlock_sys::errno::os::ISDIR))),
        Some(i) => f(i),
    }
}

/// `==> NAME <==`, with a blank line before all but the first.
fn header(out: &mut dyn Write, first: &mut bool, display: &str) -> Result<(), UError> {
    let header = format!("{}==> {} <==\n", if *first { "" } else { "\n" }, display);
    *first = false;
    out.write_all(header.as_bytes()).map_err(|e| UError::write(&e))
}

/// The status a file's result leaves: 1 after a read error (reported), a write error ends the
/// command.
fn report(io: &mut Io, result: Result<(), Failure>, display: &str) -> Result<i32, UError> {
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
