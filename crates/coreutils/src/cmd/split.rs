//! `split [OPTION]... [INPUT [PREFIX]]`: GNU split 9.1. Pieces of `-l` lines (default
//! 1000), `-b` bytes, `-C` bytes of whole lines, or `-n` chunks (N, K/N, l/N, l/K/N, r/N,
//! r/K/N); suffixes alphabetic, `-d` decimal or `-x` hex (optionally from a start value),
//! `-a` long, widening automatically (xyz → xzaaa) unless `-a` is given; `-t` separator,
//! `-e`, `--additional-suffix`, `--verbose`. `--filter` is not available in the sandbox.

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};

use common::args::{bytes_os, os_bytes};
use common::io::quote;
use common::size::{parse_size, SizeError};
use common::{strerror, Command, Io, UError};

#[path = "split/chunks.rs"]
mod chunks;
#[path = "split/output.rs"]
mod output;

use output::Outputs;

const SPEC: &str = "suffix-length,a: additional-suffix: bytes,b: line-bytes,C: numeric=d numeric=numeric-suffixes:: hex=x hex=hex-suffixes:: elide-empty-files,e filter: lines,l: number,n: separator,t: unbuffered,u verbose";

const SPLIT: Command = Command::compact("split", SPEC, HELP).operands_between(0, 2);

/// How the input is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Lines(u64),
    Bytes(u64),
    LineBytes(u64),
    /// -n: kind (b'b' bytes, b'l' lines, b'r' round robin), chunk K (0 = all), N.
    Chunks(u8, u64, u64),
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    split(args, io).map(|()| 0)
}

fn number_error(what: &str, text: &[u8], too_large: bool) -> String {
    let suffix = if too_large { ": Numerical result out of range" } else { "" };
    format!("invalid number of {}: {}{}", what, quote(&bytes_os(text)), suffix)
}

/// A positive count: plain digits for lines, with size suffixes for bytes.
fn count(what: &str, text: &[u8], suffixes: bool) -> Result<u64, String> {
    let s = String::from_utf8_lossy(text);
    let value = if suffixes {
        parse_size(&s, "bEGKkMmPTYZ0").map_err(|e| number_error(what, text, e == SizeError::TooLarge))?
    } else {
        if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
            return Err(number_error(what, text, false));
        }
        s.parse::<u64>().map_err(|_| number_error(what, text, true))?
    };
    if value == 0 {
        return Err(number_error(what, text, true));
    }
    Ok(value)
}

fn chunk_spec(text: &[u8]) -> Result<Mode, String> {
    let s = String::from_utf8_lossy(text).into_owned();
    let (kind, rest) = match s.split_once('/') {
        Some(("l", rest)) => (b'l', rest.to_string()),
        Some(("r", rest)) => (b'r', rest.to_string()),
        _ => (b'b', s.clone()),
    };
    let (k, n) = match rest.split_once('/') {
        Some((k, n)) => (Some(k.to_string()), n.to_string()),
        None => (None, rest),
    };
    let n = count("chunks", n.as_bytes(), false)?;
    let k = match k {
        Some(k) => {
            let value = count("chunks", k.as_bytes(), false).map_err(|_| format!("invalid chunk number: {}", quote(&bytes_os(k.as_bytes()))))?;
            if value > n {
                return Err(format!("invalid chunk number: {}: Numerical result out of range", quote(&bytes_os(k.as_bytes()))));
            }
            value
        }
        None => 0,
    };
    Ok(Mode::Chunks(kind, k, n))
}

fn split(args: Vec<OsString>, io: &mut Io) -> Result<(), UError> {
    let mut mode: Option<Mode> = None;
    let mut suffix_length: Option<usize> = None;
    let mut additional = Vec::new();
    let mut alphabet: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
    let mut numeric_start: Option<Vec<u8>> = None;
    let mut elide = false;
    let mut verbose = false;
    let mut separator = b'\n';
    let mut set_mode = |m: Mode| -> Result<(), UError> {
        if mode.is_some() && mode != Some(m) {
            return Err(UError::usage(1, "cannot split in more than one way"));
        }
        mode = Some(m);
        Ok(())
    };
    let operands = SPLIT.operands(&args, io, &mut |_, id, value| {
        let v = value.map(|v| os_bytes(&v).to_vec());
        let text = v.clone().unwrap_or_default();
        match id {
            "suffix-length" => {
                let s = String::from_utf8_lossy(&text);
                suffix_length = Some(s.parse::<usize>().map_err(|_| format!("invalid suffix length: {}", quote(&bytes_os(&text))))?);
            }
            "additional-suffix" => {
                if text.contains(&b'/') {
                    return Err(UError::usage(1, format!("invalid suffix {}, contains directory separator", quote(&bytes_os(&text)))));
                }
                additional = text;
            }
            "bytes" => set_mode(Mode::Bytes(count("bytes", &text, true)?))?,
            "line-bytes" => set_mode(Mode::LineBytes(count("bytes", &text, true)?))?,
            "lines" => set_mode(Mode::Lines(count("lines", &text, false)?))?,
            "number" => set_mode(chunk_spec(&text)?)?,
            "numeric" | "hex" => {
                alphabet = if id == "numeric" { b"0123456789" } else { b"0123456789abcdef" };
                if let Some(start) = v {
                    if start.is_empty() || !start.iter().all(|c| alphabet.contains(c)) {
                        return Err(UError::new(1, format!("invalid start value for {} suffix: {}", if id == "numeric" { "numerical" } else { "hexadecimal" }, quote(&bytes_os(&start)))));
                    }
                    // Leading zeros do not count towards the suffix length.
                    let trimmed = start.iter().position(|c| *c != b'0').map_or(&start[start.len() - 1..], |p| &start[p..]);
                    numeric_start = Some(trimmed.to_vec());
                }
            }
            "elide-empty-files" => elide = true,
            "filter" => return Err(UError::new(1, "option not supported in the sandbox: --filter")),
            "separator" => {
                separator = match text.as_slice() {
                    [c] => *c,
                    b"\\0" => 0,
                    [] => return Err(UError::new(1, "empty record separator")),
                    _ => return Err(UError::new(1, format!("multi-character separator {}", quote(&bytes_os(&text))))),
                }
            }
            "unbuffered" => {}
            "verbose" => verbose = true,
            _ => {}
        }
        Ok(())
    })?;
    let mode = mode.unwrap_or(Mode::Lines(1000));
    let input = operands.first().cloned().unwrap_or_else(|| OsString::from("-"));
    let prefix = operands.get(1).map(|p| os_bytes(p).to_vec()).unwrap_or_else(|| b"x".to_vec());
    let mut auto = suffix_length.is_none();
    let mut length = suffix_length.unwrap_or(2);
    if let Mode::Chunks(_, _, n) = mode {
        // Enough suffix characters for N files (counting from the start value).
        let start: u64 = numeric_start.as_ref().and_then(|s| u64::from_str_radix(std::str::from_utf8(s).ok()?, alphabet.len() as u32).ok()).unwrap_or(0);
        let mut needed = 1;
        let mut capacity = alphabet.len() as u128;
        while capacity < (n as u128 + start as u128).max(1) {
            capacity *= alphabet.len() as u128;
            needed += 1;
        }
        match suffix_length {
            Some(l) if l < needed => return Err(UError::new(1, format!("the suffix length needs to be at least {}", needed))),
            Some(_) => {}
            None => length = needed.max(2),
        }
        auto = false;
    }
    if let Some(start) = &numeric_start {
        if start.len() > length {
            return Err(UError::new(1, "numerical suffix start value is too large for the suffix length"));
        }
        auto = false;
    }
    let is_stdin = os_bytes(&input) == b"-";
    let input_identity = if is_stdin { None } else { common::fsext::metadata(std::path::Path::new(&input), true).ok().map(|m| (m.dev, m.ino)) };
    let mut outputs = Outputs::new(prefix, additional, alphabet, length, auto, numeric_start, elide, verbose, input_identity);
    let mut file_reader;
    let reader: &mut dyn BufRead = if is_stdin {
        &mut *io.stdin
    } else {
        let f = File::open(&input).map_err(|e| format!("cannot open {} for reading: {}", quote(&input), strerror(&e)))?;
        file_reader = BufReader::with_capacity(common::io::BUFFER_SIZE, f);
        &mut file_reader
    };
    let shown = if is_stdin { "-".to_string() } else { input.to_string_lossy().into_owned() };
    let result = match mode {
        Mode::Lines(n) => by_lines(reader, n, separator, &mut outputs, &mut *io.stdout),
        Mode::Bytes(n) => by_bytes(reader, n, &mut outputs, &mut *io.stdout),
        Mode::LineBytes(n) => by_line_bytes(reader, n, separator, &mut outputs, &mut *io.stdout),
        Mode::Chunks(kind, k, n) => {
            if is_stdin && common::fsext::metadata(std::path::Path::new("/dev/stdin"), true).map(|m| !m.is_file()).unwrap_or(true) && kind != b'r' {
                return Err(UError::new(1, "-: cannot determine file size"));
            }
            let mut data = Vec::new();
            reader.read_to_end(&mut data).map_err(|e| format!("{}: {}", shown, strerror(&e)))?;
            chunks::split_chunks(&data, kind, k, n, separator, &mut outputs, &mut *io.stdout)
        }
    };
    result.map_err(|e| e.message(&shown))?;
    outputs.finish();
    Ok(())
}

/// Why splitting stopped.
pub enum Failure {
    Read(std::io::Error),
    /// An output file error, already worded.
    Output(String),
}

impl Failure {
    fn message(self, input: &str) -> String {
        match self {
            Failure::Read(e) => format!("{}: {}", input, strerror(&e)),
            Failure::Output(m) => m,
        }
    }
}

fn fill(reader: &mut dyn BufRead) -> Result<Vec<u8>, Failure> {
    let buf = loop {
        match reader.fill_buf() {
            Ok(b) => break b.to_vec(),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Read(e)),
        }
    };
    reader.consume(buf.len());
    Ok(buf)
}

fn by_lines(reader: &mut dyn BufRead, n: u64, separator: u8, outputs: &mut Outputs, stdout: &mut dyn Write) -> Result<(), Failure> {
    let mut count = 0u64;
    let mut new_file = true;
    loop {
        let buf = fill(reader)?;
        if buf.is_empty() {
            return Ok(());
        }
        let mut start = 0;
        for (i, c) in buf.iter().enumerate() {
            if *c == separator {
                count += 1;
                if count >= n {
                    outputs.write(new_file, &buf[start..=i], stdout)?;
                    start = i + 1;
                    new_file = true;
                    count = 0;
                }
            }
        }
        if start < buf.len() {
            outputs.write(new_file, &buf[start..], stdout)?;
            new_file = false;
        }
    }
}

fn by_bytes(reader: &mut dyn BufRead, n: u64, outputs: &mut Outputs, stdout: &mut dyn Write) -> Result<(), Failure> {
    let mut left = n;
    let mut new_file = true;
    loop {
        let buf = fill(reader)?;
        if buf.is_empty() {
            return Ok(());
        }
        let mut data = &buf[..];
        while !data.is_empty() {
            let take = (left as usize).min(data.len());
            outputs.write(new_file, &data[..take], stdout)?;
            new_file = false;
            data = &data[take..];
            left -= take as u64;
            if left == 0 {
                left = n;
                new_file = true;
            }
        }
    }
}

/// -C: whole lines while they fit; a longer line is cut into N-byte pieces.
fn by_line_bytes(reader: &mut dyn BufRead, n: u64, separator: u8, outputs: &mut Outputs, stdout: &mut dyn Write) -> Result<(), Failure> {
    let mut current = 0u64;
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(separator, &mut line) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(Failure::Read(e)),
        }
        let mut rest = &line[..];
        if current > 0 && current + rest.len() as u64 <= n {
            outputs.write(false, rest, stdout)?;
            current += rest.len() as u64;
            continue;
        }
        while rest.len() as u64 > n {
            outputs.write(true, &rest[..n as usize], stdout)?;
            rest = &rest[n as usize..];
        }
        outputs.write(true, rest, stdout)?;
        current = rest.len() as u64;
    }
}

const HELP: &str = "Usage: {name} [OPTION]... [FILE [PREFIX]]\nOutput pieces of FILE to PREFIXaa, PREFIXab, ...;\ndefault size is 1000 lines, and default PREFIX is 'x'.\n\nWith no FILE, or when FILE is -, read standard input.\n\n  -a, --suffix-length=N   generate suffixes of length N (default 2)\n      --additional-suffix=SUFFIX  append an additional SUFFIX to file names\n  -b, --bytes=SIZE        put SIZE bytes per output file\n  -C, --line-bytes=SIZE   put at most SIZE bytes of records per output file\n  -d                      use numeric suffixes starting at 0, not alphabetic\n      --numeric-suffixes[=FROM]  same as -d, but allow setting the start value\n  -x                      use hex suffixes starting at 0, not alphabetic\n      --hex-suffixes[=FROM]  same as -x, but allow setting the start value\n  -e, --elide-empty-files  do not generate empty output files with '-n'\n  -l, --lines=NUMBER      put NUMBER lines/records per output file\n  -n, --number=CHUNKS     generate CHUNKS output files; see explanation below\n  -t, --separator=SEP     use SEP instead of newline as the record separator;\n                            '\\0' (zero) specifies the NUL character\n  -u, --unbuffered        immediately copy input to output with '-n r/...'\n      --verbose           print a diagnostic just before each\n                            output file is opened\n{standard}";
