//! `paste`: joins corresponding lines of files side by side (or, with -s, all lines of
//! each file into one), cycling through the -d delimiter list (`\0` is "no delimiter").

use std::ffi::OsString;
use std::io::{self, BufRead};

use common::args::{os_bytes, Command};
use common::io::{open_input, Input};
use common::{strerror, Io, UError};

const SPEC: &str = "d,delimiters: s,serial z,zero-terminated";

const PASTE: Command = Command::compact("paste", SPEC, HELP);

const HELP: &str = "Usage: paste [OPTION]... [FILE]...
Write lines consisting of the sequentially corresponding lines from
each FILE, separated by TABs, to standard output.

With no FILE, or when FILE is -, read standard input.

  -d, --delimiters=LIST   reuse characters from LIST instead of TABs
  -s, --serial            paste one file at a time instead of in parallel
  -z, --zero-terminated    line delimiter is NUL, not newline
{standard}";

/// The -d list: each entry is one byte, or empty for `\0`.
fn parse_delimiters(list: &[u8]) -> Result<Vec<Option<u8>>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let c = list[i];
        i += 1;
        if c != b'\\' {
            out.push(Some(c));
            continue;
        }
        if i >= list.len() {
            return Err(format!("delimiter list ends with an unescaped backslash: {}", String::from_utf8_lossy(list)));
        }
        let e = list[i];
        i += 1;
        out.push(match e {
            b'0' => None,
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'b' => Some(8),
            b'f' => Some(12),
            b'r' => Some(b'\r'),
            b'v' => Some(11),
            other => Some(other),
        });
    }
    Ok(out)
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut delimiters = vec![Some(b'\t')];
    // As GNU's paste, the delimiters (the last -d) are read after the options.
    let seen = PASTE.seen(&args, io)?;
    if let Some(list) = seen.value("d") {
        delimiters = parse_delimiters(os_bytes(list)).map_err(|message| UError::new(1, message))?;
    }
    let (serial, eol) = (seen.flag("s"), if seen.flag("z") { 0 } else { b'\n' });
    let mut files = seen.operands;
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    if delimiters.is_empty() {
        delimiters.push(None);
    }
    let result = if serial { paste_serial(io, &files, &delimiters, eol) } else { paste_parallel(io, &files, &delimiters, eol) };
    match result {
        Ok(status) => Ok(status),
        Err(e) => Err(UError::write(&e)),
    }
}

fn put_delimiter(out: &mut Vec<u8>, d: Option<u8>) {
    if let Some(c) = d {
        out.push(c);
    }
}

/// Reads one line without its terminator; None at end of input.
fn read_line(reader: &mut dyn BufRead, eol: u8, line: &mut Vec<u8>) -> io::Result<Option<()>> {
    line.clear();
    if reader.read_until(eol, line)? == 0 {
        return Ok(None);
    }
    if line.last() == Some(&eol) {
        line.pop();
    }
    Ok(Some(()))
}

fn paste_serial(io: &mut Io, files: &[OsString], delimiters: &[Option<u8>], eol: u8) -> io::Result<i32> {
    let mut status = 0;
    let mut line = Vec::new();
    for file in files {
        let mut input = match open_input(file, &mut *io.stdin) {
            Ok(i) => i,
            Err(e) => {
                io.error(format!("{}: {}", file.to_string_lossy(), strerror(&e)));
                status = 1;
                continue;
            }
        };
        let mut out = Vec::new();
        let mut n = 0;
        loop {
            match read_line(input.reader(), eol, &mut line) {
                Ok(Some(())) => {}
                Ok(None) => break,
                Err(e) => {
                    drop(input);
                    io.error(format!("{}: {}", file.to_string_lossy(), strerror(&e)));
                    return Ok(1);
                }
            }
            if n > 0 {
                put_delimiter(&mut out, delimiters[(n - 1) % delimiters.len()]);
            }
            out.extend_from_slice(&line);
            n += 1;
            if out.len() > 64 * 1024 {
                io.stdout.write_all(&out)?;
                out.clear();
            }
        }
        drop(input);
        out.push(eol);
        io.stdout.write_all(&out)?;
    }
    Ok(status)
}

fn paste_parallel(io: &mut Io, files: &[OsString], delimiters: &[Option<u8>], eol: u8) -> io::Result<i32> {
    // Files are opened up front; every `-` shares standard input, read in turn.
    let mut readers: Vec<Option<io::BufReader<std::fs::File>>> = Vec::new();
    for file in files {
        if os_bytes(file) == b"-" {
            readers.push(None);
            continue;
        }
        match open_input(file, &mut *io.stdin) {
            Ok(Input::File(r)) => readers.push(Some(r)),
            Ok(Input::Stdin(_)) => readers.push(None),
            Err(e) => {
                io.error(format!("{}: {}", file.to_string_lossy(), strerror(&e)));
                return Ok(1);
            }
        }
    }
    let mut done = vec![false; files.len()];
    let mut line = Vec::new();
    let mut out = Vec::new();
    loop {
        out.clear();
        let mut any = false;
        for i in 0..files.len() {
            let got = if done[i] {
                None
            } else {
                let reader: &mut dyn BufRead = match readers[i].as_mut() {
                    Some(r) => r,
                    None => &mut *io.stdin,
                };
                match read_line(reader, eol, &mut line) {
                    Ok(g) => g,
                    Err(e) => {
                        io.error(format!("{}: {}", files[i].to_string_lossy(), strerror(&e)));
                        return Ok(1);
                    }
                }
            };
            if got.is_none() {
                done[i] = true;
            } else {
                any = true;
                out.extend_from_slice(&line);
            }
            if i + 1 < files.len() {
                put_delimiter(&mut out, delimiters[i % delimiters.len()]);
            }
        }
        if !any {
            return Ok(0);
        }
        out.push(eol);
        io.stdout.write_all(&out)?;
    }
}
