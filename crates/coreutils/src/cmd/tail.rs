//! `tail`: the last N lines or bytes of each file, or everything from line/byte N on (`+N`).
//! Regular files are read backwards from the end with seeks; pipes are streamed through a
//! buffer trimmed as it grows, so memory stays near the size of the answer. `-f`/`-F` keep
//! polling the files (`tail/follow.rs`) until the run's deadline.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, Read, Seek, SeekFrom, Write};
use std::time::Duration;

use common::args::{os_bytes, Command, Parsed};
use common::io::{quote, Input};
use common::{Io, UError};

#[path = "tail/follow.rs"]
mod follow;

use crate::registry::cmd_head::operands::{self, each_block, Failure};

const SPEC: &str = "c,bytes: f follow:: F n,lines: max-unchanged-stats: pid: q,quiet q=silent retry s,sleep-interval: v,verbose z,zero-terminated";

const TAIL: Command = Command::compact("tail", SPEC, HELP);

const HELP: &str = "Usage: tail [OPTION]... [FILE]...
Print the last 10 lines of each FILE to standard output.
With more than one FILE, precede each with a header giving the file name.

With no FILE, or when FILE is -, read standard input.

  -c, --bytes=[+]NUM       output the last NUM bytes; or use -c +NUM to
                             output starting with byte NUM of each file
  -f, --follow[={name|descriptor}]
                           output appended data as the file grows;
                             an absent option argument means 'descriptor'
  -F                       same as --follow=name --retry
  -n, --lines=[+]NUM       output the last NUM lines, instead of the last 10;
                             or use -n +NUM to skip NUM-1 lines at the start
      --max-unchanged-stats=N  (accepted; the sandbox always polls)
  -q, --quiet, --silent    never output headers giving file names
      --retry              keep trying to open a file if it is inaccessible
  -s, --sleep-interval=N   with -f, sleep for approximately N seconds
                             (default 1.0) between iterations
  -v, --verbose            always output headers giving file names
  -z, --zero-terminated    line delimiter is NUL, not newline
{standard}
In the sandbox, -f follows until the run's deadline.
";

#[derive(Clone, Copy)]
pub struct Count {
    bytes: bool,
    /// `+N`: start at line/byte N instead of counting from the end.
    from_start: bool,
    n: u64,
}

/// Turns an obsolete first argument (`-5`, `+5`, `-5c`, `+2l`, `-3f`) into modern options.
fn expand_obsolete(args: &[OsString]) -> Vec<OsString> {
    let first = match args.get(1) {
        Some(f) => os_bytes(f),
        None => return args.to_vec(),
    };
    if first.len() < 2 || (first[0] != b'-' && first[0] != b'+') {
        return args.to_vec();
    }
    let body = &first[1..];
    let digits = body.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 && first[0] == b'-' {
        return args.to_vec();
    }
    let mut rest = &body[digits..];
    let mut opt = "-n";
    let mut unit = "";
    match rest.first() {
        Some(b'c') => opt = "-c",
        Some(b'b') => {
            opt = "-c";
            unit = "b";
        }
        _ => {}
    }
    if matches!(rest.first(), Some(b'c') | Some(b'b') | Some(b'l')) {
        rest = &rest[1..];
    }
    let follow = rest == b"f";
    // `+FILE` (no digits) and anything else stays as it is; so does `+N` before several
    // operands, which POSIX 2008 reads as a file name.
    if (!follow && !rest.is_empty()) || digits == 0 || args.len() > 3 {
        return args.to_vec();
    }
    let sign = if first[0] == b'+' { "+" } else { "" };
    let number = format!("{}{}{}", sign, String::from_utf8_lossy(&body[..digits]), unit);
    let mut out = vec![args[0].clone(), OsString::from(opt), OsString::from(number)];
    if follow {
        out.push(OsString::from("-f"));
    }
    out.extend(args[2..].iter().cloned());
    out
}

fn parse_count(text: &OsString, bytes: bool) -> Result<Count, String> {
    // GNU treats a count too large to represent as "everything".
    let (sign, n) = operands::parse_count(text, bytes, true)?;
    Ok(Count { bytes, from_start: sign == b'+', n })
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum FollowMode {
    None,
    Descriptor,
    Name,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let args = expand_obsolete(&args);
    // A `-N` that is not the obsolete form (it needs a single operand) is GNU's digit option.
    if let Some(digit) = args.iter().skip(1).map(|a| os_bytes(a)).take_while(|a| *a != b"--").find_map(|a| match a {
        [b'-', d, ..] if d.is_ascii_digit() => Some(*d as char),
        _ => None,
    }) {
        return Err(UError::new(1, format!("option used in invalid context -- {}", digit)));
    }
    let mut count = Count { bytes: false, from_start: false, n: 10 };
    let mut headers: Option<bool> = None;
    let mut delimiter = b'\n';
    let mut mode = FollowMode::None;
    let mut retry = false;
    let mut sleep = Duration::from_secs(1);
    let mut files = Vec::new();
    TAIL.options(&args, io, &mut |_, p| {
        match p {
            Parsed::Operand(f) => files.push(f),
            Parsed::Opt { id, value } => {
                let value = value.unwrap_or_default();
                match id {
                    "c" | "n" => match parse_count(&value, id == "c") {
                        Ok(c) => count = c,
                        Err(message) => {
                            return Err(UError::new(1, message));
                        }
                    },
                    "f" => mode = FollowMode::Descriptor,
                    "follow" => match value.to_str() {
                        Some("") => mode = FollowMode::Descriptor,
                        Some(v) if "descriptor".starts_with(v) => mode = FollowMode::Descriptor,
                        Some(v) if "name".starts_with(v) => mode = FollowMode::Name,
                        _ => {
                            return Err(UError::usage(1, format!("invalid argument {} for '--follow'\nValid arguments are:\n  - 'name'\n  - 'descriptor'", quote(&value))));
                        }
                    },
                    "F" => {
                        mode = FollowMode::Name;
                        retry = true;
                    }
                    "max-unchanged-stats" => {}
                    "pid" => {
                        return Err(UError::new(1, "option not supported in the sandbox: --pid"));
                    }
                    "q" => headers = Some(false),
                    "v" => headers = Some(true),
                    "retry" => retry = true,
                    "s" => match value.to_str().and_then(|v| v.parse::<f64>().ok()).filter(|v| *v >= 0.0 && v.is_finite()) {
                        Some(secs) => sleep = Duration::from_secs_f64(secs),
                        None => {
                            return Err(UError::new(1, format!("invalid number of seconds: {}", quote(&value))));
                        }
                    },
                    "z" => delimiter = 0,
                    _ => {}
                }
            }
        }
        Ok(())
    })?;
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    let show_headers = headers.unwrap_or(files.len() > 1);
    let mut followed = Vec::new();
    let status = operands::each_operand(io, &files, show_headers, |i, out| tail(i, out, count, delimiter), |file, opened| match opened {
        None if mode == FollowMode::Name && retry && os_bytes(file) != b"-" => followed.push(follow::Followed::missing(file.clone(), file.to_string_lossy().into_owned())),
        Some((display, Some(Input::File(reader)))) if mode != FollowMode::None => {
            let f = reader.into_inner();
            if f.metadata().map(|m| m.is_file()).unwrap_or(false) {
                followed.push(follow::Followed::open(file.clone(), display.to_string(), f));
            }
        }
        _ => {}
    })?;
    if mode == FollowMode::None {
        return Ok(status);
    }
    if let Err(e) = io.stdout.flush() {
        return Err(UError::write(&e));
    }
    let settings = follow::Settings { by_name: mode == FollowMode::Name, retry, sleep, show_headers };
    Ok(follow::follow(io, followed, settings, status))
}

fn tail(input: &mut Input, out: &mut dyn Write, count: Count, delimiter: u8) -> Result<(), Failure> {
    if count.from_start {
        let reader = input.reader();
        return if count.bytes { skip_bytes(reader, out, count.n) } else { skip_lines(reader, out, count.n, delimiter) };
    }
    if let Input::File(reader) = input {
        let regular = reader.get_ref().metadata().map(|m| m.is_file()).unwrap_or(false);
        if regular {
            return tail_file(reader.get_mut(), out, count, delimiter);
        }
    }
    tail_stream(input.reader(), out, count, delimiter)
}

/// `+N`: copies everything after the first N-1 bytes.
fn skip_bytes(reader: &mut dyn BufRead, out: &mut dyn Write, n: u64) -> Result<(), Failure> {
    let mut skip = n.saturating_sub(1);
    copy_rest(reader, out, |buf| {
        let s = (buf.len() as u64).min(skip) as usize;
        skip -= s as u64;
        s
    })
}

/// `+N`: copies everything after the first N-1 lines.
fn skip_lines(reader: &mut dyn BufRead, out: &mut dyn Write, n: u64, delimiter: u8) -> Result<(), Failure> {
    let mut skip = n.saturating_sub(1);
    copy_rest(reader, out, |buf| {
        if skip == 0 {
            return 0;
        }
        for pos in memchr::memchr_iter(delimiter, buf) {
            skip -= 1;
            if skip == 0 {
                return pos + 1;
            }
        }
        buf.len()
    })
}

/// Copies the reader to `out`, dropping the first `drop(block)` bytes of each block.
fn copy_rest(reader: &mut dyn BufRead, out: &mut dyn Write, mut drop: impl FnMut(&[u8]) -> usize) -> Result<(), Failure> {
    each_block(reader, |buf| {
        let skipped = drop(buf);
        out.write_all(&buf[skipped..]).map_err(Failure::Write)?;
        Ok(Some(buf.len()))
    })
}

/// Where the last `n` lines of `buf` start (a final unterminated line counts as one).
pub fn last_lines_start(buf: &[u8], n: u64, delimiter: u8) -> usize {
    if n == 0 {
        return buf.len();
    }
    let end = if buf.last() == Some(&delimiter) { buf.len() - 1 } else { buf.len() };
    let mut left = n;
    for pos in memchr::memrchr_iter(delimiter, &buf[..end]) {
        left -= 1;
        if left == 0 {
            return pos + 1;
        }
    }
    0
}

fn tail_stream(reader: &mut dyn BufRead, out: &mut dyn Write, count: Count, delimiter: u8) -> Result<(), Failure> {
    const TRIM_AT: usize = 1 << 20;
    let mut buf: Vec<u8> = Vec::new();
    let mut threshold = TRIM_AT;
    let trim = |buf: &[u8]| -> usize {
        if count.bytes {
            buf.len().saturating_sub(usize::try_from(count.n).unwrap_or(usize::MAX))
        } else {
            last_lines_start(buf, count.n, delimiter)
        }
    };
    each_block(reader, |chunk| {
        buf.extend_from_slice(chunk);
        if buf.len() > threshold {
            let start = trim(&buf);
            buf.drain(..start);
            threshold = (buf.len() * 2).max(TRIM_AT);
        }
        Ok(Some(chunk.len()))
    })?;
    let start = trim(&buf);
    out.write_all(&buf[start..]).map_err(Failure::Write)
}

/// The last lines/bytes of a regular file, found by reading backwards from its end.
fn tail_file(file: &mut File, out: &mut dyn Write, count: Count, delimiter: u8) -> Result<(), Failure> {
    const BLOCK: u64 = 64 * 1024;
    let size = file.seek(SeekFrom::End(0)).map_err(Failure::Read)?;
    let start = if count.bytes || count.n == 0 {
        size.saturating_sub(if count.bytes { count.n } else { 0 })
    } else {
        let mut pos = size;
        let mut left = count.n;
        let mut found = 0;
        let mut block = vec![0u8; BLOCK as usize];
        let mut skip_final = true;
        while pos > 0 && left > 0 {
            let from = pos.saturating_sub(BLOCK);
            let len = (pos - from) as usize;
            file.seek(SeekFrom::Start(from)).map_err(Failure::Read)?;
            file.read_exact(&mut block[..len]).map_err(Failure::Read)?;
            let mut end = len;
            if skip_final {
                // The file's final delimiter ends the last line; it does not start one.
                if block[len - 1] == delimiter {
                    end -= 1;
                }
                skip_final = false;
            }
            for p in memchr::memrchr_iter(delimiter, &block[..end]) {
                left -= 1;
                if left == 0 {
                    found = from + p as u64 + 1;
                    break;
                }
            }
            pos = from;
        }
        if left == 0 {
            found
        } else {
            0
        }
    };
    file.seek(SeekFrom::Start(start)).map_err(Failure::Read)?;
    let mut reader = io::BufReader::with_capacity(64 * 1024, file);
    copy_rest(&mut reader, out, |_| 0)
}
