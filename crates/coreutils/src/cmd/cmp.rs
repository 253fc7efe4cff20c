//! command: cmp
//! `cmp`: compares two files byte by byte (GNU diffutils 3.8). Streams both inputs in
//! blocks, so it stops at the first difference of endless inputs and stays in bounded
//! memory; `-l` lists every differing byte.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};

use common::args::{os_bytes, ArgError, UsageError};
use common::io::{quote, BUFFER_SIZE};
use common::{strerror, Command, Io, UError};

const SPEC: &str = "print-bytes,b ignore-initial,i: verbose,l bytes,n: quiet,s quiet=silent help version,v";

const HELP: &str = "Usage: cmp [OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]
Compare two files byte by byte.

The optional SKIP1 and SKIP2 specify the number of bytes to skip
at the beginning of each file (zero by default).

Mandatory arguments to long options are mandatory for short options too.
  -b, --print-bytes          print differing bytes
  -i, --ignore-initial=SKIP         skip first SKIP bytes of both inputs
  -i, --ignore-initial=SKIP1:SKIP2  skip first SKIP1 bytes of FILE1 and
                                      first SKIP2 bytes of FILE2
  -l, --verbose              output byte numbers and differing byte values
  -n, --bytes=LIMIT          compare at most LIMIT bytes
  -s, --quiet, --silent      suppress all normal output
      --help                 display this help and exit
  -v, --version              output version information and exit

SKIP values may be followed by the following multiplicative suffixes:
kB 1000, K 1024, MB 1,000,000, M 1,048,576,
GB 1,000,000,000, G 1,073,741,824, and so on for T, P, E, Z, Y.

If a FILE is '-' or missing, read standard input.
Exit status is 0 if inputs are the same, 1 if different, 2 if trouble.
";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    First,
    All,
    Silent,
}

struct Options {
    mode: Mode,
    print_bytes: bool,
    skip: [u64; 2],
    limit: Option<u64>,
}

/// GNU cmp's numbers: digits with kB/K/KiB-style suffixes (xstrtoumax with
/// "kKMGTPEZY0"); a value too large to represent means "no limit", as in GNU.
fn parse_size(text: &str) -> Option<u64> {
    match common::size::parse_size(text, "kKMGTPEZY0") {
        Ok(n) => Some(n),
        Err(common::size::SizeError::TooLarge) => Some(u64::MAX),
        Err(common::size::SizeError::Invalid) => None,
    }
}

/// GNU cmp words its usage errors with its name on the hint line too.
const CMP: Command = Command { usage_error: Some(UsageError(bad_option)), ..Command::compact("cmp", SPEC, HELP) };

fn bad_option(io: &mut Io, error: ArgError) -> UError {
    usage(io, &error.to_string())
}

fn usage(io: &mut Io, message: &str) -> UError {
    let _ = writeln!(io.stderr, "{}: {}", io.name, message);
    let _ = writeln!(io.stderr, "{}: Try '{} --help' for more information.", io.name, io.name);
    UError::exit(2)
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut options = Options { mode: Mode::First, print_bytes: false, skip: [0, 0], limit: None };
    let mut verbose = false;
    let mut silent = false;
    let operands = CMP.operands(&args, io, &mut |io, id, value| {
        let value = value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
        match id {
            "print-bytes" => options.print_bytes = true,
            "verbose" => verbose = true,
            "quiet" => silent = true,
            "bytes" => match parse_size(&value) {
                Some(n) => options.limit = Some(options.limit.map_or(n, |old| old.min(n))),
                None => return Err(usage(io, &format!("invalid --bytes value {}", quote(std::ffi::OsStr::new(&value))))),
            },
            "ignore-initial" => {
                let (first, second) = match value.find(':') {
                    Some(colon) => (&value[..colon], Some(&value[colon + 1..])),
                    None => (&value[..], None),
                };
                let a = parse_size(first);
                let b = match second {
                    Some(s) => parse_size(s),
                    None => a,
                };
                match (a, b) {
                    (Some(a), Some(b)) => options.skip = [a, b],
                    (None, _) => return Err(usage(io, &format!("invalid --ignore-initial value {}", quote(std::ffi::OsStr::new(first))))),
                    (_, None) => return Err(usage(io, &format!("invalid --ignore-initial value {}", quote(std::ffi::OsStr::new(second.unwrap_or("")))))),
                }
            }
            _ => {}
        }
        Ok(())
    })?;
    if verbose && silent {
        return Err(usage(io, "options -l and -s are incompatible"));
    }
    options.mode = if silent {
        Mode::Silent
    } else if verbose {
        Mode::All
    } else {
        Mode::First
    };
    if operands.is_empty() {
        return Err(usage(io, &format!("missing operand after {}", quote(args[0].as_os_str()))));
    }
    for k in 0..2 {
        if let Some(text) = operands.get(k + 2) {
            let text = text.to_string_lossy();
            match parse_size(&text) {
                Some(n) => options.skip[k] = n,
                None => return Err(usage(io, &format!("invalid --ignore-initial value {}", quote(std::ffi::OsStr::new(text.as_ref()))))),
            }
        }
    }
    if operands.len() > 4 {
        return Err(usage(io, &format!("extra operand {}", quote(&operands[4]))));
    }
    let names = [operands[0].clone(), operands.get(1).cloned().unwrap_or_else(|| OsString::from("-"))];
    if os_bytes(&names[0]) == b"-" && os_bytes(&names[1]) == b"-" && options.skip[0] == options.skip[1] {
        return Ok(0);
    }
    let mut files: Vec<Option<BufReader<File>>> = Vec::new();
    let mut sizes: [Option<u64>; 2] = [None, None];
    for (k, name) in names.iter().enumerate() {
        if os_bytes(name) == b"-" {
            files.push(None);
            continue;
        }
        let opened = File::open(name).and_then(|f| {
            let meta = f.metadata()?;
            if meta.is_dir() {
                return Err(io::Error::from_raw_os_error(airlock_sys::errno::os::ISDIR));
            }
            if meta.is_file() {
                sizes[k] = Some(meta.len());
            }
            Ok(f)
        });
        match opened {
            Ok(f) => files.push(Some(BufReader::with_capacity(BUFFER_SIZE, f))),
            Err(e) => {
                // GNU's -s is silent about files it cannot open (not about directories).
                if !(silent && e.raw_os_error() != Some(airlock_sys::errno::os::ISDIR)) {
                    let _ = writeln!(io.stderr, "{}: {}: {}", io.name, name.to_string_lossy(), strerror(&e));
                }
                return Ok(2);
            }
        }
    }
    let mut second = files.pop().unwrap_or(None);
    let mut first = files.pop().unwrap_or(None);
    let result = {
        let stdin: &mut dyn BufRead = io.stdin;
        let (a, b): (&mut dyn BufRead, &mut dyn BufRead) = match (first.as_mut(), second.as_mut()) {
            (Some(a), Some(b)) => (a, b),
            (None, Some(b)) => (stdin, b),
            (Some(a), None) => (a, stdin),
            (None, None) => return Ok(0),
        };
        compare([a, b], &options, sizes, &names, io.stdout, io.stderr, &io.name)
    };
    match result {
        Ok(status) => Ok(status),
        Err((k, e)) => {
            if common::error::is_broken_pipe(&e) && k == 2 {
                return Ok(1);
            }
            let subject = if k < 2 { names[k].to_string_lossy().into_owned() } else { "write error".to_string() };
            Err(UError::new(2, format!("{}: {}", subject, strerror(&e))))
        }
    }
}

/// Reads and discards `count` bytes; false when the input ended first.
fn skip(reader: &mut dyn BufRead, mut count: u64) -> io::Result<()> {
    while count > 0 {
        let available = reader.fill_buf()?.len();
        if available == 0 {
            return Ok(());
        }
        let n = (available as u64).min(count) as usize;
        reader.consume(n);
        count -= n as u64;
    }
    Ok(())
}

/// cat -v style rendering used by `-b`: `^X` for controls, `M-` for the high half.
fn show_byte(b: u8) -> String {
    let mut out = String::new();
    let mut c = b;
    if c >= 0x80 {
        out.push_str("M-");
        c &= 0x7f;
    }
    if c < 0x20 {
        out.push('^');
        out.push((c + b'@') as char);
    } else if c == 0x7f {
        out.push_str("^?");
    } else {
        out.push(c as char);
    }
    out
}

type Failure = (usize, io::Error);

fn compare(readers: [&mut dyn BufRead; 2], options: &Options, sizes: [Option<u64>; 2], names: &[OsString; 2], out: &mut dyn Write, err: &mut dyn Write, name: &str) -> Result<i32, Failure> {
    let [a, b] = readers;
    skip(a, options.skip[0]).map_err(|e| (0, e))?;
    skip(b, options.skip[1]).map_err(|e| (1, e))?;
    let mut remaining = options.limit.unwrap_or(u64::MAX);
    // -l pads byte offsets to the width of the largest offset that can be reached.
    let mut width = 1;
    if options.mode == Mode::All {
        let mut max = remaining.min(i64::MAX as u64);
        for k in 0..2 {
            if let Some(size) = sizes[k] {
                max = max.min(size.saturating_sub(options.skip[k]));
            }
        }
        while max >= 10 {
            max /= 10;
            width += 1;
        }
    }
    let mut offset: u64 = 0;
    let mut lines: u64 = 0;
    let mut last_byte = b'\n';
    let mut differed = false;
    while remaining > 0 {
        let chunk_a = a.fill_buf().map_err(|e| (0, e))?;
        let chunk_b = b.fill_buf().map_err(|e| (1, e))?;
        let n = chunk_a.len().min(chunk_b.len()).min(remaining.min(usize::MAX as u64) as usize);
        if n == 0 {
            if chunk_a.is_empty() && chunk_b.is_empty() {
                break;
            }
            // One input ended: GNU reports EOF on the shorter one.
            let shorter = if chunk_a.is_empty() { 0 } else { 1 };
            if options.mode != Mode::Silent {
                let who = names[shorter].to_string_lossy();
                let message = if offset == 0 {
                    format!("{}: EOF on {} which is empty", name, who)
                } else if options.mode == Mode::All {
                    format!("{}: EOF on {} after byte {}", name, who, offset)
                } else if last_byte == b'\n' {
                    format!("{}: EOF on {} after byte {}, line {}", name, who, offset, lines)
                } else {
                    format!("{}: EOF on {} after byte {}, in line {}", name, who, offset, lines + 1)
                };
                // Like GNU, stdout is not flushed first: with `2>&1` into a file the
                // message comes before the buffered -l lines.
                let _ = writeln!(err, "{}", message);
            }
            return Ok(1);
        }
        let (sa, sb) = (&chunk_a[..n], &chunk_b[..n]);
        // Equal blocks (the common case) compare with one memcmp; lines are counted
        // only for the messages that show them.
        let count_lines = options.mode == Mode::First;
        let first_difference = if sa == sb { None } else { sa.iter().zip(sb).position(|(x, y)| x != y) };
        match first_difference {
            None => {
                if count_lines {
                    lines += memchr::memchr_iter(b'\n', sa).count() as u64;
                }
                last_byte = sa[n - 1];
                offset += n as u64;
                a.consume(n);
                b.consume(n);
                remaining -= n as u64;
            }
            Some(i) => {
                differed = true;
                match options.mode {
                    Mode::Silent => return Ok(1),
                    Mode::First => {
                        lines += memchr::memchr_iter(b'\n', &sa[..i]).count() as u64;
                        let mut text = format!("{} {} differ: byte {}, line {}", names[0].to_string_lossy(), names[1].to_string_lossy(), offset + i as u64 + 1, lines + 1);
                        if options.print_bytes {
                            text.push_str(&format!(" is {:3o} {} {:3o} {}", sa[i], show_byte(sa[i]), sb[i], show_byte(sb[i])));
                        }
                        text.push('\n');
                        out.write_all(text.as_bytes()).map_err(|e| (2, e))?;
                        return Ok(1);
                    }
                    Mode::All => {
                        let mut text = String::new();
                        for j in i..n {
                            if sa[j] != sb[j] {
                                let at = offset + j as u64 + 1;
                                if options.print_bytes {
                                    text.push_str(&format!("{:>w$} {:3o} {:<4} {:3o} {}\n", at, sa[j], show_byte(sa[j]), sb[j], show_byte(sb[j]), w = width));
                                } else {
                                    text.push_str(&format!("{:>w$} {:3o} {:3o}\n", at, sa[j], sb[j], w = width));
                                }
                            }
                        }
                        out.write_all(text.as_bytes()).map_err(|e| (2, e))?;
                        last_byte = sa[n - 1];
                        offset += n as u64;
                        a.consume(n);
                        b.consume(n);
                        remaining -= n as u64;
                    }
                }
            }
        }
    }
    Ok(if differed { 1 } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("10"), Some(10));
        assert_eq!(parse_size("1k"), Some(1024));
        assert_eq!(parse_size("1kB"), Some(1000));
        assert_eq!(parse_size("2KiB"), Some(2048));
        assert_eq!(parse_size("1M"), Some(1 << 20));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("-1"), None);
        assert_eq!(parse_size("1b"), None);
    }

    #[test]
    fn byte_rendering() {
        assert_eq!(show_byte(b'c'), "c");
        assert_eq!(show_byte(0), "^@");
        assert_eq!(show_byte(0xff), "M-^?");
        assert_eq!(show_byte(0x80), "M-^@");
    }
}
