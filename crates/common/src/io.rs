//! A command's standard streams. Binary-safe (bytes in, bytes out); stdout is buffered in
//! 64 KiB blocks rather than per line, so a stage of a pipeline writes in large chunks.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};

use crate::args::{os_bytes, ArgError};
use crate::error::{strerror, UError};

pub const BUFFER_SIZE: usize = 64 * 1024;

/// The three streams plus the name the command was invoked as (for messages).
pub struct Io<'a> {
    pub name: String,
    pub stdin: &'a mut dyn BufRead,
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
}

impl<'a> Io<'a> {
    /// Prints `name: message` on stderr.
    pub fn error(&mut self, message: impl std::fmt::Display) {
        let _ = writeln!(self.stderr, "{}: {}", self.name, message);
    }

    /// Prints a UError (nothing if its message is empty) and returns its status.
    pub fn fail(&mut self, error: UError) -> i32 {
        if !error.message.is_empty() {
            self.error(&error.message);
        }
        if error.usage {
            self.try_help();
        }
        error.status
    }

    /// A command's result as an exit status, its error printed.
    pub fn finish(&mut self, result: Result<i32, UError>) -> i32 {
        match result {
            Ok(status) => status,
            Err(error) => self.fail(error),
        }
    }

    /// Prints an option error and GNU's hint, and returns `status` (the command's usage status).
    pub fn usage_error(&mut self, error: &ArgError, status: i32) -> i32 {
        self.error(error);
        self.try_help();
        status
    }

    /// `Try 'NAME --help' for more information.`
    pub fn try_help(&mut self) {
        let _ = writeln!(self.stderr, "Try '{} --help' for more information.", self.name);
    }

    /// Writes to stdout; an EPIPE is reported as Err so callers can stop quietly.
    pub fn out(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stdout.write_all(bytes)
    }
}

/// An input operand: `-` is stdin, anything else a file opened for reading.
pub enum Input<'a> {
    Stdin(&'a mut dyn BufRead),
    File(BufReader<File>),
}

impl<'a> Input<'a> {
    pub fn reader(&mut self) -> &mut dyn BufRead {
        match self {
            Input::Stdin(r) => *r,
            Input::File(r) => r,
        }
    }
}

/// Opens `path` for reading (`-` = stdin). Directories are an error, as in GNU tools.
pub fn open_input<'a>(path: &OsStr, stdin: &'a mut dyn BufRead) -> io::Result<Input<'a>> {
    if os_bytes(path) == b"-" {
        return Ok(Input::Stdin(stdin));
    }
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::from_raw_os_error(airlock_sys::errno::os::ISDIR));
    }
    Ok(Input::File(BufReader::with_capacity(BUFFER_SIZE, file)))
}

/// Why filtering one input stopped: reading it failed, or writing the output did.
pub enum Failure {
    Read(io::Error),
    Write(io::Error),
}

/// Runs `filter` over each operand (`-` is stdin) in GNU's shape: an input that cannot be
/// opened or read is reported as `name: FILE: reason` and the next one follows (status 1);
/// a failed write ends the command (`UError::write`).
pub fn filter_inputs(io: &mut Io, files: &[std::ffi::OsString], filter: &mut dyn FnMut(&mut dyn BufRead, &mut dyn Write) -> Result<(), Failure>) -> Result<i32, UError> {
    let mut status = 0;
    for file in files {
        let result = match open_input(file, &mut *io.stdin) {
            Ok(mut input) => filter(input.reader(), io.stdout),
            Err(e) => Err(Failure::Read(e)),
        };
        match result {
            Ok(()) => {}
            Err(Failure::Read(e)) => {
                io.error(describe(file, &e));
                status = 1;
            }
            Err(Failure::Write(e)) => return Err(UError::write(&e)),
        }
    }
    Ok(status)
}

/// Calls `f` with every block `reader` yields, as it yields them (checksums, counts).
pub fn for_each_block(reader: &mut dyn BufRead, mut f: impl FnMut(&[u8])) -> io::Result<()> {
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(());
        }
        f(buf);
        let n = buf.len();
        reader.consume(n);
    }
}

/// Calls `f` with each line (including its terminator, if any) read from `reader`, split
/// at `delimiter` (b'\n', or 0 for -z). Stops early when `f` returns false.
pub fn for_each_line(reader: &mut dyn BufRead, delimiter: u8, mut f: impl FnMut(&[u8]) -> io::Result<bool>) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(delimiter, &mut line)?;
        if n == 0 {
            return Ok(());
        }
        if !f(&line)? {
            return Ok(());
        }
    }
}

/// The names a `--files0-from=LIST` option reads (wc, du, sort): NUL-separated, from the
/// file LIST or stdin for `-`; a trailing NUL ends the last name rather than adding an empty one.
pub fn read_names0(list: &OsStr, stdin: &mut dyn BufRead) -> io::Result<Vec<std::ffi::OsString>> {
    let mut input = open_input(list, stdin)?;
    let mut data = Vec::new();
    input.reader().read_to_end(&mut data)?;
    let mut names: Vec<std::ffi::OsString> = data.split(|b| *b == 0).map(crate::args::bytes_os).collect();
    if data.last() == Some(&0) || data.is_empty() {
        names.pop();
    }
    Ok(names)
}

/// Reads everything from `reader`.
pub fn read_all(reader: &mut dyn Read) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    reader.read_to_end(&mut out)?;
    Ok(out)
}

/// A file error in GNU's words: `cannot open 'x' for reading: No such file or directory`
/// shapes vary by tool, so this only gives `'x': reason` pieces.
pub fn describe(path: &OsStr, error: &io::Error) -> String {
    format!("{}: {}", path.to_string_lossy(), strerror(error))
}

/// GNU's quoting of a file name in messages: 'name' (with shell-escaping when needed).
pub fn quote(path: &OsStr) -> String {
    let text = path.to_string_lossy();
    if text.contains('\'') {
        format!("\"{}\"", text)
    } else {
        format!("'{}'", text)
    }
}

/// Runs a command with the process's real streams (the wasm main and native binaries).
pub fn run_with_std(name: String, run: impl FnOnce(&mut Io) -> i32) -> i32 {
    let stdin = io::stdin();
    let mut stdin_lock = BufReader::with_capacity(BUFFER_SIZE, stdin.lock());
    let stdout = io::stdout();
    let mut stdout_buf = io::BufWriter::with_capacity(BUFFER_SIZE, stdout.lock());
    let stderr = io::stderr();
    let mut stderr_lock = stderr.lock();
    let status = {
        let mut io = Io { name: name.clone(), stdin: &mut stdin_lock, stdout: &mut stdout_buf, stderr: &mut stderr_lock };
        run(&mut io)
    };
    match stdout_buf.flush() {
        Ok(()) => status,
        Err(e) if crate::error::is_broken_pipe(&e) => status,
        Err(e) => {
            let _ = writeln!(stderr_lock, "{}: write error: {}", name, strerror(&e));
            if status == 0 {
                1
            } else {
                status
            }
        }
    }
}
