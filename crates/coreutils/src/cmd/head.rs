//! `head`: the first (or all but the last) N lines or bytes of each file. Streams: it stops
//! reading as soon as it has printed what was asked, so `yes | head -1` ends.

use std::ffi::OsString;
use std::io::{BufRead, Write};

use common::args::{os_bytes, Command, Parsed};
use common::{Io, UError};

/// Opening, headers and failures shared with tail.
#[path = "head/operands.rs"]
pub mod operands;
use operands::{each_block, Failure};

const SPEC: &str = "c,bytes: n,lines: q,quiet q=silent v,verbose z,zero-terminated";

const HEAD: Command = Command::compact("head", SPEC, HELP);

const HELP: &str = "Usage: head [OPTION]... [FILE]...
Print the first 10 lines of each FILE to standard output.
With more than one FILE, precede each with a header giving the file name.

With no FILE, or when FILE is -, read standard input.

  -c, --bytes=[-]NUM       print the first NUM bytes of each file;
                             with the leading '-', print all but the last
                             NUM bytes of each file
  -n, --lines=[-]NUM       print the first NUM lines instead of the first 10;
                             with the leading '-', print all but the last
                             NUM lines of each file
  -q, --quiet, --silent    never print headers giving file names
  -v, --verbose            always print headers giving file names
  -z, --zero-terminated    line delimiter is NUL, not newline
{standard}
NUM may have a multiplier suffix:
b 512, kB 1000, K 1024, MB 1000*1000, M 1024*1024,
GB 1000*1000*1000, G 1024*1024*1024, and so on for T, P, E, Z, Y, R, Q.
Binary prefixes can be used, too: KiB=K, MiB=M, and so on.
";

#[derive(Clone, Copy)]
struct Count {
    bytes: bool,
    /// All but the last `n` (a leading '-').
    elide: bool,
    n: u64,
}

/// Turns the obsolete `-5`, `-5c`, `-3qv` first argument into modern options.
fn expand_obsolete(args: &[OsString]) -> Vec<OsString> {
    let mut out: Vec<OsString> = args.to_vec();
    if let Some(first) = args.get(1) {
        let b = os_bytes(first);
        if b.len() >= 2 && b[0] == b'-' && b[1].is_ascii_digit() {
            let digits = b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            let number = String::from_utf8_lossy(&b[1..1 + digits]).into_owned();
            let mut rest = &b[1 + digits..];
            let mut unit = "";
            if let Some(&u) = rest.first() {
                if u == b'b' || u == b'k' || u == b'm' {
                    unit = match u {
                        b'b' => "b",
                        b'k' => "K",
                        _ => "M",
                    };
                    rest = &rest[1..];
                }
            }
            let mut opt = "-n";
            let mut flags = Vec::new();
            for &c in rest {
                match c {
                    b'c' => opt = "-c",
                    b'l' => opt = "-n",
                    b'q' | b'v' | b'z' => flags.push(format!("-{}", c as char)),
                    _ => return out,
                }
            }
            let mut replaced = vec![args[0].clone(), OsString::from(opt), OsString::from(format!("{}{}", number, unit))];
            replaced.extend(flags.into_iter().map(OsString::from));
            replaced.extend(args[2..].iter().cloned());
            out = replaced;
        }
    }
    out
}

fn parse_count(text: &OsString, bytes: bool) -> Result<Count, String> {
    let (sign, n) = operands::parse_count(text, bytes, false)?;
    Ok(Count { bytes, elide: sign == b'-', n })
}

pub fn run(args: Vec<OsString>, io: &mut Io) -> Result<i32, UError> {
    let args = expand_obsolete(&args);
    let mut count = Count { bytes: false, elide: false, n: 10 };
    let mut headers: Option<bool> = None;
    let mut delimiter = b'\n';
    let mut files = Vec::new();
    HEAD.options(&args, io, &mut |_, p| {
        match p {
            Parsed::Operand(f) => files.push(f),
            Parsed::Opt { id, value } => match id {
                "c" | "n" => count = parse_count(&value.unwrap_or_default(), id == "c").map_err(|m| UError::new(1, m))?,
                "q" => headers = Some(false),
                "v" => headers = Some(true),
                _ => delimiter = 0,
            },
        }
        Ok(())
    })?;
    if files.is_empty() {
        files.push(OsString::from("-"));
    }
    let show_headers = headers.unwrap_or(files.len() > 1);
    operands::each_operand(io, &files, show_headers, |i, out| head(i.reader(), out, count, delimiter), |_, _| {})
}

fn head(reader: &mut dyn BufRead, out: &mut dyn Write, count: Count, delimiter: u8) -> Result<(), Failure> {
    match (count.bytes, count.elide) {
        (true, false) => first_bytes(reader, out, count.n),
        (false, false) => first_lines(reader, out, count.n, delimiter),
        (true, true) => all_but_last_bytes(reader, out, count.n),
        (false, true) => all_but_last_lines(reader, out, count.n, delimiter),
    }
}

fn first_bytes(reader: &mut dyn BufRead, out: &mut dyn Write, n: u64) -> Result<(), Failure> {
    let mut left = n;
    if left == 0 {
        return Ok(());
    }
    each_block(reader, |buf| {
        let take = (buf.len() as u64).min(left) as usize;
        out.write_all(&buf[..take]).map_err(Failure::Write)?;
        left -= take as u64;
        Ok(if left == 0 { None } else { Some(take) })
    })
}

fn first_lines(reader: &mut dyn BufRead, out: &mut dyn Write, n: u64, delimiter: u8) -> Result<(), Failure> {
    let mut left = n;
    if left == 0 {
        return Ok(());
    }
    each_block(reader, |buf| {
        let mut end = buf.len();
        for pos in memchr::memchr_iter(delimiter, buf) {
            left -= 1;
            if left == 0 {
                end = pos + 1;
                break;
            }
        }
        out.write_all(&buf[..end]).map_err(Failure::Write)?;
        Ok(if left == 0 { None } else { Some(end) })
    })
}

fn all_but_last_bytes(reader: &mut dyn BufRead, out: &mut dyn Write, n: u64) -> Result<(), Failure> {
    let keep = usize::try_from(n).unwrap_or(usize::MAX);
    let mut pending: Vec<u8> = Vec::new();
    each_block(reader, |buf| {
        pending.extend_from_slice(buf);
        if pending.len() > keep {
            let emit = pending.len() - keep;
            out.write_all(&pending[..emit]).map_err(Failure::Write)?;
            pending.drain(..emit);
        }
        Ok(Some(buf.len()))
    })
}

fn all_but_last_lines(reader: &mut dyn BufRead, out: &mut dyn Write, n: u64, delimiter: u8) -> Result<(), Failure> {
    let keep = usize::try_from(n).unwrap_or(usize::MAX);
    let mut lines: std::collections::VecDeque<Vec<u8>> = std::collections::VecDeque::new();
    loop {
        let mut line = Vec::new();
        let got = reader.read_until(delimiter, &mut line).map_err(Failure::Read)?;
        if got == 0 {
            return Ok(());
        }
        lines.push_back(line);
        if lines.len() > keep {
            if let Some(oldest) = lines.pop_front() {
                out.write_all(&oldest).map_err(Failure::Write)?;
            }
        }
    }
}
