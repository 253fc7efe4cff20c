//! `od`: dump input in octal, hex, decimal, float or character formats, one line per
//! block of `-w` bytes, with GNU's column alignment between several `-t` types, `*` for
//! repeated blocks (unless -v), `-j` skip and `-N` limit over the concatenated inputs.

#[path = "od/format.rs"]
mod format;

use std::ffi::OsString;
use std::io::{self, Read};

use common::args::{Command, Parsed};
use common::io::{open_input, quote};
use common::{strerror, Io, UError};

use format::{parse_type, Spec};
/// C's `%g`, also used by hexdump.
pub use format::format_g;

const SPEC: &str = "address-radix,A: skip-bytes,j: read-bytes,N: format,t: output-duplicates,v width,w:: strings,S:: endian: traditional a b c d f i l o s x";

const OD: Command = Command::compact("", SPEC, HELP);

/// Parses a byte count the way GNU's xstrtoumax does for od: decimal, 0x hex or 0 octal,
/// with an optional multiplier suffix (b=512, k/K=1024, kB=1000, KiB=1024, M, G, T, ...).
pub fn parse_count(text: &str) -> Option<u64> {
    let (digits_end, value) = if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        let end = hex.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(hex.len());
        (2 + end, u64::from_str_radix(&hex[..end], 16).ok()?)
    } else if text.starts_with('0') && text.len() > 1 {
        let end = text.find(|c: char| !('0'..='7').contains(&c)).unwrap_or(text.len());
        (end, u64::from_str_radix(&text[..end], 8).ok()?)
    } else {
        let end = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
        (end, text[..end].parse::<u64>().ok()?)
    };
    let suffix = &text[digits_end..];
    if suffix.is_empty() {
        return Some(value);
    }
    if suffix == "b" {
        return value.checked_mul(512);
    }
    let mut chars = suffix.chars();
    let letter = chars.next()?;
    let power = "KMGTPEZY".find(letter.to_ascii_uppercase())? as u32 + 1;
    if letter == 'm' || (letter.is_ascii_lowercase() && letter != 'k') {
        return None;
    }
    let base: u64 = match chars.as_str() {
        "" | "iB" => 1024,
        "B" => 1000,
        _ => return None,
    };
    value.checked_mul(base.checked_pow(power)?)
}

struct Options {
    radix: char,
    skip: u64,
    limit: Option<u64>,
    specs: Vec<Spec>,
    verbose: bool,
    width: usize,
    big_endian: bool,
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let mut opts = Options { radix: 'o', skip: 0, limit: None, specs: Vec::new(), verbose: false, width: 16, big_endian: cfg!(target_endian = "big") };
    let mut width_given = None;
    let mut files = Vec::new();
    OD.options(&args, io, &mut |io, p| {
        let (id, value) = match p {
            Parsed::Operand(f) => {
                files.push(f);
                return Ok(());
            }
            Parsed::Opt { id, value } => (id, value.map(|v| v.to_string_lossy().into_owned()).unwrap_or_default()),
        };
        let traditional = match id {
            "a" => Some("a"),
            "b" => Some("o1"),
            "c" => Some("c"),
            "d" => Some("u2"),
            "f" => Some("fF"),
            "i" => Some("dI"),
            "l" => Some("dL"),
            "o" => Some("o2"),
            "s" => Some("d2"),
            "x" => Some("x2"),
            _ => None,
        };
        if let Some(t) = traditional {
            opts.specs.extend(parse_type(t).unwrap_or_default());
            return Ok(());
        }
        match id {
            "address-radix" => {
                let c = value.chars().next().unwrap_or(' ');
                if value.chars().count() != 1 || !"doxn".contains(c) {
                    return Err(UError::new(1, format!("invalid output address radix '{}'; it must be one character from [doxn]", value)));
                }
                opts.radix = c;
            }
            "skip-bytes" | "read-bytes" => match parse_count(&value) {
                Some(n) if id == "skip-bytes" => opts.skip = n,
                Some(n) => opts.limit = Some(n),
                None => {
                    return Err(UError::new(1, format!("invalid {} argument {}", if id == "skip-bytes" { "--skip-bytes" } else { "--read-bytes" }, quote(&OsString::from(&value)))));
                }
            },
            "format" => match parse_type(&value) {
                Ok(specs) => opts.specs.extend(specs),
                Err(message) => {
                    return Err(UError::new(1, message));
                }
            },
            "output-duplicates" => opts.verbose = true,
            "width" => {
                if value.is_empty() {
                    width_given = Some(32);
                } else {
                    match parse_count(&value) {
                        Some(w) if w > 0 && w < 1 << 20 => width_given = Some(w as usize),
                        _ => {
                            return Err(UError::new(1, format!("invalid -w argument {}", quote(&OsString::from(&value)))));
                        }
                    }
                }
            }
            "endian" => match value.as_str() {
                "big" => opts.big_endian = true,
                "little" => opts.big_endian = false,
                _ => {
                    return Err(UError::usage(1, format!("invalid argument {} for '--endian'\nValid arguments are:\n  - 'big'\n  - 'little'", quote(&OsString::from(&value)))));
                }
            },
            "strings" => {
                return Err(UError::new(1, "option not supported in the sandbox: --strings"));
            }
            "traditional" => {
                return Err(UError::new(1, "option not supported in the sandbox: --traditional"));
            }
            _ => {
                let _ = io.out(common::version_text(&io.name).as_bytes());
                return Err(UError::exit(0));
            }
        }
        Ok(())
    })?;
    if opts.specs.is_empty() {
        opts.specs = parse_type("o2").unwrap_or_default();
    }
    let lcm = opts.specs.iter().fold(1usize, |l, s| lcm(l, s.size));
    if let Some(w) = width_given {
        if w % lcm == 0 {
            opts.width = w;
        } else {
            io.error(format!("warning: invalid width {}; using {} instead", w, lcm));
            opts.width = lcm;
        }
    } else if opts.width % lcm != 0 {
        opts.width = lcm;
    }
    format::layout(&mut opts.specs, opts.width);
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    Ok(dump(io, &opts, &files))
}

fn lcm(a: usize, b: usize) -> usize {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        let t = x % y;
        x = y;
        y = t;
    }
    a / x * b
}

/// Where the current bytes come from: standard input lives in `Io`, files here.
enum Source {
    Stdin,
    File(std::io::BufReader<std::fs::File>),
}

/// Reads the operands as one stream, a block at a time.
struct Stream<'f> {
    files: &'f [OsString],
    next: usize,
    current: Option<Source>,
    status: i32,
}

impl<'f> Stream<'f> {
    /// Fills `buf` as far as the remaining input allows; returns the count.
    fn fill(&mut self, io: &mut Io, buf: &mut [u8]) -> usize {
        let mut got = 0;
        while got < buf.len() {
            if self.current.is_none() {
                if self.next >= self.files.len() {
                    break;
                }
                let file = &self.files[self.next];
                self.next += 1;
                match open_input(file, &mut io::empty()) {
                    Ok(common::io::Input::File(f)) => self.current = Some(Source::File(f)),
                    Ok(common::io::Input::Stdin(_)) => self.current = Some(Source::Stdin),
                    Err(e) => {
                        let _ = io.stdout.flush();
                        io.error(format!("{}: {}", file.to_string_lossy(), strerror(&e)));
                        self.status = 1;
                    }
                }
                continue;
            }
            let result = match self.current.as_mut() {
                Some(Source::Stdin) => io.stdin.read(&mut buf[got..]),
                Some(Source::File(f)) => f.read(&mut buf[got..]),
                None => continue,
            };
            match result {
                Ok(0) => self.current = None,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let name = self.files[self.next - 1].to_string_lossy().into_owned();
                    io.error(format!("{}: {}", name, strerror(&e)));
                    self.status = 1;
                    self.current = None;
                }
            }
        }
        got
    }
}

fn dump(io: &mut Io, opts: &Options, files: &[OsString]) -> i32 {
    let mut stream = Stream { files, next: 0, current: None, status: 0 };
    // Skip by reading: the inputs may be pipes.
    let mut remaining_skip = opts.skip;
    let mut scratch = vec![0u8; 64 * 1024];
    while remaining_skip > 0 {
        let want = remaining_skip.min(scratch.len() as u64) as usize;
        let n = stream.fill(io, &mut scratch[..want]);
        if n == 0 {
            let _ = io.stdout.flush();
            io.error("cannot skip past end of combined input");
            return 1;
        }
        remaining_skip -= n as u64;
    }
    let mut offset = opts.skip;
    let mut left = opts.limit;
    let mut block = vec![0u8; opts.width];
    let mut previous: Option<Vec<u8>> = None;
    let mut previous_equal = false;
    let mut line = Vec::new();
    loop {
        let want = match left {
            Some(l) => (l.min(opts.width as u64)) as usize,
            None => opts.width,
        };
        let n = if want == 0 { 0 } else { stream.fill(io, &mut block[..want]) };
        if n == 0 {
            break;
        }
        if let Some(l) = left.as_mut() {
            *l -= n as u64;
        }
        let duplicate = !opts.verbose && n == opts.width && previous.as_deref() == Some(&block[..]);
        line.clear();
        if duplicate {
            if !previous_equal {
                line.extend_from_slice(b"*\n");
                previous_equal = true;
            }
        } else {
            previous_equal = false;
            for (i, spec) in opts.specs.iter().enumerate() {
                if i == 0 {
                    line.extend_from_slice(address(opts.radix, offset).as_bytes());
                } else if opts.radix != 'n' {
                    line.extend(std::iter::repeat(b' ').take(address(opts.radix, 0).len()));
                }
                format::format_line(spec, &block[..n], opts.width, opts.big_endian, &mut line);
                line.push(b'\n');
            }
        }
        if io.out(&line).is_err() {
            return stream.status.max(1);
        }
        offset += n as u64;
        match previous.as_mut() {
            Some(p) => p.copy_from_slice(&block),
            None => previous = Some(block.clone()),
        }
        if n < want {
            break;
        }
    }
    if opts.radix != 'n' {
        let mut end = address(opts.radix, offset);
        end.push('\n');
        let _ = io.out(end.as_bytes());
    }
    stream.status
}

fn address(radix: char, offset: u64) -> String {
    match radix {
        'd' => format!("{:07}", offset),
        'x' => format!("{:06x}", offset),
        'n' => String::new(),
        _ => format!("{:07o}", offset),
    }
}

const HELP: &str = "Usage: od [OPTION]... [FILE]...
Write an unambiguous representation, octal bytes by default,
of FILE to standard output.  With more than one FILE argument,
concatenate them in the listed order to form the input.

With no FILE, or when FILE is -, read standard input.

Mandatory arguments to long options are mandatory for short options too.
  -A, --address-radix=RADIX   output format for file offsets; RADIX is one
                                of [doxn], for Decimal, Octal, Hex or None
      --endian={big|little}   swap input bytes according the specified order
  -j, --skip-bytes=BYTES      skip BYTES input bytes first
  -N, --read-bytes=BYTES      limit dump to BYTES input bytes
  -t, --format=TYPE           select output format or formats
  -v, --output-duplicates     do not use * to mark line suppression
  -w[BYTES], --width[=BYTES]  output BYTES bytes per output line;
                                32 is implied when BYTES is not specified
      --help        display this help and exit
      --version     output version information and exit

Traditional format specifications may be intermixed; they accumulate:
  -a   same as -t a,  select named characters, ignoring high-order bit
  -b   same as -t o1, select octal bytes
  -c   same as -t c,  select printable characters or backslash escapes
  -d   same as -t u2, select unsigned decimal 2-byte units
  -f   same as -t fF, select floats
  -i   same as -t dI, select decimal ints
  -l   same as -t dL, select decimal longs
  -o   same as -t o2, select octal 2-byte units
  -s   same as -t d2, select decimal 2-byte units
  -x   same as -t x2, select hexadecimal 2-byte units
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_with_suffixes() {
        assert_eq!(parse_count("10"), Some(10));
        assert_eq!(parse_count("0x10"), Some(16));
        assert_eq!(parse_count("010"), Some(8));
        assert_eq!(parse_count("1k"), Some(1024));
        assert_eq!(parse_count("1kB"), Some(1000));
        assert_eq!(parse_count("2b"), Some(1024));
        assert_eq!(parse_count("1x"), None);
    }
}
