//! `strings` (GNU binutils 2.40): prints runs of at least N printable characters (`-n N`
//! or `-N`, default 4) from each file or standard input. `-t d|o|x` (`-o`) prefixes the
//! offset, `-f` the file name, `-w` counts all white space as printable, `-s SEP` ends
//! strings with SEP, `-e s|S|b|l|B|L` picks 7-bit, 8-bit, 16- or 32-bit characters. The
//! whole file is always scanned (`-a`; object-file sections are not parsed).

use std::ffi::OsString;
use std::io::{Read, Write};

use common::args::{os_bytes, ArgError, Command, Parsed, UsageError};
use common::{Io, UError};

const SPEC: &str = "all,a data,d print-file-name,f bytes,n: radix,t: octal=o include-all-whitespace,w encoding,e: output-separator,s: target,T: unicode,U: help,h version,v version=V";

const USAGE: &str = "Usage: strings [option(s)] [file(s)]\n Display printable strings in [file(s)] (stdin by default)\n The options are:\n  -a - --all                Scan the entire file, not just the data section [default]\n  -d --data                 Only scan the data sections in the file\n  -f --print-file-name      Print the name of the file before each string\n  -n <number>               Locate & print any sequence of at least <number>\n    --bytes=<number>         displayable characters.  (The default is 4).\n  -t --radix={o,d,x}        Print the location of the string in base 8, 10 or 16\n  -w --include-all-whitespace Include all whitespace as valid string characters\n  -o                        An alias for --radix=o\n  -e --encoding={s,S,b,l,B,L} Select character size and endianness:\n                            s = 7-bit, S = 8-bit, {b,l} = 16-bit, {B,L} = 32-bit\n  -s --output-separator=<string> String used to separate strings in output.\n  -h --help                 Display this information\n  -v -V --version           Print the program's version number\n";

struct Options {
    min: usize,
    radix: Option<u8>,
    file_names: bool,
    all_whitespace: bool,
    encoding: u8,
    separator: Vec<u8>,
}

/// binutils answers a bad option with its usage text on stderr.
fn usage_error(io: &mut Io, error: ArgError) -> UError {
    io.error(error);
    let _ = io.stderr.write_all(USAGE.as_bytes());
    UError::exit(1)
}

const STRINGS: Command = Command { usage_error: Some(UsageError(usage_error)), ..Command::compact("strings", SPEC, USAGE) };

pub fn run(mut args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut opts = Options { min: 4, radix: None, file_names: false, all_whitespace: false, encoding: b's', separator: b"\n".to_vec() };
    // The obsolete `-N` form of -n N.
    let mut i = 1;
    while i < args.len() {
        let word = os_bytes(&args[i]).to_vec();
        if word == b"--" {
            break;
        }
        if word.len() > 1 && word[0] == b'-' && word[1..].iter().all(|c| c.is_ascii_digit()) {
            opts.min = String::from_utf8_lossy(&word[1..]).parse().unwrap_or(0);
            args.remove(i);
            continue;
        }
        i += 1;
    }
    let mut files: Vec<OsString> = Vec::new();
    STRINGS.options(&args, io, &mut |io, item| {
        match item {
            Parsed::Opt { id: "bytes", value } => {
                let text = value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default();
                match text.parse::<usize>() {
                    Ok(n) => opts.min = n,
                    Err(_) => {
                        return Err(UError::new(1, format!("invalid integer argument {}", text)));
                    }
                }
            }
            Parsed::Opt { id: "radix", value } => {
                opts.radix = match value.as_ref().map(|v| os_bytes(v)) {
                    Some(b"d") => Some(b'd'),
                    Some(b"o") => Some(b'o'),
                    Some(b"x") => Some(b'x'),
                    _ => {
                        let _ = io.stderr.write_all(USAGE.as_bytes());
                        return Err(UError::exit(1));
                    }
                }
            }
            Parsed::Opt { id: "octal", .. } => opts.radix = Some(b'o'),
            Parsed::Opt { id: "print-file-name", .. } => opts.file_names = true,
            Parsed::Opt { id: "include-all-whitespace", .. } => opts.all_whitespace = true,
            Parsed::Opt { id: "encoding", value } => {
                let v = value.map(|v| os_bytes(&v).to_vec()).unwrap_or_default();
                if v.len() != 1 || !b"sSblBL".contains(&v[0]) {
                    let _ = io.stderr.write_all(USAGE.as_bytes());
                    return Err(UError::exit(1));
                }
                opts.encoding = v[0];
            }
            Parsed::Opt { id: "output-separator", value } => opts.separator = value.map(|v| os_bytes(&v).to_vec()).unwrap_or_default(),
            Parsed::Opt { id: "unicode", value } => {
                let v = value.map(|v| os_bytes(&v).to_vec()).unwrap_or_default();
                if v != b"d" && v != b"default" {
                    return Err(UError::new(1, "option not supported in the sandbox: --unicode"));
                }
            }
            Parsed::Opt { .. } => {}
            // binutils rejects a lone `-` with its usage text on stdout.
            Parsed::Operand(f) if os_bytes(&f) == b"-" => {
                let _ = io.out(USAGE.as_bytes());
                return Err(UError::exit(1));
            }
            Parsed::Operand(f) => files.push(f),
        }
        Ok(())
    })?;
    if opts.min == 0 {
        return Err(UError::new(1, "invalid minimum string length 0"));
    }
    let mut status = 0;
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    for file in &files {
        let stdin_name: &[u8] = b"{standard input}";
        let name = if os_bytes(file) == b"-" { stdin_name } else { os_bytes(file) };
        let result = if os_bytes(file) == b"-" {
            scan_reader(&opts, name, &mut *io.stdin, &mut *io.stdout)
        } else {
            match std::fs::File::open(file) {
                Ok(mut f) => scan_reader(&opts, name, &mut f, &mut *io.stdout),
                Err(e) => Err((false, e)),
            }
        };
        match result {
            Ok(()) => {}
            Err((true, _)) => return Ok(status),
            Err((false, e)) => {
                let reason = if e.kind() == std::io::ErrorKind::NotFound { "No such file".to_string() } else { common::strerror(&e) };
                io.error(format!("'{}': {}", file.to_string_lossy(), reason));
                status = 1;
            }
        }
    }
    Ok(status)
}

/// The character at `pos` in the chosen encoding, if the data holds a whole one.
fn char_at(data: &[u8], pos: usize, encoding: u8) -> Option<u32> {
    let b = |i: usize| data.get(pos + i).map(|c| *c as u32);
    Some(match encoding {
        b'b' => (b(0)? << 8) | b(1)?,
        b'l' => (b(1)? << 8) | b(0)?,
        b'B' => (b(0)? << 24) | (b(1)? << 16) | (b(2)? << 8) | b(3)?,
        b'L' => (b(3)? << 24) | (b(2)? << 16) | (b(1)? << 8) | b(0)?,
        _ => b(0)?,
    })
}

fn printable(opts: &Options, c: u32) -> bool {
    if c > 255 {
        return false;
    }
    let c = c as u8;
    c == b'\t' || (0x20..0x7f).contains(&c) || (opts.encoding == b'S' && c > 127) || (opts.all_whitespace && matches!(c, b'\n' | b'\r' | 0x0b | 0x0c))
}

/// Every string of `data`, formatted.
fn scan(opts: &Options, name: &[u8], data: &[u8]) -> Vec<u8> {
    let width = match opts.encoding {
        b'b' | b'l' => 2,
        b'B' | b'L' => 4,
        _ => 1,
    };
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let start = pos;
        let mut chars = Vec::new();
        let mut p = pos;
        loop {
            match char_at(data, p, opts.encoding) {
                Some(c) if printable(opts, c) => {
                    chars.push(c as u8);
                    p += width;
                }
                _ => break,
            }
        }
        if chars.len() >= opts.min {
            prefix(opts, name, start as u64, &mut out);
            out.extend_from_slice(&chars);
            out.extend_from_slice(&opts.separator);
        }
        // The next search starts one byte into the character that ended this run.
        pos = p + 1;
    }
    out
}

/// Streaming scanner for the one-byte encodings: output as soon as a run is long enough.
struct Narrow<'a> {
    opts: &'a Options,
    name: &'a [u8],
    offset: u64,
    run: Vec<u8>,
    run_start: u64,
    printing: bool,
}

impl<'a> Narrow<'a> {
    fn feed(&mut self, chunk: &[u8], out: &mut Vec<u8>) {
        for &c in chunk {
            if printable(self.opts, c as u32) {
                if self.printing {
                    out.push(c);
                } else {
                    if self.run.is_empty() {
                        self.run_start = self.offset;
                    }
                    self.run.push(c);
                    if self.run.len() >= self.opts.min {
                        prefix(self.opts, self.name, self.run_start, out);
                        out.append(&mut self.run);
                        self.printing = true;
                    }
                }
            } else {
                self.end(out);
            }
            self.offset += 1;
        }
    }

    fn end(&mut self, out: &mut Vec<u8>) {
        if self.printing {
            out.extend_from_slice(&self.opts.separator);
        }
        self.printing = false;
        self.run.clear();
    }
}

fn prefix(opts: &Options, name: &[u8], start: u64, out: &mut Vec<u8>) {
    if opts.file_names {
        out.extend_from_slice(name);
        out.extend_from_slice(b": ");
    }
    match opts.radix {
        Some(b'o') => out.extend_from_slice(format!("{:7o} ", start).as_bytes()),
        Some(b'd') => out.extend_from_slice(format!("{:7} ", start).as_bytes()),
        Some(_) => out.extend_from_slice(format!("{:7x} ", start).as_bytes()),
        None => {}
    }
}

/// Scans one input, streaming for one-byte encodings. Err(true): a write failed.
fn scan_reader<R: Read + ?Sized>(opts: &Options, name: &[u8], reader: &mut R, stdout: &mut dyn Write) -> Result<(), (bool, std::io::Error)> {
    if opts.encoding != b's' && opts.encoding != b'S' {
        let mut data = Vec::new();
        reader.read_to_end(&mut data).map_err(|e| (false, e))?;
        return stdout.write_all(&scan(opts, name, &data)).map_err(|e| (true, e));
    }
    let mut narrow = Narrow { opts, name, offset: 0, run: Vec::new(), run_start: 0, printing: false };
    let mut buffer = vec![0u8; common::io::BUFFER_SIZE];
    let mut out = Vec::new();
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err((false, e)),
        };
        narrow.feed(&buffer[..n], &mut out);
        if out.len() >= common::io::BUFFER_SIZE {
            stdout.write_all(&out).map_err(|e| (true, e))?;
            out.clear();
        }
    }
    narrow.end(&mut out);
    stdout.write_all(&out).map_err(|e| (true, e))
}
